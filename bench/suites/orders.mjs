// Issue 47: orders placed and cancelled with their totals kept in the same batch. Placing is measured
// side by side with the commit before totals (the parent of "Orders cancelled and totals kept as they
// happen"), served by a second local server from that commit's tree, calls alternating between the two
// servers round after round, as the history suite does; so is a 500-line page of lines against the
// same page there, which has no order columns. Cancelling (against placing) and the totals' reads (at
// 100,000 orders against 1,000) have no "before" and are measured on this tree, alternating too.
//
// Placements and cancellations go through the API. The big Operations' orders are seeded by the bench
// Worker (PUT /v1/__bench/seed-orders: the orders, their order_lines and the totals the real batch
// keeps, summed per call), then checked against what the API reads.
//
// Knobs: BENCH_ORDERS (100000: the big Operation), BENCH_ORDERS_FEW (1000), BENCH_ORDER_LINES (5000
// lines in each Operation), BENCH_LINES_PER_ORDER (10), BENCH_ORDER_ACCOUNTS (2000 buyers),
// BENCH_ORDER_ROUNDS (40, writes), BENCH_ORDER_READ_ROUNDS (120), BENCH_ORDERS_BASELINE (the commit compared with).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { extractTree, roundTripsOf, sideBySideCalls } from "../lib.mjs";

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const BASELINE_REF = process.env.BENCH_ORDERS_BASELINE ?? "fe0b160^";
const ORDERS = knob("BENCH_ORDERS", 100_000);
const FEW_ORDERS = knob("BENCH_ORDERS_FEW", 1_000);
const LINES = knob("BENCH_ORDER_LINES", 5_000);
const LINES_PER_ORDER = knob("BENCH_LINES_PER_ORDER", 10);
const ACCOUNTS = knob("BENCH_ORDER_ACCOUNTS", 2_000);
const ROUNDS = knob("BENCH_ORDER_ROUNDS", 40);
/** Reads are cheap and their ratios near 1: more rounds. */
const READ_ROUNDS = knob("BENCH_ORDER_READ_ROUNDS", 120);
const WARMUP = 5;
const PAGE = 500;
/** Orders per seeding call: one batch of the bench Worker. */
const SEED_CHUNK = 2_000;
const SEED_DAYS = 60;
const BLOCKS = 3;
/** The goals of issue 47. */
const GOALS = { placing: 1.15, cancelling: 1, page: 1.1, totalsMs: 30, totalsFlat: 1.2 };

const OPEN = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
const sku = (i) => `SKU-${String(i).padStart(5, "0")}`;
const operationLines = () =>
  Array.from({ length: LINES }, (_, i) => ({
    variantExternalId: sku(i),
    variantName: { en: `Shirt ${i}`, fr: `Chemise ${i}` },
    minQuantity: 0,
    maxQuantity: 1_000_000,
    recommendedQuantity: i % 3 ? 6 : null,
  }));
/** Order `n` of a placing run: LINES_PER_ORDER distinct lines spread over the Operation, from a start that moves with n. */
const orderBody = (operationId, n) => {
  const stride = Math.max(1, Math.floor(LINES / LINES_PER_ORDER));
  const start = ((n % LINES) + LINES) % LINES;
  return {
    operationId,
    accountId: `A${((n % ACCOUNTS) + ACCOUNTS) % ACCOUNTS}`,
    lines: Array.from({ length: Math.min(LINES_PER_ORDER, LINES) }, (_, k) => ({
      variantExternalId: sku((start + k * stride) % LINES),
      quantity: 1 + (k % 4),
      unitPrice: 1200,
    })),
  };
};
const roundTo = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
const p50 = (samples) => [...samples].sort((a, b) => a - b)[Math.max(0, Math.ceil(samples.length / 2) - 1)];

/** An ACTIVE Operation of LINES lines, made through the API. */
async function openOperation(side, operator, code) {
  const { body: operation } = await side.expect(operator, "POST", "/v1/operations", { code, name: { en: `Bench ${code}` }, type: "PUBLIC", ...OPEN }, 201);
  await side.expect(operator, "PUT", `/v1/operations/${operation.id}/lines`, operationLines(), 200);
  await side.expect(operator, "POST", `/v1/operations/${operation.id}/status`, { status: "ACTIVE" }, 200);
  return operation.id;
}

