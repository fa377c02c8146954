// Change history must not make the big writes much dearer, and its reads must be quick at full size.
// Writes are measured side by side with the commit before history (the parent of "Change history,
// recorded on every write path…"), served by a second local server from that commit's tree; calls
// alternate between the two servers round after round. The reads (a past version's first page, a
// diff, a revert) are measured on this tree against the call they stand beside (the current first
// page, a PUT of as many lines). Storage: the databases' growth on each server for the same writes.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { extractTree } from "../lib.mjs";

const BASELINE_REF = process.env.BENCH_BASELINE ?? "fe5f5b2^";
const LINES = 5000;
const RULES = 5000;
const WRITE_ROUNDS = 24;
const READ_ROUNDS = 30;
const WARMUP = 3;
/** Versions back for the past page: each of them changed this many lines. */
const VERSIONS_BACK = 20;
const LINES_PER_VERSION = 250;
const BLOCKS = 3;

const OPEN = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
const sku = (i) => `SKU-${String(i).padStart(5, "0")}`;

/** 5000 lines; `max(i)` gives line i's maximum (what a round changes). */
const linesBody = (max) =>
  JSON.stringify(
    Array.from({ length: LINES }, (_, i) => ({
      variantExternalId: sku(i),
      variantName: { en: `Shirt ${i}`, fr: `Chemise ${i}` },
      minQuantity: i % 4 === 0 ? 1 : 0,
      maxQuantity: max(i),
      recommendedQuantity: i % 3 ? 6 : null,
    })),
  );
const rulesBody = (round) =>
  JSON.stringify(Array.from({ length: RULES }, (_, i) => ({ accountId: `A-${i % 1000}`, supplierId: `S-${Math.floor(i / 1000)}`, minimum: 1000 + round })));

const percentile = (samples, fraction) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
};
const p50 = (samples) => percentile(samples, 0.5);

async function seed(side) {
  const { operator } = await side.newTenant();
  let number = 0;
  const createOperation = async () =>
    (await side.expect(operator, "POST", "/v1/operations", { code: `HIST-${++number}`, name: { en: `Bench ${number}` }, type: "PUBLIC", ...OPEN }, 201)).body
      .id;
  const putLines = (id, body) => side.expect(operator, "PUT", `/v1/operations/${id}/lines`, body, 200);
  const everyLine = await createOperation();
  await putLines(
    everyLine,
    linesBody(() => 24),
  );
  const threeLines = await createOperation();
  await putLines(
    threeLines,
    linesBody(() => 24),
  );
  await side.expect(operator, "PUT", "/v1/buying-policies/quotas/rules", rulesBody(0), 200);
  return { operator, createOperation, putLines, everyLine, threeLines };
}

/**
 * Side by side: `call(side, seeded, round)` on both servers, alternating; p50s, their ratio and the ratio
 * per third of the run. `floor(round)`, when given, runs in the same rounds: its p50 comes back as `floorP50`.
 */
async function compareSides(ctx, sides, seeded, name, call, goal, floor) {
  const samples = { current: [], baseline: [], floor: [] };
  const timed = (which, run) => async (round) => {
    const ms = await run(round);
    if (round >= 0) samples[which].push(ms);
    return ms;
  };
  const calls = {
    current: timed("current", (round) => call(sides.current, seeded.current, round)),
    baseline: timed("baseline", (round) => call(sides.baseline, seeded.baseline, round)),
  };
  if (floor) calls.floor = timed("floor", floor);
  await ctx.sideBySide(calls, { rounds: WRITE_ROUNDS, warmup: WARMUP, label: name });
  const ratio = p50(samples.current) / p50(samples.baseline);
  const size = Math.ceil(WRITE_ROUNDS / BLOCKS);
  const blocks = Array.from(
    { length: BLOCKS },
    (_, b) => p50(samples.current.slice(b * size, (b + 1) * size)) / p50(samples.baseline.slice(b * size, (b + 1) * size)),
  );
  const withinNoise = Math.min(...blocks) <= 1;
  return {
    name,
    p50: ctx.round(p50(samples.current)),
    baselineP50: ctx.round(p50(samples.baseline)),
    ratioP50: Math.round(ratio * 1000) / 1000,
    blockRatios: blocks.map((r) => r.toFixed(2)).join(" / "),
    ...(goal && { goal: `≤ ${goal}× before`, met: ratio <= goal || withinNoise ? "yes" : "no" }),
    ...(floor && { floorP50: ctx.round(p50(samples.floor)) }),
  };
}

/**
 * The row of `measured` (compareSides with a floor) as ratios to its floor, this tree's and the
 * baseline's: within `goal`× the baseline's ratio.
 */
function toFloor(name, measured, goal) {
  const ratio = measured.p50 / measured.floorP50;
  const baselineRatio = measured.baselineP50 / measured.floorP50;
  const bound = Math.round(goal * baselineRatio * 100) / 100;
  return {
    name,
    p50: measured.p50,
    floorP50: measured.floorP50,
    ratioP50: Math.round(ratio * 100) / 100,
    baselineRatioP50: Math.round(baselineRatio * 100) / 100,
    goal: `≤ ${bound}× the bare upsert (${goal}× the ${Math.round(baselineRatio * 100) / 100}× before)`,
    met: ratio <= bound ? "yes" : "no",
  };
}

