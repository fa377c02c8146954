// Issue 48: scarce supply shared by pools and per-account caps. Everything is measured on this tree,
// side by side in one run (4–6 minutes on 2 shared cores at a load average of 4–10, the server's start included):
//
// - The flash opening: BUYERS buyers (each an ACCOUNT key and an account of its own) at once, each
//   placing orders as fast as answers come, on three twin ACTIVE Operations of LINES lines: pools on
//   POOLED of them with caps of their own for 10 accounts, the same with caps for every account of the
//   directory (ACCOUNTS), and no pools. The Operation's Durable Object takes its orders one at a time,
//   so a rush of 200 answers in seconds, not milliseconds: a fixed time window would cut most answers
//   off at its end (with 15 s windows the rate swung 6× between cycles). The rush is measured in
//   waves instead: every buyer places ORDERS_PER_BUYER orders, all at once; orders per second = the
//   wave's answers over the time until its last answer. Waves go to the three twins in turn, the
//   order reversed every cycle, so drift of the machine hits them alike. Afterwards every PLACED order
//   is read back and the units of each pooled line and of each (account, line) are counted again.
// - One order at a time against the two pooled twins (caps for 10 accounts or for all), alternating.
// - POST …/allocations/plan for ACCOUNTS accounts × POOLED lines: the whole walk of its pages, the
//   first page, a page of one cap (one line computed) and the constant route.
// - PUT …/allocations of LINES lines against PUT …/lines of LINES lines (two DRAFT twins), alternating;
//   and the same PUT …/allocations on the rushed Operation (its orders and caps), as information.
//
// Knobs (run small first): BENCH_ALLOC_LINES (5000), BENCH_ALLOC_POOLED (100), BENCH_ALLOC_BUYERS (200),
// BENCH_ALLOC_ACCOUNTS (1500), BENCH_ALLOC_ORDERS_PER_BUYER (1, per wave), BENCH_ALLOC_CYCLES (5),
// BENCH_ALLOC_SINGLE_ROUNDS (40), BENCH_ALLOC_PLAN_ROUNDS (3), BENCH_ALLOC_PAGE_ROUNDS (20),
// BENCH_ALLOC_WRITE_ROUNDS (8), BENCH_ALLOC_PARTS (flash,plan,writes: the parts to run).
import { performance } from "node:perf_hooks";
import { roundTripsOf, sideBySideCalls } from "../lib.mjs";

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const LINES = knob("BENCH_ALLOC_LINES", 5_000);
const POOLED = knob("BENCH_ALLOC_POOLED", 100);
const BUYERS = knob("BENCH_ALLOC_BUYERS", 200);
const ACCOUNTS = knob("BENCH_ALLOC_ACCOUNTS", 1_500);
const ORDERS_PER_BUYER = knob("BENCH_ALLOC_ORDERS_PER_BUYER", 1);
const CYCLES = knob("BENCH_ALLOC_CYCLES", 5);
const SINGLE_ROUNDS = knob("BENCH_ALLOC_SINGLE_ROUNDS", 40);
const PLAN_ROUNDS = knob("BENCH_ALLOC_PLAN_ROUNDS", 3);
const PAGE_ROUNDS = knob("BENCH_ALLOC_PAGE_ROUNDS", 20);
const WRITE_ROUNDS = knob("BENCH_ALLOC_WRITE_ROUNDS", 8);
const PARTS = new Set((process.env.BENCH_ALLOC_PARTS ?? "flash,plan,writes").split(","));
/** The accounts with a cap of their own in the "few" twin (the first buyers). */
const FEW_CAPPED = 10;
const LINES_PER_ORDER = 10;
/** The pooled lines many want, with small pools: used up during the first wave, refusing orders after. */
const HOT = Math.min(10, POOLED);
const HOT_SHARE = 0.3;
const HOT_POOL = 10;
const POOL = 400;
/** Every account's cap on every pooled line: its own where it has one, else the line's maxPerAccount. */
const CAP = 6;
/** Untimed orders on each twin before the waves: its Durable Object and code paths warm. */
const WARMUP_BUYERS = Math.min(20, BUYERS);
const WARMUP_ROUNDS = 3;
/** Caps per PUT …/allocations/accounts (its most). */
const CAPS_PER_CALL = 5_000;
/** The issue's goals. */
const GOALS = { rate: 0.8, p99: 1.5, flat: 1.2, planMs: 1_000, put: 1 };