/** `count` orders into `operationId` through the bench Worker; what they add up to. */
async function seedOrders(ctx, operator, operationId, count) {
  const sums = { orders: 0, amount: 0, quantity: 0 };
  const chunks = Math.ceil(count / SEED_CHUNK);
  await ctx.pool(
    chunks,
    1,
    async (c) => {
      const seed = {
        from: c * SEED_CHUNK,
        count: Math.min(SEED_CHUNK, count - c * SEED_CHUNK),
        accounts: ACCOUNTS,
        days: SEED_DAYS,
        linesPerOrder: LINES_PER_ORDER,
      };
      const { body } = await ctx.expect(operator, "PUT", `/v1/__bench/seed-orders/${operationId}`, seed, 200);
      for (const key of Object.keys(sums)) sums[key] += body[key];
    },
    { label: `seeding ${count} orders (${chunks} calls of ${SEED_CHUNK})` },
  );
  return sums;
}

/** Every line of the Operation, a page of 1000 at a time. */
async function allLines(ctx, operator, operationId) {
  const lines = [];
  let token = null;
  do {
    const query = `limit=1000${token ? `&nextToken=${encodeURIComponent(token)}` : ""}`;
    const { body } = await ctx.expect(operator, "GET", `/v1/operations/${operationId}/lines?${query}`, undefined, 200);
    lines.push(...body.items);
    token = body.nextToken;
  } while (token);
  return lines;
}

/** The seeded figures as the API reads them: its totals and the sum over its lines. Throws on a difference. */
async function checkSeeded(ctx, operator, operationId, sums) {
  const { body: totals } = await ctx.expect(operator, "GET", `/v1/operations/${operationId}/totals`, undefined, 200);
  const lines = await allLines(ctx, operator, operationId);
  const read = {
    orders: totals.orders,
    amount: totals.amount,
    quantity: lines.reduce((sum, line) => sum + line.orderedQuantity, 0),
    lineOrders: lines.reduce((sum, line) => sum + line.orderCount, 0),
  };
  const expected = { ...sums, lineOrders: sums.orders * Math.min(LINES_PER_ORDER, LINES) };
  if (JSON.stringify(read) !== JSON.stringify(expected)) {
    throw new Error(`the seeded orders of ${operationId} read back as ${JSON.stringify(read)}, not ${JSON.stringify(expected)}`);
  }
}

/** The size of an answer's JSON, in KiB. */
const kibOf = (response) => roundTo((typeof response.body === "string" ? response.body : JSON.stringify(response.body ?? "")).length / 1024, 1);

/**
 * `calls` run alternately, round after round (the last is the baseline): a row with both p50s, their
 * ratio, the ratio over each third of the rounds (the run's own noise), and the round trips and
 * answer sizes of each call's last sample.
 */
async function pairRow(ctx, name, calls, { beside, goal, rounds = ROUNDS }) {
  const [measured, baseline] = Object.keys(calls);
  const result = await sideBySideCalls(ctx, calls, { rounds, warmup: WARMUP, label: name });
  const { last } = result;
  const size = Math.ceil(rounds / BLOCKS);
  const third = (b, which) => result.samples[which].slice(b * size, (b + 1) * size);
  const thirds = Array.from({ length: BLOCKS }, (_, b) => p50(third(b, measured)) / p50(third(b, baseline)));
  const ratio = result[measured].p50 / result[baseline].p50;
  return {
    name,
    p50: ctx.round(result[measured].p50),
    p99: ctx.round(result[measured].p99),
    besideP50: ctx.round(result[baseline].p50),
    beside,
    ratioP50: roundTo(ratio),
    thirds: thirds.map((r) => r.toFixed(2)).join(" / "),
    d1: `${roundTripsOf(last[measured])} vs ${roundTripsOf(last[baseline])}`,
    KiB: `${kibOf(last[measured])} vs ${kibOf(last[baseline])}`,
    ...(goal && { goal: `≤ ${goal}× ${beside}`, met: ratio <= goal ? "yes" : "no" }),
  };
}

