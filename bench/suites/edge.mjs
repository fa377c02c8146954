// Edge latency budget under simulated distance. The bench entry wraps the D1 binding (the Worker's
// and the Durable Objects') so every round trip sleeps first: the primary's delay for sessions
// started "first-primary" and for writes, the replica's for other reads (bench/worker/d1-delay.ts).
// Per route: the D1 round trips the request waited for one after another (x-bench-d1-round-trips,
// from the request's trace, its Durable Object command's calls included) and p50/p99 with D1 at
// 0 ms, at 50 ms, and with a near replica (5 ms) and a far primary (50 ms). Then the cost of the
// stack at 0 ms: authenticated warm requests against the bare constant route, and layer by layer.
import { performance } from "node:perf_hooks";

const EVALUATE = "/v1/buying-policies/quotas/evaluate";
const RULES = "/v1/buying-policies/quotas/rules";
const CONSTANT = "/v1/__bench/constant";

// BENCH_EDGE_QUICK=1: a few samples of everything, to check the suite runs (figures mean nothing).
const QUICK = process.env.BENCH_EDGE_QUICK === "1";
const SETTINGS = [
  { key: "0", label: "@0 ms", primaryMs: 0, replicaMs: 0, rounds: QUICK ? 10 : 300, warmup: QUICK ? 2 : 10, changes: QUICK ? 1 : 5 },
  { key: "50", label: "@50 ms", primaryMs: 50, replicaMs: 50, rounds: QUICK ? 4 : 60, warmup: 2, changes: QUICK ? 1 : 4 },
  { key: "near", label: "@replica 5/primary 50", primaryMs: 50, replicaMs: 5, rounds: QUICK ? 4 : 60, warmup: 2, changes: QUICK ? 1 : 4 },
];
const BREAKDOWN_ROUNDS = QUICK ? 20 : 400;
const BREAKDOWN_WARMUP = QUICK ? 3 : 30;

const OPERATIONS = 20;
const LINES = 300;
const RULE_COUNT = 12;
const PUT_BATCH = 5;
/** After each rule change: evaluations this often (steady traffic) for this long. */
const CHANGE_WINDOW_MS = 2_000;
const CHANGE_PACE_MS = 25;
const CHANGE_LEAD_MS = 500;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** "sequential/total" from the bench entry's header. */
function roundTrips(headers) {
  const value = headers.get("x-bench-d1-round-trips");
  if (!value) throw new Error("the answer has no x-bench-d1-round-trips header: is the bench entry serving?");
  const [seq, total] = value.split("/").map(Number);
  return { seq, total };
}

const day = (offset) => `${new Date(Date.UTC(2027, 0, 1) + offset * 86_400_000).toISOString().slice(0, 19)}Z`;

