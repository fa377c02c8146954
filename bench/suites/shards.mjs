// Tenants over several D1 databases. Three measurements, each side by side in one run:
//  1. aggregate write throughput: tenants each PUTting 5000-line batches at once, spread over 2
//     shards against the same number of tenants all on 1 shard;
//  2. noisy neighbour: tenant B's line-page latency alone, while tenant A saturates writes on B's
//     shard, and while A does the same on the other shard;
//  3. capacity: bytes per row measured from the databases' own size (D1's meta.size_after), scaled
//     to the normal load of one tenant and to a platform of 1,000 tenants.

const LINES = 5000;
const WRITERS = 4;
const THROUGHPUT_ROUNDS = 3;
const THROUGHPUT_MS = 8_000;
const READ_SAMPLES = 60;
const SHARD_CAP_BYTES = 10 * 1e9;
// The normal load of one tenant: 300 Operations of 5000 lines, 1500 directory accounts.
const NORMAL = { operations: 300, linesPerOperation: 5000, accounts: 1500 };
const SIZE_SAMPLE = { operations: 8, accounts: 1500 };

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const r = (ms) => Math.round(ms * 10) / 10;

/** CPU seconds used so far by every workerd process on the machine (the local runtime serving the bench). */
function workerdCpuSeconds() {
  let pids = [];
  try {
    pids = execFileSync("pgrep", ["-x", "workerd"], { encoding: "utf8" }).trim().split("\n").filter(Boolean);
  } catch {
    return NaN;
  }
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command name: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}
const ratio = (a, b) => Math.round((a / b) * 100) / 100;

function linesBody(round = 0) {
  return JSON.stringify(
    Array.from({ length: LINES }, (_, i) => ({
      variantExternalId: `SKU-${String(i).padStart(5, "0")}`,
      variantName: { en: `Shirt ${i} size ${i % 4}`, fr: `Chemise ${i} taille ${i % 4}` },
      minQuantity: i % 4,
      maxQuantity: 12 + (i % 7) + (round % 50),
      recommendedQuantity: i % 5 === 0 ? null : 6,
    })),
  );
}

let operationNumber = 0;
function operationBody() {
  operationNumber++;
  return {
    code: `SHARDS-${Date.now().toString(36)}-${operationNumber}`,
    name: { en: `Shards bench ${operationNumber}` },
    type: "PRIVATE",
    startDate: "2027-03-01T00:00:00Z",
    endDate: "2027-04-30T23:59:59Z",
  };
}