const OPEN = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
const sku = (i) => `SKU-${String(i).padStart(5, "0")}`;
const account = (i) => `B${String(i).padStart(4, "0")}`;
const STRIDE = Math.max(1, Math.floor(LINES / POOLED));
/** The pooled lines, spread over the Operation; the first HOT of them have the small pools. */
const pooledSkus = Array.from({ length: POOLED }, (_, i) => sku(i * STRIDE));
const pooledSet = new Set(pooledSkus);
const plainSkus = Array.from({ length: LINES }, (_, i) => sku(i)).filter((id) => !pooledSet.has(id));
const poolOf = (variantExternalId) => (pooledSkus.indexOf(variantExternalId) < HOT ? HOT_POOL : POOL);
const roundTo = (value, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const ratio = (a, b) => roundTo(a / b, 3);
const chunk = (items, size) => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
const goalMet = (met) => (met ? "yes" : "no");

const linesBody = (maxQuantity = 1_000_000) =>
  Array.from({ length: LINES }, (_, i) => ({ variantExternalId: sku(i), variantName: { en: `Jacket ${i}` }, minQuantity: 0, maxQuantity }));
const poolsBody = () => pooledSkus.map((variantExternalId) => ({ variantExternalId, poolQuantity: poolOf(variantExternalId), maxPerAccount: CAP }));
const capsFor = (accounts) => accounts.flatMap((accountId) => pooledSkus.map((variantExternalId) => ({ variantExternalId, accountId, maxQuantity: CAP })));

/** A buyer's next order: one pooled line (a hot one three times in ten) and nine others, 1–4 of each. */
function orderMaker(random, accountId) {
  const pick = (n) => Math.floor(random() * n);
  return (operationId) => {
    const pooled = random() < HOT_SHARE ? pooledSkus[pick(HOT)] : pooledSkus[HOT + pick(POOLED - HOT)];
    const others = new Set();
    while (others.size < LINES_PER_ORDER - 1) others.add(plainSkus[pick(plainSkus.length)]);
    return {
      operationId,
      accountId,
      lines: [pooled, ...others].map((variantExternalId) => ({ variantExternalId, quantity: 1 + pick(4), unitPrice: 1200 })),
    };
  };
}

/** An Operation of LINES lines (ACTIVE unless said otherwise), made through the API. */
async function openOperation(ctx, operator, code, { active = true } = {}) {
  const { body: operation } = await ctx.expect(operator, "POST", "/v1/operations", { code, name: { en: `Bench ${code}` }, type: "PUBLIC", ...OPEN }, 201);
  await ctx.expect(operator, "PUT", `/v1/operations/${operation.id}/lines`, linesBody(), 200);
  if (active) await ctx.expect(operator, "POST", `/v1/operations/${operation.id}/status`, { status: "ACTIVE" }, 200);
  return operation.id;
}

/** Every page of a list, `limit` at a time. */
async function allPages(ctx, operator, path, limit) {
  const items = [];
  let token = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const page = `${path}${separator}limit=${limit}${token ? `&nextToken=${encodeURIComponent(token)}` : ""}`;
    const { body } = await ctx.expect(operator, "GET", page, undefined, 200);
    items.push(...body.items);
    token = body.nextToken;
  } while (token);
  return items;
}

/** A side-by-side row: both p50s and p99s, their ratios, and each call's last D1 round trips. */
async function pairRow(ctx, name, calls, { rounds, warmup = WARMUP_ROUNDS, beside, goal }) {
  const [measured, baseline] = Object.keys(calls);
  const result = await sideBySideCalls(ctx, calls, { rounds, warmup, label: name });
  const ratioP50 = ratio(result[measured].p50, result[baseline].p50);
  return {
    name,
    p50: ctx.round(result[measured].p50),
    p99: ctx.round(result[measured].p99),
    besideP50: ctx.round(result[baseline].p50),
    besideP99: ctx.round(result[baseline].p99),
    beside,
    ratioP50,
    ratioP99: ratio(result[measured].p99, result[baseline].p99),
    d1: `${roundTripsOf(result.last[measured])} vs ${roundTripsOf(result.last[baseline])}`,
    ...(goal && { goal: `≤ ${goal}× ${beside}`, met: goalMet(ratioP50 <= goal) }),
  };
}

