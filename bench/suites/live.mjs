// Issue 49: an Operation's live connections. A change committed by one key reaches another key's
// connection (from the writer's call to the watcher's message); 200 connections on one Operation all
// hear a change within a spread of the first; a lines PUT with 200 connections beside one with none
// (two Operations, alternating round after round); 1,000 idle connections over 100 Operations, their
// objects' own counters read before and after an idle spell (an object made again since, its
// connections still there: it was evicted while they stayed, i.e. hibernated).
//
// Clients are Node's WebSocket, on the same cores as the server. The crowd of 200 lives in a process of
// its own at the lowest CPU priority (bench/live-crowd.mjs, `nice -n 19`): it stands for 200 browsers on
// other machines, so reading 200 copies of each change does not take the cores the server's PUT needs
// (the server's own sending to 200 connections still does). Its spread includes that process reading
// 200 sockets one after another.
//
// Knobs: BENCH_LIVE_ROUNDS (40), BENCH_LIVE_CROWD (200), BENCH_LIVE_OPERATIONS (100),
// BENCH_LIVE_PER_OPERATION (10), BENCH_LIVE_IDLE_MS (30000), BENCH_LIVE_LINES (100 lines per PUT).

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const ROUNDS = knob("BENCH_LIVE_ROUNDS", 40);
const CROWD = knob("BENCH_LIVE_CROWD", 200);
const IDLE_OPERATIONS = knob("BENCH_LIVE_OPERATIONS", 100);
const PER_OPERATION = knob("BENCH_LIVE_PER_OPERATION", 10);
const IDLE_MS = knob("BENCH_LIVE_IDLE_MS", 30_000);
const LINES = knob("BENCH_LIVE_LINES", 100);
const WARMUP = 5;
const GOALS = { reachP95Ms: 250, spreadMs: 100, putRatio: 1.1 };

const OPEN = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
const sku = (i) => `SKU-${String(i).padStart(4, "0")}`;
const lines = (count, max) =>
  Array.from({ length: count }, (_, i) => ({ variantExternalId: sku(i), variantName: { en: `Line ${i}` }, minQuantity: 0, maxQuantity: max }));
const percentile = (samples, p) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};

async function draftOperation(ctx, operator, code) {
  const created = await ctx.expect(operator, "POST", "/v1/operations", { code, name: { en: code }, type: "PRIVATE", ...OPEN }, 201);
  await ctx.expect(operator, "PUT", `/v1/operations/${created.body.id}/lines`, lines(LINES, 10), 200);
  return created.body.id;
}

const ticket = async (ctx, caller, operationId) => (await ctx.expect(caller, "POST", `/v1/operations/${operationId}/live-tickets`, undefined, 201)).body.ticket;
const liveUrl = (ctx, operationId, ticket) => `${ctx.baseUrl.replace(/^http/, "ws")}/v1/operations/${operationId}/live?ticket=${ticket}`;

/** One live connection, greeted: its messages are timed as they arrive. */
async function connect(ctx, caller, operationId) {
  const socket = new WebSocket(liveUrl(ctx, operationId, await ticket(ctx, caller, operationId)));
  const client = { socket, waiters: [], changes: [] };
  await new Promise((resolve, reject) => {
    socket.onerror = () => reject(new Error(`live connection to ${operationId} failed`));
    socket.onmessage = ({ data }) => {
      const at = performance.now();
      const message = JSON.parse(data);
      if (message.type === "hello") resolve();
      if (message.type !== "changed") return;
      client.changes.push({ at, version: message.version });
      for (const waiter of client.waiters.filter((entry) => message.version >= entry.version)) {
        client.waiters.splice(client.waiters.indexOf(waiter), 1);
        waiter.resolve(at);
      }
    };
  });
  return client;
}

/** When `client` heard of version `version` (or later). */
function heard(client, version) {
  const seen = client.changes.find((change) => change.version >= version);
  if (seen) return Promise.resolve(seen.at);
  return new Promise((resolve) => client.waiters.push({ version, resolve }));
}