export default async function shardsSuite(ctx) {
  const notes = [];
  const bodies = Array.from({ length: 8 }, (_, round) => linesBody(round));

  /** A tenant on `shard` with one DRAFT Operation of 5000 lines. */
  async function writer(shard) {
    const { operator } = await ctx.newTenant({ shard });
    const operationId = (await ctx.expect(operator, "POST", "/v1/operations", operationBody(), 201)).body.id;
    await ctx.expect(operator, "PUT", `/v1/operations/${operationId}/lines`, bodies[0], 200);
    let round = 0;
    return {
      operator,
      operationId,
      shard,
      put: () => ctx.expect(operator, "PUT", `/v1/operations/${operationId}/lines`, bodies[++round % bodies.length], 200),
    };
  }

  const busyCores = { one: [], two: [] };
  /** Batches per second while every writer keeps one PUT in flight for `ms` (and how many cores workerd kept busy). */
  async function aggregate(writers, ms, layout) {
    let done = 0;
    const cpuAtStart = workerdCpuSeconds();
    const started = performance.now();
    const deadline = started + ms;
    await Promise.all(
      writers.map(async (w) => {
        while (performance.now() < deadline) {
          await w.put();
          done++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (layout) busyCores[layout].push((workerdCpuSeconds() - cpuAtStart) / seconds);
    return done / seconds;
  }

  // ---- 1. aggregate write throughput ------------------------------------------------------
  const oneShard = [];
  for (let i = 0; i < WRITERS; i++) oneShard.push(await writer("SHARD_1"));
  const twoShards = [];
  for (let i = 0; i < WRITERS; i++) twoShards.push(await writer(i % 2 === 0 ? "SHARD_1" : "SHARD_2"));
  const perRound = { one: [], two: [] };
  await aggregate(oneShard, 2_000);
  await aggregate(twoShards, 2_000);
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    // Alternating order, so drift of the machine hits both layouts alike.
    const order = round % 2 === 0 ? ["one", "two"] : ["two", "one"];
    for (const layout of order) perRound[layout].push(await aggregate(layout === "one" ? oneShard : twoShards, THROUGHPUT_MS, layout));
  }
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const throughputRows = [
    {
      layout: `${WRITERS} tenants on 1 shard`,
      batchesPerSec: r(mean(perRound.one)),
      linesPerSec: Math.round(mean(perRound.one) * LINES),
      rounds: perRound.one.map(r).join(" / "),
      workerdCores: r(mean(busyCores.one)),
      ratio: 1,
      goal: "",
    },
    {
      layout: `${WRITERS} tenants on 2 shards (2 + 2)`,
      batchesPerSec: r(mean(perRound.two)),
      linesPerSec: Math.round(mean(perRound.two) * LINES),
      rounds: perRound.two.map(r).join(" / "),
      workerdCores: r(mean(busyCores.two)),
      ratio: ratio(mean(perRound.two), mean(perRound.one)),
      goal: "≥ 1.6×",
    },
  ];

  // ---- 2. noisy neighbour -----------------------------------------------------------------
  const { operator: b } = await ctx.newTenant({ shard: "SHARD_1" });
  const bOperation = (await ctx.expect(b, "POST", "/v1/operations", operationBody(), 201)).body.id;
  await ctx.expect(b, "PUT", `/v1/operations/${bOperation}/lines`, bodies[1], 200);
  const readB = async () => (await ctx.expect(b, "GET", `/v1/operations/${bOperation}/lines?limit=500`, undefined, 200)).ms;
  const noisy = { same: oneShard.slice(0, 2), other: twoShards.filter((w) => w.shard === "SHARD_2") };
  /** B's page p50 while `writers` (tenant A's Operations) keep PUTting 5000-line batches. */
  async function readWhile(writers) {
    let stop = false;
    const load = writers.map(async (w) => {
      while (!stop) await w.put();
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stats = await ctx.measure(readB, { iterations: READ_SAMPLES, warmup: 3 });
    stop = true;
    await Promise.all(load);
    return stats;
  }
  const alone1 = await ctx.measure(readB, { iterations: READ_SAMPLES, warmup: 5 });
  const sameShard = await readWhile(noisy.same);
  const otherShard = await readWhile(noisy.other);
  const alone2 = await ctx.measure(readB, { iterations: READ_SAMPLES, warmup: 3 });
  const alone = { p50: Math.min(alone1.p50, alone2.p50), p99: Math.max(alone1.p99, alone2.p99) };
  const neighbourRows = [
    { case: "B alone (best of before and after)", p50: r(alone.p50), p99: r(alone.p99), ratioP50: 1, goal: "" },
    { case: "A writing on B's shard", p50: r(sameShard.p50), p99: r(sameShard.p99), ratioP50: ratio(sameShard.p50, alone.p50), goal: "" },
    { case: "A writing on the other shard", p50: r(otherShard.p50), p99: r(otherShard.p99), ratioP50: ratio(otherShard.p50, alone.p50), goal: "≤ 1.2×" },
  ];

  // ---- 2b. what the move fence costs every write --------------------------------------------
  // The floor route's bare 5000-row upsert, with the shard's fence triggers and without (interleaved).
  const { operator: fenced } = await ctx.newTenant({ shard: "SHARD_1" });
  const fencedOperation = (await ctx.expect(fenced, "POST", "/v1/operations", operationBody(), 201)).body.id;
  const rawUpsert = (round) => ctx.expect(fenced, "PUT", `/v1/__bench/raw-upsert/${fencedOperation}`, bodies[(round + 8) % bodies.length], 200);
  const setTriggers = (enabled) => ctx.expect(null, "POST", "/__bench/fence-triggers", { shard: "SHARD_1", enabled }, 200);
  let fenceCost;
  try {
    fenceCost = await ctx.sideBySide(
      {
        withFence: async (round) => {
          await setTriggers(true);
          return (await rawUpsert(round)).ms;
        },
        withoutFence: async (round) => {
          await setTriggers(false);
          return (await rawUpsert(round)).ms;
        },
      },
      { rounds: 20, warmup: 2 },
    );
  } finally {
    await setTriggers(true);
  }
  const fenceRows = [
    {
      case: "raw upsert of 5000 lines, fence triggers on",
      p50: r(fenceCost.withFence.p50),
      p99: r(fenceCost.withFence.p99),
      ratioP50: ratio(fenceCost.withFence.p50, fenceCost.withoutFence.p50),
    },
    { case: "the same without them", p50: r(fenceCost.withoutFence.p50), p99: r(fenceCost.withoutFence.p99), ratioP50: 1 },
  ];

  // ---- 3. capacity --------------------------------------------------------------------------
  const sizes = async () => (await ctx.expect(null, "GET", "/__bench/database-sizes", undefined, 200)).body;
  const { operator: sized } = await ctx.newTenant({ shard: "SHARD_2" });
  const start = await sizes();
  const directory = JSON.stringify(
    Array.from({ length: SIZE_SAMPLE.accounts }, (_, i) => ({
      accountId: `ACC-${String(i).padStart(5, "0")}`,
      name: `Buyer account ${i}`,
      users: [{ userId: `u_${i}`, email: `buyer${i}@example.test` }],
    })),
  );
  await ctx.expect(sized, "PUT", "/v1/accounts", directory, 200);
  const afterAccounts = await sizes();
  const operations = [];
  for (let i = 0; i < SIZE_SAMPLE.operations; i++) {
    const id = (await ctx.expect(sized, "POST", "/v1/operations", operationBody(), 201)).body.id;
    await ctx.expect(sized, "PUT", `/v1/operations/${id}/lines`, bodies[i % bodies.length], 200);
    operations.push(id);
  }
  const afterLines = await sizes();
  const accountIds = JSON.stringify(JSON.parse(directory).map((account) => account.accountId));
  for (const id of operations) await ctx.expect(sized, "PUT", `/v1/operations/${id}/accounts`, accountIds, 200);
  const afterAttach = await sizes();
  const perAccount = (afterAccounts.SHARD_2 - start.SHARD_2) / SIZE_SAMPLE.accounts;
  const perLine = (afterLines.SHARD_2 - afterAccounts.SHARD_2) / (SIZE_SAMPLE.operations * LINES);
  const perAttachment = (afterAttach.SHARD_2 - afterLines.SHARD_2) / (SIZE_SAMPLE.operations * SIZE_SAMPLE.accounts);
  const lines = NORMAL.operations * NORMAL.linesPerOperation;
  const capacityRow = (name, attachedPerOperation) => {
    const bytes = NORMAL.accounts * perAccount + lines * perLine + NORMAL.operations * attachedPerOperation * perAttachment;
    const perShard = Math.floor(SHARD_CAP_BYTES / bytes);
    return {
      tenant: name,
      gbPerTenant: Math.round((bytes / 1e9) * 100) / 100,
      tenantsPer10GbShard: perShard,
      shardsFor1000Tenants: perShard > 0 ? Math.ceil(1000 / perShard) : "∞",
    };
  };
  const capacityRows = [
    { measured: "bytes per line (5000-line Operations, 2 locales)", bytes: Math.round(perLine) },
    { measured: "bytes per directory account (1 user)", bytes: Math.round(perAccount) },
    { measured: "bytes per attachment (Operation × account)", bytes: Math.round(perAttachment) },
  ];
  const tenantRows = [
    capacityRow("300 × 5000 lines, 1500 accounts, 100 attached per Operation", 100),
    capacityRow("300 × 5000 lines, 1500 accounts, all 1500 attached to every Operation", NORMAL.accounts),
  ];

  notes.push(
    `throughput: ${WRITERS} tenants each keep one PUT of ${LINES} lines in flight for ${THROUGHPUT_MS / 1000} s, ${THROUGHPUT_ROUNDS} rounds per layout in alternating order (rounds column); the same tenants' Operations on 1 shard, and spread 2 + 2`,
    `noisy neighbour: B reads GET lines limit=500 (page 1 of ${LINES}) ${READ_SAMPLES} times; A keeps 2 PUTs of ${LINES} lines in flight on B's shard, then on the other; B alone is measured before and after`,
    `capacity: growth of SHARD_2's size (D1 meta.size_after) while a tenant adds ${SIZE_SAMPLE.accounts} accounts, ${SIZE_SAMPLE.operations} Operations of ${LINES} lines, then attaches every account to each; indexes included; events, carts and orders left out (they grow with use, not with the catalogue); 10 GB is D1's per-database cap`,
    "workerdCores: CPU seconds the local workerd process used per second of the run (from /proc): wrangler dev serves the Worker, the Durable Objects and every local D1 database from that one process, so the two shards share whatever cores it can use here, and the noisy neighbour shares them too; on Cloudflare each D1 database is its own instance",
  );
  return {
    title: "Tenants over several D1 databases",
    tables: [
      { title: "Aggregate write throughput (5000-line PUTs)", rows: throughputRows },
      { title: "Noisy neighbour: tenant B's line page while tenant A writes", rows: neighbourRows },
      { title: "What the move fence costs a write (triggers on every tenant table)", rows: fenceRows },
      { title: "Measured row sizes", rows: capacityRows },
      { title: "Capacity per 10 GB shard", rows: tenantRows },
    ],
    notes,
  };
}