/** The tenant, its directory, the twins, their pools and caps, and the buyers' keys. */
async function seed(ctx, notes) {
  const started = performance.now();
  const { tenantId, operator } = await ctx.newTenant();
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => account(i));
  const directory = accounts.map((accountId, i) => ({ accountId, name: `Buyer ${i}`, users: [{ userId: `u_${i}`, email: `buyer${i}@example.test` }] }));
  await ctx.expect(operator, "PUT", "/v1/accounts", directory, 200);
  const twins = { few: await openOperation(ctx, operator, "POOLS-FEW-CAPS"), all: await openOperation(ctx, operator, "POOLS-ALL-CAPS") };
  const plain = await openOperation(ctx, operator, "NO-POOLS");
  for (const operationId of Object.values(twins)) await ctx.expect(operator, "PUT", `/v1/operations/${operationId}/allocations`, poolsBody(), 200);
  await ctx.expect(operator, "PUT", `/v1/operations/${twins.few}/allocations/accounts`, capsFor(accounts.slice(0, FEW_CAPPED)), 200);
  const capCalls = chunk(capsFor(accounts), CAPS_PER_CALL);
  const capsStarted = performance.now();
  await ctx.pool(capCalls.length, 1, (i) => ctx.expect(operator, "PUT", `/v1/operations/${twins.all}/allocations/accounts`, capCalls[i], 200), {
    label: `caps for ${ACCOUNTS} accounts × ${POOLED} lines (${capCalls.length} PUTs)`,
  });
  const capsSeconds = (performance.now() - capsStarted) / 1000;
  const buyers = [];
  await ctx.pool(
    BUYERS,
    8,
    async (i) => {
      buyers[i] = { caller: await ctx.newKey(tenantId, "ACCOUNT", `u_${i}`), accountId: account(i), next: orderMaker(ctx.random(1_000 + i), account(i)) };
    },
    { label: `${BUYERS} buyers' ACCOUNT keys` },
  );
  notes.push(
    `seeding ${Math.round((performance.now() - started) / 1000)} s: ${ACCOUNTS} directory accounts (one user each), three ACTIVE PUBLIC twins of ${LINES} lines; pools on ${POOLED} lines of two of them (${HOT} of ${HOT_POOL} units, the rest ${POOL}; maxPerAccount ${CAP}), and caps of ${CAP} of their own for ${FEW_CAPPED} accounts in one, for all ${ACCOUNTS} in the other (${(ACCOUNTS * POOLED).toLocaleString("en")} caps: ${capCalls.length} PUT …/allocations/accounts of ${CAPS_PER_CALL} in ${roundTo(capsSeconds, 1)} s)`,
  );
  return { operator, accounts, twins, plain, buyers };
}

/** One wave: each buyer places `perBuyer` orders into `operationId`, the next as soon as the last is answered, all buyers at once. */
async function wave(ctx, buyers, operationId, perBuyer) {
  const answers = [];
  const started = performance.now();
  await Promise.all(
    buyers.map(async (buyer) => {
      for (let i = 0; i < perBuyer; i++) answers.push(await ctx.request(buyer.caller, "POST", "/v1/orders", buyer.next(operationId)));
    }),
  );
  return { answers, seconds: (performance.now() - started) / 1000 };
}

/** A twin's answers over its waves: placed, refused by allocation, anything else by status and code. */
function newTally(name) {
  return { name, seconds: 0, samples: [], placed: [], refused: [], other: new Map(), trips: { placed: "", refused: "" }, waves: [] };
}

function addWave(ctx, tally, { answers, seconds }) {
  for (const response of answers) {
    tally.samples.push(response.ms);
    if (response.status === 201) {
      tally.placed.push(response.ms);
      tally.trips.placed = roundTripsOf(response);
    } else if (response.status === 409 && response.body?.code === "allocation_exceeded") {
      tally.refused.push(response.ms);
      tally.trips.refused = roundTripsOf(response);
    } else {
      const what = `${response.status} ${response.body?.code ?? ""}`.trim();
      tally.other.set(what, (tally.other.get(what) ?? 0) + 1);
    }
  }
  tally.seconds += seconds;
  const stats = ctx.summarize(answers.map((response) => response.ms));
  tally.waves.push({ rate: answers.length / seconds, p50: stats.p50, p99: stats.p99 });
}

/**
 * What the PLACED orders of a pooled twin add up to, counted again from the orders: units beyond a
 * line's pool and beyond an account's cap (its own, else the line's maxPerAccount), and whether every
 * line's orderedQuantity is that count.
 */