/** Two calls on this tree, alternating: their p50s and ratio. */
async function compareCalls(ctx, name, calls, goal) {
  const samples = { measured: [], beside: [] };
  const timed = (which) => async (round) => {
    const ms = await calls[which](round);
    if (round >= 0) samples[which].push(ms);
    return ms;
  };
  await ctx.sideBySide({ measured: timed("measured"), beside: timed("beside") }, { rounds: READ_ROUNDS, warmup: WARMUP, label: name });
  const ratio = p50(samples.measured) / p50(samples.beside);
  return {
    name,
    p50: ctx.round(p50(samples.measured)),
    besideP50: ctx.round(p50(samples.beside)),
    ratioP50: Math.round(ratio * 1000) / 1000,
    ...goal(ratio, p50(samples.measured)),
  };
}

export default async function history(ctx) {
  const { commit, dir } = extractTree(BASELINE_REF);
  ctx.log(`baseline: ${BASELINE_REF} = ${commit.slice(0, 12)}, served from ${dir}`);
  const baselineServer = await ctx.startServer({ root: dir, stateDir: join(dir, ".bench-state") });
  try {
    const sides = { current: ctx, baseline: ctx.createContext(baselineServer.baseUrl) };
    const seeded = { current: await seed(sides.current), baseline: await seed(sides.baseline) };
    const rows = [];

    // ---- writes, side by side with the commit before history; every line changed also against the floor of any such write
    const everyLineBody = (round) => linesBody(() => 100 + round + 3);
    const bareUpsert = async (round) => (await ctx.expect(seeded.current.operator, "PUT", "/v1/__bench/bare-upsert", everyLineBody(round), 200)).ms;
    const putEveryLine = async (_side, s, round) => (await s.putLines(s.everyLine, everyLineBody(round))).ms;
    const everyLine = await compareSides(ctx, sides, seeded, "PUT 5000 lines, every line changed", putEveryLine, 1.2, bareUpsert);
    rows.push(everyLine, toFloor("PUT 5000 lines, every line changed, against a bare upsert of the same 5000 rows", everyLine, 1.2));
    rows.push(
      await compareSides(
        ctx,
        sides,
        seeded,
        "PUT 5000 lines, 3 changed",
        async (_side, s, round) =>
          (
            await s.putLines(
              s.threeLines,
              linesBody((i) => (i < 3 ? 30 + (round & 1) : 24)),
            )
          ).ms,
        1.05,
      ),
    );
    rows.push(
      await compareSides(
        ctx,
        sides,
        seeded,
        "PUT 5000 rules, every rule changed",
        async (side, s, round) => (await side.expect(s.operator, "PUT", "/v1/buying-policies/quotas/rules", rulesBody(round + 7), 200)).ms,
        1.2,
      ),
    );
    rows.push(
      await compareSides(
        ctx,
        sides,
        seeded,
        "constant route (each server's floor)",
        async (side, s) => (await side.expect(s.operator, "GET", "/v1/__bench/constant", undefined, 200)).ms,
      ),
    );

    // ---- storage: the same writes on both servers, the databases' growth between them
    const sizeOf = async (side) =>
      Object.values((await side.expect(null, "GET", "/__bench/database-sizes", undefined, 200)).body).reduce((sum, bytes) => sum + bytes, 0);
    const growth = async (write) => {
      const before = { current: await sizeOf(sides.current), baseline: await sizeOf(sides.baseline) };
      for (const which of ["current", "baseline"]) await write(sides[which], seeded[which]);
      return (await sizeOf(sides.current)) - before.current - ((await sizeOf(sides.baseline)) - before.baseline);
    };
    const storage = [];
    for (let i = 0; i < 4; i++)
      storage.push(
        await growth(async (_side, s) =>
          s.putLines(
            s.everyLine,
            linesBody(() => 500 + i),
          ),
        ),
      );
    const bytesPerLineRecord = storage.reduce((sum, bytes) => sum + bytes, 0) / (4 * LINES);
    const threeFields = await growth(async (_side, s) =>
      s.putLines(
        s.everyLine,
        JSON.stringify(
          Array.from({ length: LINES }, (_, i) => ({ variantExternalId: sku(i), variantName: { en: `Renamed ${i}` }, minQuantity: 0, maxQuantity: 700 })),
        ),
      ),
    );
    const bytesPerThreeFieldRecord = threeFields / LINES;
    // A line's creation records every field (two names, both quantities, the recommendation).
    const created = await growth(async (_side, s) =>
      s.putLines(
        await s.createOperation(),
        linesBody(() => 24),
      ),
    );
    const bytesPerCreatedLineRecord = created / LINES;

    // ---- reads and a revert, on this tree
    const s = seeded.current;
    const past = await s.createOperation();
    await s.putLines(
      past,
      linesBody(() => 24),
    );
    const { version: first } = (await ctx.expect(s.operator, "GET", `/v1/operations/${past}`, undefined, 200)).body;
    for (let v = 1; v <= VERSIONS_BACK; v++)
      await s.putLines(
        past,
        linesBody((i) => (Math.floor(i / LINES_PER_VERSION) === v - 1 ? 40 + v : 24)),
      );
    const page = (query) => async () => (await ctx.expect(s.operator, "GET", `/v1/operations/${past}/lines?limit=50${query}`, undefined, 200)).ms;
    rows.push(
      await compareCalls(
        ctx,
        `lines?asOf first page, ${VERSIONS_BACK} versions back (${VERSIONS_BACK * LINES_PER_VERSION} line records after it) vs the current first page`,
        { measured: page(`&asOf=${first}`), beside: page("") },
        (ratio) => ({ goal: "≤ 2× the current page", met: ratio <= 2 ? "yes" : "no" }),
      ),
    );
    /** An Operation of 5000 lines whose last version changed every line: its id and the version before. */
    const everyLineChanged = async () => {
      const id = await s.createOperation();
      await s.putLines(
        id,
        linesBody(() => 24),
      );
      const { version } = (await ctx.expect(s.operator, "GET", `/v1/operations/${id}`, undefined, 200)).body;
      await s.putLines(
        id,
        linesBody(() => 48),
      );
      return { id, version };
    };
    const { id: everyLineVersions, version: v1 } = await everyLineChanged();
    const diff = async () => {
      let ms = 0;
      let token = null;
      do {
        const answer = await ctx.expect(
          s.operator,
          "GET",
          `/v1/operations/${everyLineVersions}/diff?from=${v1}&to=${v1 + 1}&limit=1000${token ? `&nextToken=${encodeURIComponent(token)}` : ""}`,
          undefined,
          200,
        );
        ms += answer.ms;
        token = answer.body.nextToken;
      } while (token);
      return ms;
    };
    const firstDiffPage = async () =>
      (await ctx.expect(s.operator, "GET", `/v1/operations/${everyLineVersions}/diff?from=${v1}&to=${v1 + 1}&limit=50`, undefined, 200)).ms;
    rows.push(
      await compareCalls(
        ctx,
        "diff of two versions 5000 lines apart, every line (5 pages of 1000) vs its first page of 50",
        { measured: diff, beside: firstDiffPage },
        (_ratio, ms) => ({ goal: "≤ 150 ms", met: ms <= 150 ? "yes" : "no" }),
      ),
    );

    const { id: reverted, version: before } = await everyLineChanged();
    let target = before;
    const revert = async () => {
      const answer = await ctx.expect(s.operator, "POST", `/v1/operations/${reverted}/revert`, { toVersion: target }, 200);
      target = answer.body.version - 1; // back to where it came from: every round changes all 5000 lines
      return answer.ms;
    };
    const putEvery = async (round) =>
      (
        await s.putLines(
          s.everyLine,
          linesBody(() => 900 + round),
        )
      ).ms;
    rows.push(
      await compareCalls(ctx, "revert of 5000 lines vs PUT of 5000 changed lines", { measured: revert, beside: putEvery }, (ratio) => ({
        goal: "≤ 1.5× a PUT",
        met: ratio <= 1.5 ? "yes" : "no",
      })),
    );

    return {
      title: `Change history: writes side by side with the commit before it (${commit.slice(0, 12)}); reads and revert on this tree; ${LINES} lines`,
      rows,
      storage: {
        bytesPerLineRecord: Math.round(bytesPerLineRecord),
        bytesPerThreeFieldRecord: Math.round(bytesPerThreeFieldRecord),
        bytesPerCreatedLineRecord: Math.round(bytesPerCreatedLineRecord),
        samples: storage,
      },
      notes: [
        `writes: ${WRITE_ROUNDS} rounds after ${WARMUP} untimed, alternating which server goes first; p50 in ms over loopback; blockRatios = the ratio over each third of the rounds (the run's own noise)`,
        "bare upsert: PUT /v1/__bench/bare-upsert with the same request body, in the same rounds, on this tree's server: the body's JSON text bound as one parameter and upserted into a table with only its primary key (tenant, the line's key) and each row's JSON, no other index, no trigger, nothing else in the batch, no parse in the Worker; it runs no code of either tree, so both PUTs are divided by it",
        `storage: database growth for the same write on both servers, this tree's minus the baseline's, per record: ${Math.round(bytesPerLineRecord)} B for a line record of one changed field, ${Math.round(bytesPerThreeFieldRecord)} B for one of three (name, minimum, maximum), ${Math.round(bytesPerCreatedLineRecord)} B for a line's creation (every field)`,
        `the past page: ${VERSIONS_BACK} later versions each changed ${LINES_PER_VERSION} lines; the diff pages 1000 lines at a time`,
      ],
    };
  } finally {
    await baselineServer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