export default async function orders(ctx) {
  const { commit, dir } = extractTree(BASELINE_REF);
  ctx.log(`baseline: ${BASELINE_REF} = ${commit.slice(0, 12)}, served from ${dir}`);
  const baselineServer = await ctx.startServer({ root: dir, stateDir: join(dir, ".bench-state") });
  try {
    const before = ctx.createContext(baselineServer.baseUrl);
    const now = { operator: (await ctx.newTenant()).operator };
    const then = { operator: (await before.newTenant()).operator };

    // ---- the Operations: to place into (both trees), a page of lines (both), the totals' two sizes (this tree)
    now.placing = await openOperation(ctx, now.operator, "PLACE");
    then.placing = await openOperation(before, then.operator, "PLACE");
    then.page = await openOperation(before, then.operator, "PAGE");
    now.few = await openOperation(ctx, now.operator, "FEW");
    now.many = await openOperation(ctx, now.operator, "MANY");
    now.none = await openOperation(ctx, now.operator, "NONE");
    const fewSums = await seedOrders(ctx, now.operator, now.few, FEW_ORDERS);
    const manySums = await seedOrders(ctx, now.operator, now.many, ORDERS);
    await checkSeeded(ctx, now.operator, now.few, fewSums);
    await checkSeeded(ctx, now.operator, now.many, manySums);

    const rows = [];
    // ---- placing, side by side with the commit before totals
    let placed = 0;
    const place = (side, caller, operationId) => () => side.expect(caller, "POST", "/v1/orders", orderBody(operationId, placed++), 201);
    rows.push(
      await pairRow(
        ctx,
        `POST /v1/orders (${LINES_PER_ORDER} lines, into ${LINES} lines)`,
        { current: place(ctx, now.operator, now.placing), baseline: place(before, then.operator, then.placing) },
        { beside: "before", goal: GOALS.placing },
      ),
    );
    const constant = (side, caller) => () => side.expect(caller, "GET", "/v1/__bench/constant", undefined, 200);
    rows.push(
      await pairRow(
        ctx,
        "constant route (each server's floor)",
        { current: constant(ctx, now.operator), baseline: constant(before, then.operator) },
        { beside: "before" },
      ),
    );

    // ---- cancelling against placing, this tree: each round cancels an order placed before the rounds
    const toCancel = [];
    await ctx.pool(ROUNDS + WARMUP, 1, async () => toCancel.push((await place(ctx, now.operator, now.placing)()).body.id), { label: "orders to cancel" });
    const cancel = () => ctx.expect(now.operator, "POST", `/v1/orders/${toCancel.pop()}/cancel`, { reason: "bench" }, 200);
    rows.push(
      await pairRow(
        ctx,
        `POST /v1/orders/{id}/cancel (${LINES_PER_ORDER} lines)`,
        { cancel, place: place(ctx, now.operator, now.placing) },
        { beside: "placing", goal: GOALS.cancelling },
      ),
    );
    const { body: placing } = await ctx.expect(now.operator, "GET", `/v1/operations/${now.placing}/totals`, undefined, 200);
    rows.push(
      await pairRow(
        ctx,
        `POST /v1/orders into the Operation of ${ORDERS} orders`,
        { many: place(ctx, now.operator, now.many), fresh: place(ctx, now.operator, now.placing) },
        { beside: `into one of ${placing.orders + placing.cancelled}` },
      ),
    );

    // ---- a page of lines with their order figures
    const page = (side, caller, operationId) => () => side.expect(caller, "GET", `/v1/operations/${operationId}/lines?limit=${PAGE}`, undefined, 200);
    rows.push(
      await pairRow(
        ctx,
        `GET …/lines?limit=${PAGE} with orderedQuantity, ${ORDERS} orders`,
        { current: page(ctx, now.operator, now.many), baseline: page(before, then.operator, then.page) },
        { beside: "before (no order columns)", goal: GOALS.page, rounds: READ_ROUNDS },
      ),
    );
    rows.push(
      await pairRow(
        ctx,
        `GET …/lines?limit=${PAGE}, ${ORDERS} orders vs none (this tree)`,
        { many: page(ctx, now.operator, now.many), none: page(ctx, now.operator, now.none) },
        { beside: "no orders", rounds: READ_ROUNDS },
      ),
    );

    // ---- the totals' reads
    const totals = (operationId) => () => ctx.expect(now.operator, "GET", `/v1/operations/${operationId}/totals`, undefined, 200);
    const flat = await pairRow(
      ctx,
      `GET …/totals, ${ORDERS} orders vs ${FEW_ORDERS}`,
      { many: totals(now.many), few: totals(now.few) },
      { beside: `${FEW_ORDERS} orders`, rounds: READ_ROUNDS },
    );
    rows.push({ ...flat, goal: `≤ ${GOALS.totalsFlat}× ${FEW_ORDERS} orders`, met: flat.ratioP50 <= GOALS.totalsFlat ? "yes" : "no" });
    rows.push({
      name: `GET …/totals at ${ORDERS} orders`,
      p50: flat.p50,
      p99: flat.p99,
      d1: flat.d1.split(" vs ")[0],
      KiB: flat.KiB.split(" vs ")[0],
      goal: `≤ ${GOALS.totalsMs} ms`,
      met: flat.p50 <= GOALS.totalsMs ? "yes" : "no",
    });
    const oneRead = () => ctx.expect(now.operator, "GET", `/v1/__bench/totals-one-read/${now.many}`, undefined, 200);
    rows.push(
      await pairRow(
        ctx,
        `GET …/totals vs its reads as one statement, ${ORDERS} orders`,
        { route: totals(now.many), oneRead },
        { beside: "one statement (bench route)", rounds: READ_ROUNDS },
      ),
    );
    for (const [name, path] of [
      ["GET …/totals/accounts?ordered=false&limit=100", "totals/accounts?ordered=false&limit=100"],
      ["GET …/totals/accounts?sort=-amount&limit=100", "totals/accounts?sort=-amount&limit=100"],
      [`GET …/totals/daily (${SEED_DAYS} days)`, `totals/daily?from=${new Date(Date.now() - (SEED_DAYS - 1) * 86_400_000).toISOString().slice(0, 10)}`],
      ["GET …/orders (first page of 50)", "orders?limit=50"],
    ]) {
      let trips = "";
      const stats = await ctx.measure(
        async () => {
          const response = await ctx.expect(now.operator, "GET", `/v1/operations/${now.many}/${path}`, undefined, 200);
          trips = roundTripsOf(response);
          return response.ms;
        },
        { iterations: READ_ROUNDS, warmup: WARMUP, label: name },
      );
      rows.push({ name: `${name}, ${ORDERS} orders`, p50: ctx.round(stats.p50), p99: ctx.round(stats.p99), d1: trips });
    }

    return {
      title: `Orders and totals: placing side by side with the commit before totals (${commit.slice(0, 12)}); ${ORDERS.toLocaleString("en")} orders, ${LINES}-line Operations`,
      rows,
      notes: [
        `${ROUNDS} rounds for writes, ${READ_ROUNDS} for reads, after ${WARMUP} untimed, the two calls of a row alternating (which goes first too); p50/p99 in ms over loopback; thirds = the ratio over each third of the rounds (the run's own noise); d1 = the D1 round trips of a call, sequential/total (x-bench-d1-round-trips); KiB = the size of each call's JSON answer`,
        `every Operation has ${LINES} lines; an order has ${LINES_PER_ORDER} of them; the seeded orders come from ${ACCOUNTS} accounts over ${SEED_DAYS} days, written by PUT /v1/__bench/seed-orders (orders, order_lines and their totals) and checked against GET …/totals and the lines' orderedQuantity and orderCount`,
        `the page "before" is the same ${LINES} lines on the commit before totals, which has no order columns and reads no orders (so it holds none); the row after it compares the page at ${ORDERS} orders with the page of an Operation without orders on this tree`,
      ],
    };
  } finally {
    await baselineServer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