async function oversold(ctx, operator, operationId, buyerAccounts) {
  const orders = await allPages(ctx, operator, `/v1/operations/${operationId}/orders?status=PLACED`, 500);
  const byLine = new Map();
  const byAccountLine = new Map();
  for (const order of orders) {
    for (const line of order.lines) {
      byLine.set(line.variantExternalId, (byLine.get(line.variantExternalId) ?? 0) + line.quantity);
      if (!pooledSet.has(line.variantExternalId)) continue;
      const key = `${order.accountId} ${line.variantExternalId}`;
      byAccountLine.set(key, (byAccountLine.get(key) ?? 0) + line.quantity);
    }
  }
  const lines = await allPages(ctx, operator, `/v1/operations/${operationId}/lines`, 1000);
  const ownCaps = new Map();
  for (const accounts of chunk(buyerAccounts, 100)) {
    const caps = await allPages(ctx, operator, `/v1/operations/${operationId}/allocations/accounts?accountIds=${accounts.join(",")}`, 1000);
    for (const cap of caps) ownCaps.set(`${cap.accountId} ${cap.variantExternalId}`, cap.maxQuantity);
  }
  let overPools = 0;
  let overCaps = 0;
  let miscounted = 0;
  let exhausted = 0;
  const maxPerAccount = new Map();
  for (const line of lines) {
    const counted = byLine.get(line.variantExternalId) ?? 0;
    if (counted !== line.orderedQuantity) miscounted++;
    if (line.poolQuantity !== null) {
      overPools += Math.max(0, counted - line.poolQuantity);
      if (counted >= line.poolQuantity) exhausted++;
    }
    maxPerAccount.set(line.variantExternalId, line.maxPerAccount);
  }
  for (const [key, units] of byAccountLine) {
    const variantExternalId = key.split(" ")[1];
    const cap = ownCaps.get(key) ?? maxPerAccount.get(variantExternalId);
    if (cap !== null && cap !== undefined) overCaps += Math.max(0, units - cap);
  }
  return { orders: orders.length, overPools, overCaps, miscounted, exhausted };
}

/** One order at a time into the two pooled twins, alternating: a capped buyer, one pooled line that is not hot (never refused). */
async function oneAtATime(ctx, { twins, buyers }) {
  let placed = 0;
  const singleOrder = (operationId) => () => {
    const n = placed++;
    const buyer = buyers[n % Math.min(FEW_CAPPED, BUYERS)];
    const from = (n * 9) % (plainSkus.length - 9);
    const lines = [pooledSkus[HOT + ((n * 7) % (POOLED - HOT))], ...plainSkus.slice(from, from + 9)];
    const body = { operationId, accountId: buyer.accountId, lines: lines.map((variantExternalId) => ({ variantExternalId, quantity: 1, unitPrice: 1200 })) };
    return ctx.expect(buyer.caller, "POST", "/v1/orders", body, 201);
  };
  const row = await pairRow(
    ctx,
    `one order at a time (${LINES_PER_ORDER} lines, 1 pooled), caps for ${ACCOUNTS} accounts vs ${FEW_CAPPED}`,
    { all: singleOrder(twins.all), few: singleOrder(twins.few) },
    { rounds: SINGLE_ROUNDS, beside: `caps for ${FEW_CAPPED}`, goal: GOALS.flat },
  );
  return { ...row, ratio: row.ratioP50 };
}

/** The rush: an untimed warm-up on each twin, then CYCLES cycles of one wave on each, the order reversed every cycle. */
async function rush(ctx, { twins, plain, buyers }) {
  const tallies = {
    few: newTally(`pools, caps for ${FEW_CAPPED} accounts`),
    all: newTally(`pools, caps for ${ACCOUNTS} accounts`),
    none: newTally("no pools"),
  };
  const targets = { few: twins.few, all: twins.all, none: plain };
  const order = Object.keys(targets);
  for (const which of order) await wave(ctx, buyers.slice(0, WARMUP_BUYERS), targets[which], 1);
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    for (const which of cycle % 2 ? [...order].reverse() : order) {
      const tally = tallies[which];
      const answered = await wave(ctx, buyers, targets[which], ORDERS_PER_BUYER);
      addWave(ctx, tally, answered);
      ctx.log(`wave ${cycle + 1}/${CYCLES}, ${tally.name}: ${answered.answers.length} answers in ${roundTo(answered.seconds, 1)} s`);
    }
  }
  return tallies;
}