/** Connections held by a process of their own at the lowest priority (bench/live-crowd.mjs); `heard(version)`: when each heard it (epoch ms). */
async function openCrowd(urls) {
  const script = fileURLToPath(new URL("../live-crowd.mjs", import.meta.url));
  const [command, ...args] = process.platform === "win32" ? [process.execPath, script] : ["nice", "-n", "19", process.execPath, script];
  const crowd = spawn(command, args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const answer = (type) =>
    new Promise((resolve, reject) => {
      const settle = (outcome) => {
        crowd.off("message", onMessage).off("exit", onEnd).off("error", onEnd);
        outcome();
      };
      const onMessage = (message) => message.type === type && settle(() => resolve(message));
      const onEnd = (reason) => settle(() => reject(new Error(`the crowd process ended: ${reason}`)));
      crowd.on("message", onMessage).on("exit", onEnd).on("error", onEnd);
    });
  const opened = answer("opened");
  crowd.send({ type: "open", urls });
  await opened;
  return {
    async heard(version) {
      const heard = answer("heard");
      crowd.send({ type: "await", version });
      return (await heard).times;
    },
    async close() {
      const closed = answer("closed");
      crowd.send({ type: "close" });
      await closed;
      crowd.kill();
    },
  };
}

const closeAll = (clients) => {
  for (const client of clients) client.socket.close();
};

export default async function live(ctx) {
  const { tenantId, operator } = await ctx.newTenant();
  const watcherKey = await ctx.newKey(tenantId, "OPERATOR");
  const rows = [];
  const versionOf = async (operationId) => (await ctx.expect(operator, "GET", `/v1/operations/${operationId}`, undefined, 200)).body.version;
  let max = 10;
  const putOne = (operationId) => ctx.expect(operator, "PUT", `/v1/operations/${operationId}/lines`, [{ ...lines(1, 0)[0], maxQuantity: ++max }], 200);

  // 1. From the writer's call to another key's connection.
  const single = await draftOperation(ctx, operator, `LIVE-ONE-${Date.now()}`);
  const watcher = await connect(ctx, watcherKey, single);
  const reach = [];
  const answered = [];
  const reachStats = await ctx.measure(
    async () => {
      const version = (await versionOf(single)) + 1;
      const started = performance.now();
      const arrival = heard(watcher, version);
      const response = await putOne(single);
      answered.push(response.ms);
      const ms = (await arrival) - started;
      reach.push(ms);
      return ms;
    },
    { iterations: ROUNDS, warmup: WARMUP, label: "a change reaching another connection" },
  );
  closeAll([watcher]);
  const reachP95 = percentile(reach.slice(-ROUNDS), 0.95);
  rows.push({
    name: "a committed change reaches another key's connection (from the PUT's start)",
    p50: ctx.round(reachStats.p50),
    p95: ctx.round(reachP95),
    p99: ctx.round(reachStats.p99),
    "the PUT's own answer p50": ctx.round(percentile(answered.slice(-ROUNDS), 0.5)),
    goal: `≤ ${GOALS.reachP95Ms} ms p95`,
    measured: `${ctx.round(reachP95)} ms`,
    met: reachP95 <= GOALS.reachP95Ms ? "yes" : "no",
  });

  // 2 and 3. A crowd on one Operation: the spread of its arrivals, and the PUT beside an Operation nobody watches.
  const crowded = await draftOperation(ctx, operator, `LIVE-CROWD-${Date.now()}`);
  const alone = await draftOperation(ctx, operator, `LIVE-ALONE-${Date.now()}`);
  const crowd = await openCrowd(await Promise.all(Array.from({ length: CROWD }, async () => liveUrl(ctx, crowded, await ticket(ctx, watcherKey, crowded)))));
  const spreads = [];
  const putLines = (operationId, round) => ctx.expect(operator, "PUT", `/v1/operations/${operationId}/lines`, lines(LINES, 20 + round + WARMUP), 200);
  const puts = await ctx.sideBySide(
    {
      [`${CROWD} connections`]: async (round) => {
        const version = (await versionOf(crowded)) + 1;
        const response = await putLines(crowded, round);
        const times = await crowd.heard(version);
        if (round >= 0) spreads.push(Math.max(...times) - Math.min(...times));
        return response.ms;
      },
      "no connection": async (round) => (await putLines(alone, round)).ms,
    },
    { rounds: ROUNDS, warmup: WARMUP, label: `a ${LINES}-line PUT with ${CROWD} connections vs none` },
  );
  await crowd.close();
  const spreadP95 = percentile(spreads, 0.95);
  rows.push({
    name: `${CROWD} connections on one Operation: last arrival after the first`,
    p50: ctx.round(percentile(spreads, 0.5)),
    p95: ctx.round(spreadP95),
    p99: ctx.round(percentile(spreads, 0.99)),
    goal: `≤ ${GOALS.spreadMs} ms`,
    measured: `${ctx.round(spreadP95)} ms`,
    met: spreadP95 <= GOALS.spreadMs ? "yes" : "no",
  });
  rows.push({
    name: `a ${LINES}-line PUT with ${CROWD} connections open`,
    p50: ctx.round(puts[`${CROWD} connections`].p50),
    p99: ctx.round(puts[`${CROWD} connections`].p99),
    ratioP50: ctx.round(puts[`${CROWD} connections`].ratioP50),
    goal: `≤ ${GOALS.putRatio}× no connection`,
    measured: `${ctx.round(puts[`${CROWD} connections`].ratioP50)}×`,
    met: puts[`${CROWD} connections`].ratioP50 <= GOALS.putRatio ? "yes" : "no",
  });
  rows.push({ name: `the same PUT on an Operation nobody watches`, p50: ctx.round(puts["no connection"].p50), p99: ctx.round(puts["no connection"].p99) });

  // 4. Idle connections: each object's counters before and after an idle spell.
  const idleOperations = [];
  await ctx.pool(IDLE_OPERATIONS, 8, async (i) => idleOperations.push(await draftOperation(ctx, operator, `LIVE-IDLE-${i}-${Date.now()}`)), {
    label: `${IDLE_OPERATIONS} Operations`,
  });
  const idle = [];
  await ctx.pool(
    IDLE_OPERATIONS * PER_OPERATION,
    8,
    async (i) => idle.push({ operationId: idleOperations[i % IDLE_OPERATIONS], client: await connect(ctx, watcherKey, idleOperations[i % IDLE_OPERATIONS]) }),
    { label: `connecting ${IDLE_OPERATIONS * PER_OPERATION} idle clients` },
  );
  const stats = async () =>
    Promise.all(idleOperations.map(async (operationId) => (await ctx.expect(null, "GET", `/__bench/live-stats/${operationId}`, undefined, 200)).body));
  const before = await stats();
  const quietSince = Date.now();
  ctx.log(`idle: ${idle.length} connections held for ${IDLE_MS / 1000} s`);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const after = await stats();
  const open = idle.filter(({ client }) => client.socket.readyState === WebSocket.OPEN).length;
  const madeAgain = after.filter((now, i) => now.instanceSince > before[i].instanceSince && now.instanceSince >= quietSince).length;
  const stillHeld = after.filter((now) => now.connections === PER_OPERATION).length;
  closeAll(idle.map(({ client }) => client));
  rows.push({
    name: `${idle.length} idle connections over ${IDLE_OPERATIONS} Operations, ${IDLE_MS / 1000} s quiet`,
    "objects made again (were evicted)": `${madeAgain} of ${IDLE_OPERATIONS}`,
    "objects still holding every connection": `${stillHeld} of ${IDLE_OPERATIONS}`,
    "connections open on the client": `${open} of ${idle.length}`,
    goal: "every object hibernated, every connection kept",
    met: madeAgain === IDLE_OPERATIONS && stillHeld === IDLE_OPERATIONS && open === idle.length ? "yes" : "no",
  });

  return {
    title: `Live connections: a change reaching others, ${CROWD} on one Operation, ${idle.length} idle`,
    rows,
    notes: [
      `${ROUNDS} rounds after ${WARMUP} untimed; ms of wall time on the client; each change is a PUT of lines to a DRAFT Operation by an OPERATOR key, heard by another key's connections`,
      `the crowd's PUT row alternates a ${LINES}-line PUT to the watched Operation and to one nobody watches, round after round (which goes first too)`,
      `the crowd of ${CROWD} runs in a process of its own at the lowest CPU priority (nice 19): it stands for browsers on other machines; the server's sending to every connection is on the measured cores`,
      `the object tells a change LIVE.settleMs (50 ms) after it commits, with every change committed meanwhile: the writer's answer leaves first, so the reach includes that wait; each round waits for the crowd to hear its change before the next PUT (a burst of PUTs back to back would still share the cores with the sending, locally)`,
      `hibernation: each Operation's object answers its connection count and when it was made (liveStats); an object made again after the quiet spell while its ${PER_OPERATION} connections stayed open was evicted from memory with them held — the runtime's hibernation`,
    ],
  };
}