export default async function edge(ctx) {
  // One call that must answer `expected`; the sample is its wall time and its round trips.
  async function call(caller, method, path, body, expected = 200, headers = {}) {
    const response = await ctx.request(caller, method, path, body, headers);
    const allowed = Array.isArray(expected) ? expected : [expected];
    if (!allowed.includes(response.status)) {
      const detail = typeof response.body === "string" ? response.body : JSON.stringify(response.body);
      throw new Error(`${method} ${path} answered ${response.status}, expected ${allowed.join("/")}: ${detail?.slice(0, 400)}`);
    }
    return { ms: response.ms, at: performance.now(), ...roundTrips(response.headers), response };
  }

  // Routes that bypass serve() (or need no figures but time): the sample is the wall time alone.
  async function timeRaw(path) {
    const response = await ctx.request(null, "GET", path);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return { ms: response.ms, at: performance.now(), seq: 0, total: 0 };
  }

  async function setDelay(primaryMs, replicaMs, operationId) {
    await ctx.expect(null, "POST", "/__bench/d1-delay", { primaryMs, replicaMs }, 200);
    const { body } = await ctx.expect(null, "GET", `/__bench/d1-delay?operationId=${operationId}`, undefined, 200);
    const { worker, durableObject } = body;
    if (durableObject.primaryMs !== primaryMs || durableObject.replicaMs !== replicaMs) {
      throw new Error(`the Durable Object does not see the delay the Worker set: ${JSON.stringify(body)}`);
    }
    // Same counters on both sides of the RPC (no D1 call in between): one isolate, one global state.
    return worker.delayed.primary === durableObject.delayed.primary && worker.delayed.replica === durableObject.delayed.replica;
  }

  /** Rounds of every route in alternating order (forward, then reversed) so drift hits them alike. */
  async function interleave(routes, { rounds, warmup }) {
    const names = Object.keys(routes);
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = -warmup; round < rounds; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) {
        const result = await routes[name](round + warmup);
        if (round >= 0) samples[name].push(...[].concat(result));
      }
    }
    return samples;
  }

  const figures = (list) => {
    const stats = ctx.summarize(list.map((sample) => sample.ms));
    const seq = median(list.map((s) => s.seq));
    return { ...stats, seq, seqMax: Math.max(...list.map((s) => s.seq)), above: list.filter((s) => s.seq > seq), total: median(list.map((s) => s.total)) };
  };

  // ---- setup: a tenant, Operations (one with a few hundred lines), a few rules -----------------
  const { tenantId, operator } = await ctx.newTenant();
  const ids = [];
  for (let i = 0; i < OPERATIONS; i++) {
    const { body } = await ctx.expect(
      operator,
      "POST",
      "/v1/operations",
      { code: `EDGE-${i}`, name: { en: `Edge ${i}`, fr: `Bord ${i}` }, type: "PUBLIC", startDate: day(i), endDate: day(i + 30) },
      201,
    );
    ids.push(body.id);
  }
  const target = ids[0];
  const lines = Array.from({ length: LINES }, (_, j) => ({
    variantExternalId: `SKU-${String(j).padStart(4, "0")}`,
    variantName: { en: `Variant ${j}` },
    minQuantity: 1,
    maxQuantity: 50 + (j % 50),
  }));
  await ctx.expect(operator, "PUT", `/v1/operations/${target}/lines`, lines, 200);
  const rules = [];
  for (let i = 0; i < RULE_COUNT; i++) {
    const body = i % 3 === 2 ? { accountId: `A${i}` } : { accountId: `A${i}`, supplierId: `S${i % 4}` };
    rules.push((await ctx.expect(operator, "POST", RULES, { ...body, minimum: 1_000 * (i + 1) }, 201)).body);
  }
  await ctx.expect(operator, "PUT", "/v1/buying-policies/quotas/default", { minimum: 500 }, 200);
  const order = (i) => {
    const rule = rules[i % RULE_COUNT];
    return { accountId: rule.accountId, supplierId: rule.supplierId, storeId: null, amount: 100 * (i % 300) };
  };
  const changed = rules[0];
  const probe = { orders: [{ accountId: changed.accountId, supplierId: changed.supplierId, storeId: null, amount: 0 }] };

  // ---- table 1: round trips and latency per route, at each simulated distance ------------------
  const routes = {
    "bare constant route (GET /v1/__bench/constant)": () => call(operator, "GET", CONSTANT),
    "warm evaluate, 1 order": (i) => call(operator, "POST", EVALUATE, { orders: [order(i)] }),
    "GET /v1/operations/{id}": () => call(operator, "GET", `/v1/operations/${target}`),
    "GET /v1/operations (list, limit=20)": () => call(operator, "GET", "/v1/operations?limit=20"),
    "GET /v1/operations/{id}/lines (first page)": () => call(operator, "GET", `/v1/operations/${target}/lines`),
    "PATCH /v1/operations/{id} (If-Match)": async (i) => {
      const current = await call(operator, "GET", `/v1/operations/${target}`);
      const etag = current.response.headers.get("etag");
      return call(operator, "PATCH", `/v1/operations/${target}`, { description: { en: `Edge round ${i}` } }, 200, { "if-match": etag });
    },
    [`PUT /v1/operations/{id}/lines (${PUT_BATCH} lines)`]: (i) =>
      call(
        operator,
        "PUT",
        `/v1/operations/${target}/lines`,
        Array.from({ length: PUT_BATCH }, (_, k) => ({
          variantExternalId: lines[(i * PUT_BATCH + k) % LINES].variantExternalId,
          minQuantity: 1,
          maxQuantity: 60 + (i % 40),
        })),
      ),
    "POST /v1/operations/{id}/status (DRAFT→ACTIVE, →DRAFT)": async () => [
      await call(operator, "POST", `/v1/operations/${target}/status`, { status: "ACTIVE" }),
      await call(operator, "POST", `/v1/operations/${target}/status`, { status: "DRAFT" }),
    ],
  };
  const budgets = {
    "bare constant route (GET /v1/__bench/constant)": "0",
    "warm evaluate, 1 order": "0",
    "GET /v1/operations/{id}": "≤ 1",
    "GET /v1/operations (list, limit=20)": "≤ 1",
    "GET /v1/operations/{id}/lines (first page)": "≤ 1",
    "PATCH /v1/operations/{id} (If-Match)": "≤ 2 + DO hop",
    [`PUT /v1/operations/{id}/lines (${PUT_BATCH} lines)`]: "≤ 2 + DO hop",
    "POST /v1/operations/{id}/status (DRAFT→ACTIVE, →DRAFT)": "≤ 2 + DO hop",
  };
  const AFTER_CHANGE = `evaluate, ${CHANGE_WINDOW_MS / 1000} s after a rule change elsewhere`;
  // The same paced traffic just before each change: the like-for-like reference of the row after it.
  const BEFORE_CHANGE = `evaluate, same pacing, ${CHANGE_LEAD_MS / 1000} s before the change`;
  budgets[BEFORE_CHANGE] = "0";
  budgets[AFTER_CHANGE] = "0";

  /** Evaluations every CHANGE_PACE_MS: CHANGE_LEAD_MS before each change (untimed), CHANGE_WINDOW_MS after it. */
  async function afterRuleChanges(count, first) {
    const samples = [];
    const before = [];
    const seenAfter = [];
    for (let c = 0; c < count; c++) {
      const minimum = 50_000 + first + c;
      const lead = performance.now();
      while (performance.now() - lead < CHANGE_LEAD_MS) {
        before.push(await call(operator, "POST", EVALUATE, probe));
        await sleep(CHANGE_PACE_MS);
      }
      await ctx.expect(null, "POST", "/__bench/rule-change", { tenantId, ruleId: changed.id, minimum }, 200);
      const changedAt = performance.now();
      let seen = null;
      while (performance.now() - changedAt < CHANGE_WINDOW_MS || seen === null) {
        const sample = await call(operator, "POST", EVALUATE, probe);
        samples.push(sample);
        if (seen === null && sample.response.body.results[0].effectiveMinimum === minimum) seen = performance.now() - changedAt;
        if (performance.now() - changedAt > 30_000) throw new Error(`the rule change was not seen by evaluations within 30 s`);
        await sleep(CHANGE_PACE_MS);
      }
      seenAfter.push(seen);
    }
    return { samples, before, seenAfter };
  }

  // The wrapper's sleep costs more than its ms: measure by how much, on a route that only sleeps.
  const sleeps = await interleave(Object.fromEntries([0, 5, 50].map((ms) => [ms, () => timeRaw(`/__bench/sleep?ms=${ms}`)])), {
    rounds: QUICK ? 5 : 40,
    warmup: 3,
  });
  const sleepP50 = Object.fromEntries(Object.entries(sleeps).map(([ms, list]) => [ms, ctx.summarize(list.map((s) => s.ms)).p50]));
  const overshoot = (ms) => ctx.round(sleepP50[ms] - sleepP50[0] - ms);

  const perSetting = {};
  let sharedIsolate = true;
  let changesSoFar = 0;
  for (const setting of SETTINGS) {
    sharedIsolate = (await setDelay(setting.primaryMs, setting.replicaMs, target)) && sharedIsolate;
    const samples = await interleave(routes, setting);
    const change = await afterRuleChanges(setting.changes, changesSoFar);
    changesSoFar += setting.changes;
    samples[BEFORE_CHANGE] = change.before;
    samples[AFTER_CHANGE] = change.samples;
    perSetting[setting.key] = { samples, seenAfter: change.seenAfter };
  }
  await setDelay(0, 0, target);

  const budgetLimit = (budget) => Number(/\d+/.exec(budget)[0]);
  const at = (key, name) => figures(perSetting[key].samples[name]);
  const cell = (stats) => `${ctx.round(stats.p50)} / ${ctx.round(stats.p99)}`;
  const names = [...Object.keys(routes), BEFORE_CHANGE, AFTER_CHANGE];
  const budgetRows = names.map((name) => {
    const all = figures(SETTINGS.flatMap((setting) => perSetting[setting.key].samples[name]));
    const zero = at("0", name);
    const far = at("50", name);
    const near = at("near", name);
    return {
      route: name,
      budget: budgets[name],
      "seq RT (max)": `${all.seq} (${all.seqMax})`,
      "n above": `${all.above.length}/${all.samples}`,
      within: all.seq <= budgetLimit(budgets[name]) ? "yes" : "NO",
      "total RT": all.total,
      "p50 / p99 @0 ms": cell(zero),
      "p50 / p99 @50 ms": cell(far),
      "Δp50 / 50 ms": Math.round(((far.p50 - zero.p50) / 50) * 10) / 10,
      "p50 / p99 @replica 5, primary 50": cell(near),
    };
  });

  // ---- tables 2 and 3: the cost of the stack, at 0 ms ---------------------------------------------
  const evaluateBody = (i) => ({ orders: [order(i)] });
  const layers = {
    raw: { label: "raw Worker answer (bench entry, no app, no serve())", over: null, fn: () => timeRaw("/__bench/raw") },
    rawLogged: { label: "raw + one JSON console.log line", over: "raw", fn: () => timeRaw("/__bench/raw-logged") },
    app: { label: "(a) serve() + Hono app (trace, request id, CORS, db handle, log line)", over: "raw", fn: () => call(null, "GET", "/__bench/layer/app") },
    auth: { label: "(b) + authenticate (cached key: sha-256, cache hit)", over: "app", fn: () => call(operator, "GET", "/__bench/layer/auth") },
    limit: { label: "(c) + rate limiter call (RATE_LIMIT_READ.limit)", over: "auth", fn: () => call(operator, "GET", "/__bench/layer/limit") },
    session: { label: "(d) + D1 withSession (no query)", over: "limit", fn: () => call(operator, "GET", "/__bench/layer/session") },
    zod: { label: "(e) + JSON body + zod (evaluate body, 1 order)", over: "session", fn: (i) => call(operator, "POST", "/__bench/layer/zod", evaluateBody(i)) },
    query: { label: "(c) + one D1 read (select 1), beside the chain", over: "limit", fn: () => call(operator, "GET", "/__bench/layer/query") },
    doPing: { label: "(c) + Durable Object no-op RPC, beside the chain", over: "limit", fn: () => call(operator, "GET", `/__bench/layer/do-ping/${target}`) },
    constant: { label: "bare constant route: /v1 stack (auth, coordinator, body limit, idempotency)", over: "auth", fn: () => call(operator, "GET", CONSTANT) },
    getOperation: { label: "GET /v1/operations/{id} (warm)", over: "limit", fn: () => call(operator, "GET", `/v1/operations/${target}`) },
    evaluate: { label: "warm evaluate, 1 order", over: "zod", fn: (i) => call(operator, "POST", EVALUATE, evaluateBody(i)) },
  };

  const stackSamples = await interleave(Object.fromEntries(Object.entries(layers).map(([key, layer]) => [key, layer.fn])), {
    rounds: BREAKDOWN_ROUNDS,
    warmup: BREAKDOWN_WARMUP,
  });
  const stack = Object.fromEntries(Object.keys(layers).map((key) => [key, figures(stackSamples[key])]));

  const ratio = (a, b) => Math.round((a / b) * 100) / 100;
  const costRows = ["getOperation", "evaluate", "constant", "raw"].map((key) => ({
    request: layers[key].label,
    p50: ctx.round(stack[key].p50),
    p99: ctx.round(stack[key].p99),
    "×constant p50": ratio(stack[key].p50, stack.constant.p50),
    "+ms over constant p50": ctx.round(stack[key].p50 - stack.constant.p50),
    "seq/total RT": `${stack[key].seq}/${stack[key].total}`,
  }));
  const breakdownRows = Object.entries(layers).map(([key, layer]) => ({
    layer: layer.label,
    p50: ctx.round(stack[key].p50),
    p99: ctx.round(stack[key].p99),
    over: layer.over ? layers[layer.over].label.split(" ")[0] : "",
    "Δp50 over it": layer.over ? ctx.round(stack[key].p50 - stack[layer.over].p50) : "",
    "×raw p50": ratio(stack[key].p50, stack.raw.p50),
  }));

  // Samples above their route's median seq RT, in time order: how often does a request pay an extra round trip?
  const extra = SETTINGS.flatMap((setting) => names.flatMap((name) => figures(perSetting[setting.key].samples[name]).above.map((s) => s.at))).sort(
    (a, b) => a - b,
  );
  const gaps = extra
    .slice(1)
    .map((at, i) => at - extra[i])
    .filter((gap) => gap > 1_000);
  const period = gaps.length ? Math.round(median(gaps) / 100) / 10 : null;
  const seen = (key) => perSetting[key].seenAfter.map((ms) => Math.round(ms));
  const notes = [
    `Setup: one tenant, ${OPERATIONS} Operations (the one measured holds ${LINES} lines, DRAFT), ${RULE_COUNT} Quotas Rules and a default. OPERATOR key throughout.`,
    `Simulated distance: every D1 round trip (statement first/all/run/raw, batch) sleeps before it is sent, the primary's delay for "first-primary" sessions (Durable Object commands) and for writes, the replica's for other reads; the Worker and the Durable Objects share the setting (${sharedIsolate ? "checked: the Durable Object reports the same delay and the same round-trip counters as the Worker, one isolate" : "checked: the Durable Object reports the same delay, but its counters differ: another isolate set the same way"}).`,
    `seq RT: median (max) over every sample of all three settings of the D1 round trips the request waited for one after another, its Durable Object command's included (x-bench-d1-round-trips from the request's trace); total RT: median of all its D1 calls. Background work after the answer (the rule index's version check) is not on the request path and not counted.`,
    `n above: samples that waited for more round trips than their route's median: ${extra.length} in all${period === null ? "" : `, about ${period} s apart (median gap)`}${period !== null && period > 8 && period < 12 ? ", the TTL of the isolate's API key cache (10 s): the first request after it expires looks its key up in D1 before anything else, one more sequential round trip on any route" : ""}.`,
    `Sleep calibration (a bench route that only sleeps, p50 over the 0 ms one): sleeping 5 ms costs ${ctx.round(overshoot(5) + 5)} ms, 50 ms costs ${ctx.round(overshoot(50) + 50)} ms; so each simulated round trip costs its delay plus about ${overshoot(50)} ms here.`,
    `within: the median seq RT is within the budget. Δp50 / 50 ms = (p50 @50 ms − p50 @0 ms) / 50: the round trips the 50 ms setting added to the median request, measured (≈ seq RT when the delay reaches every call, the Durable Object's included).`,
    `Rounds: ${SETTINGS.map((s) => `${s.label} ${s.rounds} (+${s.warmup} warm-up)`).join(", ")}, routes interleaved in alternating order; with ${SETTINGS[1].rounds} samples a route (the status row: twice that), p99 at 50 ms is the slowest sample or the one before it. PATCH takes If-Match from a GET made just before it (untimed); the status row holds both calls of each DRAFT→ACTIVE→DRAFT pair; PUT lines changes ${PUT_BATCH} existing lines.`,
    `${AFTER_CHANGE}: a bench route changes a rule's minimum and bumps tenants.rules_version with raw SQL (this isolate's index is not told, as with a write made by another isolate); evaluations every ${CHANGE_PACE_MS} ms for ${CHANGE_WINDOW_MS / 1000} s after it, in a phase of their own (not interleaved): compare its ms with the row before it (the same pacing for ${CHANGE_LEAD_MS} ms before each change), not with the warm row. The new minimum was first answered after ${SETTINGS.map((s) => `${s.label}: ${seen(s.key).join(", ")} ms`).join("; ")}.`,
    `Cost of the stack: ${BREAKDOWN_ROUNDS} interleaved rounds (+${BREAKDOWN_WARMUP} warm-up) at 0 ms delay, every layer route in the same rounds; the layer routes (bench/worker/routes.ts, /__bench/layer/*) add one middleware each to serve() + the app; "beside the chain" rows add their step to (c) instead.`,
    `Latency is wall time on the client over loopback; client, wrangler dev and workerd share the machine's cores.`,
  ];
  return {
    title: "Edge latency budget under simulated distance",
    tables: [
      { title: "Round trips and latency per route (ms; RT = D1 round trips on the request path)", rows: budgetRows },
      { title: "The cost of the stack at 0 ms: authenticated warm requests against the bare constant route (ms)", rows: costRows },
      { title: "Where the time goes: one layer at a time over the bare route (ms, p50 deltas)", rows: breakdownRows },
    ],
    notes,
  };
}