/** The rush's table: per twin, its rate, latency, answers, and for the pooled twins what a recount of their orders finds. */
function rushRows(ctx, tallies, counted) {
  return Object.entries(tallies).map(([which, tally]) => {
    const stats = ctx.summarize(tally.samples);
    return {
      name: tally.name,
      "orders/s": roundTo(tally.samples.length / tally.seconds, 1),
      p50: ctx.round(stats.p50),
      p99: ctx.round(stats.p99),
      answers: tally.samples.length,
      placed: tally.placed.length,
      refused: tally.refused.length,
      "p50 placed": ctx.round(ctx.summarize(tally.placed).p50),
      "p50 refused": tally.refused.length ? ctx.round(ctx.summarize(tally.refused).p50) : "",
      other: [...tally.other].map(([what, count]) => `${count}× ${what}`).join(", "),
      d1: `${tally.trips.placed} placed, ${tally.trips.refused || "–"} refused`,
      ...(counted[which] && { oversold: `${counted[which].overPools} / ${counted[which].overCaps}`, exhausted: counted[which].exhausted }),
    };
  });
}

/** The middle of a list of numbers. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * A twin's figure against another's, wave by wave: each cycle's waves run within a minute, so their
 * ratio is what drift of the shared machine spares; the goal takes the median over the cycles, and
 * the ratio over the whole run (one slow minute sets it) stands beside it.
 */
function byCycle(ctx, tally, beside, figure, { name, goal, met }) {
  const ratios = tally.waves.map((wave, i) => wave[figure] / beside.waves[i][figure]);
  const whole = { rate: (t) => t.samples.length / t.seconds, p50: (t) => ctx.summarize(t.samples).p50, p99: (t) => ctx.summarize(t.samples).p99 }[figure];
  const middle = ratio(median(ratios), 1);
  return {
    name,
    ratio: middle,
    "whole run": ratio(whole(tally), whole(beside)),
    cycles: ratios.map((r) => r.toFixed(2)).join(" / "),
    goal,
    met: goalMet(met(middle)),
  };
}

/** The flash opening's goals: rate and p99 of each pooled twin against no pools, flat latency, nothing oversold. */
function rushGoalRows(ctx, tallies, counted, single) {
  const rows = [];
  for (const tally of [tallies.few, tallies.all]) {
    rows.push(
      byCycle(ctx, tally, tallies.none, "rate", {
        name: `orders/s, ${tally.name}, vs no pools`,
        goal: `≥ ${GOALS.rate}× no pools`,
        met: (r) => r >= GOALS.rate,
      }),
      byCycle(ctx, tally, tallies.none, "p99", {
        name: `p99, ${tally.name}, vs no pools`,
        goal: `≤ ${GOALS.p99}× no pools`,
        met: (r) => r <= GOALS.p99,
      }),
    );
  }
  rows.push(
    byCycle(ctx, tallies.all, tallies.few, "p50", {
      name: `placement p50 in the rush, caps for ${ACCOUNTS} accounts vs ${FEW_CAPPED}`,
      goal: `≤ ${GOALS.flat}× caps for ${FEW_CAPPED}`,
      met: (r) => r <= GOALS.flat,
    }),
    single,
  );
  const overPools = counted.few.overPools + counted.all.overPools;
  const overCaps = counted.few.overCaps + counted.all.overCaps;
  const miscounted = counted.few.miscounted + counted.all.miscounted;
  rows.push({
    name: "units oversold, counted again from the PLACED orders",
    goal: "≤ 0 units oversold",
    measured: `${overPools + overCaps} units (${overPools} beyond pools, ${overCaps} beyond caps; ${counted.few.orders + counted.all.orders} orders; lines' orderedQuantity ${miscounted ? `${miscounted} differ` : "all equal"})`,
    met: goalMet(overPools + overCaps === 0 && miscounted === 0),
  });
  return rows;
}

/** One order at a time, then the flash opening; every PLACED order of the pooled twins counted again. */
async function flashOpening(ctx, setup, notes) {
  const single = await oneAtATime(ctx, setup);
  ctx.log(
    `flash opening: ${BUYERS} buyers; ${WARMUP_BUYERS} orders untimed on each twin, then ${CYCLES} cycles of a wave of ${ORDERS_PER_BUYER} order(s) per buyer on each`,
  );
  const tallies = await rush(ctx, setup);
  const buyerAccounts = setup.buyers.map((buyer) => buyer.accountId);
  const counted = {
    few: await oversold(ctx, setup.operator, setup.twins.few, buyerAccounts),
    all: await oversold(ctx, setup.operator, setup.twins.all, buyerAccounts),
  };
  notes.push(
    `flash opening: ${BUYERS} buyers, each with its own ACCOUNT key and account, place orders of ${LINES_PER_ORDER} lines (1 pooled: one of the ${HOT} hot lines ${HOT_SHARE * 10} times in 10; 9 without a pool; 1–4 units each) as fast as answers come; ${CYCLES} cycles of a wave on each twin (every buyer ${ORDERS_PER_BUYER} order(s), all at once; ${WARMUP_BUYERS} orders untimed on each twin first), the order of the twins reversed every cycle; orders/s = a wave's answers (placed or refused) over the time until its last answer, summed over the waves; p50/p99 over every answer; the goals' ratio = the median over the cycles of each cycle's ratio (its waves run within a minute), whole run = the ratio of the figures over all waves, cycles = each cycle's ratio; oversold = units beyond pools / beyond caps, counted again from every PLACED order of the pooled twins (caps read back from GET …/allocations/accounts, else the line's maxPerAccount); d1 = D1 round trips (sequential/total) of the last order placed and refused`,
  );
  return {
    tables: [
      { title: `Flash opening: ${BUYERS} buyers at once on an ACTIVE Operation of ${LINES} lines, pools on ${POOLED}`, rows: rushRows(ctx, tallies, counted) },
      { title: "Flash opening: the goals", rows: rushGoalRows(ctx, tallies, counted, single) },
    ],
    orders: counted.all.orders,
  };
}

/** POST …/allocations/plan for every account × every pooled line: the whole walk, the first page, a page of one cap. */
async function plan(ctx, { operator, accounts, twins }, notes) {
  const weights = Object.fromEntries(accounts.map((accountId, i) => [accountId, 1 + (i % 7)]));
  const body = { method: "proportional", basis: { weights } };
  const path = `/v1/operations/${twins.all}/allocations/plan`;
  let walked = { pages: 0, caps: 0, overPool: 0 };
  const walk = async () => {
    const started = performance.now();
    const planned = new Map();
    let token;
    let pages = 0;
    let caps = 0;
    let last;
    do {
      last = await ctx.expect(operator, "POST", path, { ...body, ...(token && { nextToken: token }) }, 200);
      pages++;
      caps += last.body.items.length;
      for (const cap of last.body.items) planned.set(cap.variantExternalId, (planned.get(cap.variantExternalId) ?? 0) + cap.maxQuantity);
      token = last.body.nextToken;
    } while (token);
    walked = { pages, caps, overPool: [...planned].filter(([variantExternalId, sum]) => sum > poolOf(variantExternalId)).length };
    return { ms: performance.now() - started, headers: last.headers };
  };
  const firstPage = () => ctx.expect(operator, "POST", path, body, 200);
  const pair = await pairRow(
    ctx,
    `plan for ${ACCOUNTS} accounts × ${POOLED} lines`,
    { walk, firstPage },
    { rounds: PLAN_ROUNDS, warmup: 1, beside: "first page" },
  );
  if (walked.caps !== ACCOUNTS * POOLED || walked.overPool) {
    throw new Error(`the plan walked ${walked.caps} caps (expected ${ACCOUNTS * POOLED}), ${walked.overPool} lines with caps adding up beyond the pool`);
  }
  // What a page costs beside its answer: a page of one cap (one line computed), and the floor of any request.
  const oneCap = () => ctx.expect(operator, "POST", path, { ...body, limit: 1 }, 200);
  const constant = () => ctx.expect(operator, "GET", "/v1/__bench/constant", undefined, 200);
  const pages = await ctx.sideBySide(
    { firstPage, oneCap, constant },
    { rounds: PAGE_ROUNDS, warmup: WARMUP_ROUNDS, label: `a plan's page, of ${CAPS_PER_CALL} caps and of 1, vs the constant route` },
  );
  const pageRow = (name, stats) => ({ name, p50: ctx.round(stats.p50), p99: ctx.round(stats.p99), "× constant": ratio(stats.p50, pages.constant.p50) });
  notes.push(
    `plan: method proportional, weights 1–7 for each of the ${ACCOUNTS} accounts, on the twin with caps for all (after the rush, if it ran: its accounts keep what they ordered); ${PLAN_ROUNDS} rounds after 1 untimed, the whole walk (every page by nextToken, the same body each time) alternating with the first page alone; then the first page, a page of 1 cap and the constant route, ${PAGE_ROUNDS} rounds alternating after ${WARMUP_ROUNDS}; the walk checked: ${ACCOUNTS * POOLED} caps, none of the lines' caps adding up beyond its pool; d1 = the round trips of the walk's last page and of a first page`,
  );
  return {
    title: `A plan for ${ACCOUNTS} accounts × ${POOLED} lines`,
    rows: [
      {
        name: `POST …/allocations/plan, the whole walk (${walked.pages} pages, ${walked.caps.toLocaleString("en")} caps)`,
        p50: pair.p50,
        p99: pair.p99,
        "× first page": pair.ratioP50,
        d1: pair.d1,
        goal: `≤ ${GOALS.planMs} ms for the whole plan`,
        measured: `${pair.p50} ms p50`,
        met: goalMet(pair.p50 <= GOALS.planMs),
      },
      {
        name: `POST …/allocations/plan, first page (${Math.min(CAPS_PER_CALL, ACCOUNTS * POOLED)} caps), alternating with the walk`,
        p50: pair.besideP50,
        p99: pair.besideP99,
      },
      pageRow("the first page again, alternating with the two below", pages.firstPage),
      pageRow("a first page of 1 cap (limit 1: one line computed, one cap sent)", pages.oneCap),
      pageRow("constant route (the floor of any request)", pages.constant),
    ],
  };
}

/** PUT …/allocations of LINES lines against PUT …/lines of LINES lines (two DRAFT twins), and on the rushed twin. */
async function writes(ctx, { operator, twins }, orders, notes) {
  const draft = {
    lines: await openOperation(ctx, operator, "PUT-LINES", { active: false }),
    allocations: await openOperation(ctx, operator, "PUT-ALLOCATIONS", { active: false }),
  };
  const allocationsBody = (round) =>
    Array.from({ length: LINES }, (_, i) => ({ variantExternalId: sku(i), poolQuantity: 100_000 + (round & 1), maxPerAccount: 50 + (round & 1) }));
  const putAllocations = (operationId) => (round) => ctx.expect(operator, "PUT", `/v1/operations/${operationId}/allocations`, allocationsBody(round), 200);
  const putLines = (round) => ctx.expect(operator, "PUT", `/v1/operations/${draft.lines}/lines`, linesBody(999_999 + (round & 1)), 200);
  const rows = [
    await pairRow(
      ctx,
      `PUT …/allocations, ${LINES} lines changed vs PUT …/lines, ${LINES} lines changed`,
      { allocations: putAllocations(draft.allocations), lines: putLines },
      { rounds: WRITE_ROUNDS, beside: "PUT …/lines", goal: GOALS.put },
    ),
    await pairRow(
      ctx,
      `the same PUT …/allocations on the ACTIVE twin with caps for all (${orders} orders, ${(ACCOUNTS * POOLED).toLocaleString("en")} caps)`,
      { rushed: putAllocations(twins.all), lines: putLines },
      { rounds: WRITE_ROUNDS, beside: "PUT …/lines" },
    ),
  ];
  notes.push(
    `writes: ${WRITE_ROUNDS} rounds after ${WARMUP_ROUNDS} untimed, alternating; every round changes all ${LINES} lines (pools and maxPerAccount, or maxQuantity), so each makes a version, an event and ${LINES} change records; the first two on DRAFT twins without orders`,
  );
  return { title: `PUT …/allocations against PUT …/lines, ${LINES} lines`, rows };
}

export default async function allocation(ctx) {
  const notes = [];
  const setup = await seed(ctx, notes);
  const tables = [];
  let orders = 0;
  if (PARTS.has("flash")) {
    const flash = await flashOpening(ctx, setup, notes);
    tables.push(...flash.tables);
    orders = flash.orders;
  }
  if (PARTS.has("plan")) tables.push(await plan(ctx, setup, notes));
  if (PARTS.has("writes")) tables.push(await writes(ctx, setup, orders, notes));
  return { title: `Allocation: pools and caps under a flash opening, plans and writes (${LINES}-line Operations)`, tables, notes };
}
