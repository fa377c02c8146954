// Issue 5: server-side compare of a 5000-line order against a 5000-line Operation, side by side with
// the raw single-statement upsert of 5000 rows (the floor for "one statement over 5000 lines"); then
// cart and order creation latency and throughput (one Operation, and spread over several).
import { performance } from "node:perf_hooks";

const LINE_COUNT = 5000;
const COMPARE_ROUNDS = 30;
const CHECKOUT_ROUNDS = 150;
const WARMUP = 5;
const THROUGHPUT_CONCURRENCY = 8;
const THROUGHPUT_WINDOW_MS = 2_000;
const THROUGHPUT_WINDOWS = 2;
const SPREAD_OPERATIONS = 8;
const SUPPLIERS = 4;

const OPEN = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
const sku = (i) => `SKU-${String(i).padStart(5, "0")}`;
/** sideBySide numbers its warm-up rounds below 0: keep indexes in range. */
const mod = (i, n) => ((i % n) + n) % n;

function operationLines() {
  return Array.from({ length: LINE_COUNT }, (_, i) => ({
    variantExternalId: sku(i),
    variantName: { en: `Shirt ${i}`, fr: `Chemise ${i}` },
    minQuantity: i % 4 === 0 ? 1 : 0,
    maxQuantity: 24,
    recommendedQuantity: i % 3 ? 6 : null,
  }));
}

/** A 5000-line order with a realistic mix: mostly in bounds, some above max, a few keys the Operation lacks. */
function orderLines() {
  return Array.from({ length: LINE_COUNT }, (_, i) => ({
    variantExternalId: i % 250 === 8 ? `GONE-${i}` : sku(i),
    quantity: i % 100 === 3 ? 30 : 1 + (i % 12),
    unitPrice: 500 + (i % 50) * 10,
    supplierId: `S${i % SUPPLIERS}`,
  }));
}

async function openOperation(ctx, operator, lines, code) {
  const { body: operation } = await ctx.expect(operator, "POST", "/v1/operations", { code, name: { en: `Bench ${code}` }, type: "PUBLIC", ...OPEN }, 201);
  for (let i = 0; i < lines.length; i += LINE_COUNT) {
    await ctx.expect(operator, "PUT", `/v1/operations/${operation.id}/lines`, lines.slice(i, i + LINE_COUNT), 200);
  }
  await ctx.expect(operator, "POST", `/v1/operations/${operation.id}/status`, { status: "ACTIVE" }, 200);
  return operation.id;
}

export default async function carts(ctx) {
  const { operator } = await ctx.newTenant();
  const lines = operationLines();
  const operationId = await openOperation(ctx, operator, lines, "BENCH-5000");

  // ---- compare: 5000 order lines against 5000 Operation lines --------------------------------
  const lines5000 = orderLines();
  // The bounds in the order must hold for it to be placed: the order we compare by id fits.
  const fitting = lines.map((line, i) => ({
    variantExternalId: line.variantExternalId,
    quantity: 1 + (i % 12),
    unitPrice: 500,
    supplierId: `S${i % SUPPLIERS}`,
  }));
  const { body: order } = await ctx.expect(operator, "POST", "/v1/orders", { operationId, accountId: "A-BENCH", lines: fitting }, 201);
  const compareLines = lines5000.map(({ variantExternalId, quantity }) => ({ variantExternalId, quantity }));
  const { body: sample } = await ctx.expect(operator, "POST", `/v1/operations/${operationId}/compare`, { lines: compareLines }, 200);
  const { body: byIdSample } = await ctx.expect(operator, "POST", `/v1/operations/${operationId}/compare`, { orderId: order.id }, 200);

  // The floor: the same 5000 rows written by one bare json_each upsert, into an Operation of its own.
  const { body: scratch } = await ctx.expect(operator, "POST", "/v1/operations", { code: "BENCH-RAW", name: { en: "Raw" }, type: "PUBLIC", ...OPEN }, 201);
  const rawBody = lines.map(({ variantExternalId, minQuantity, maxQuantity, recommendedQuantity, variantName }) => ({
    variantExternalId,
    minQuantity,
    maxQuantity,
    recommendedQuantity,
    variantName,
  }));
  const rawUpsert = () => ctx.expect(operator, "PUT", `/v1/__bench/raw-upsert/${scratch.id}`, rawBody, 200);
  const compare = await ctx.sideBySide(
    {
      "compare 5000 lines (body)": () => ctx.expect(operator, "POST", `/v1/operations/${operationId}/compare`, { lines: compareLines }, 200),
      "compare by orderId (5000 lines)": () => ctx.expect(operator, "POST", `/v1/operations/${operationId}/compare`, { orderId: order.id }, 200),
      "raw upsert of 5000 rows (floor)": rawUpsert,
    },
    { rounds: COMPARE_ROUNDS, warmup: WARMUP },
  );

  // ---- checkout: carts and orders -------------------------------------------------------------
  // Quota rules for the suppliers, met by the small orders below, so evaluation runs on every order.
  for (let s = 0; s < SUPPLIERS; s++) {
    await ctx.expect(operator, "POST", "/v1/buying-policies/quotas/rules", { supplierId: `S${s}`, minimum: 1000 + s * 100 }, 201);
  }
  const smallLines = (i) =>
    Array.from({ length: 10 }, (_, j) => ({
      variantExternalId: sku(mod(i * 10 + j * 97, LINE_COUNT)),
      quantity: 2 + (j % 3),
      unitPrice: 900,
      supplierId: `S${j % SUPPLIERS}`,
    })).filter((line, j, all) => all.findIndex((other) => other.variantExternalId === line.variantExternalId) === j);
  const spread = [];
  for (let i = 0; i < SPREAD_OPERATIONS; i++) {
    spread.push(await openOperation(ctx, operator, lines.slice(0, 200), `BENCH-SPREAD-${i}`));
  }
  const spreadLines = (i) =>
    Array.from({ length: 10 }, (_, j) => ({
      variantExternalId: sku(mod(i + j * 17, 200)),
      quantity: 3,
      unitPrice: 900,
      supplierId: `S${j % SUPPLIERS}`,
    })).filter((line, j, all) => all.findIndex((other) => other.variantExternalId === line.variantExternalId) === j);

  const cart = (i) => ctx.expect(operator, "POST", "/v1/carts", { operationId, accountId: `A${mod(i, 50)}`, lines: smallLines(i) }, 201);
  const directOrder = (i) => ctx.expect(operator, "POST", "/v1/orders", { operationId, accountId: `A${mod(i, 50)}`, lines: smallLines(i) }, 201);
  const cartThenOrder = async (i) => {
    const started = performance.now();
    const { body } = await cart(i);
    await ctx.expect(operator, "POST", "/v1/orders", { cartId: body.id }, 201);
    return performance.now() - started;
  };
  const constant = () => ctx.expect(operator, "GET", "/v1/__bench/constant", undefined, 200);
  const latency = await ctx.sideBySide(
    {
      "POST /v1/carts (10 lines)": cart,
      "POST /v1/orders (10 lines, 4 suppliers)": directOrder,
      "POST /v1/carts then /v1/orders {cartId}": cartThenOrder,
      "constant route (floor)": constant,
    },
    { rounds: CHECKOUT_ROUNDS, warmup: WARMUP },
  );
  const big = await ctx.measure(() => ctx.expect(operator, "POST", "/v1/orders", { operationId, accountId: "A-BIG", lines: fitting }, 201), {
    iterations: 10,
    warmup: 2,
    label: "POST /v1/orders (5000 lines)",
  });

  const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;
  const rates = { oneCart: [], oneOrder: [], spreadCart: [], spreadOrder: [], constant: [] };
  const spreadCart = (i) =>
    ctx.expect(operator, "POST", "/v1/carts", { operationId: spread[mod(i, SPREAD_OPERATIONS)], accountId: `A${mod(i, 50)}`, lines: spreadLines(i) }, 201);
  const spreadOrder = (i) =>
    ctx.expect(operator, "POST", "/v1/orders", { operationId: spread[mod(i, SPREAD_OPERATIONS)], accountId: `A${mod(i, 50)}`, lines: spreadLines(i) }, 201);
  const runs = { oneCart: cart, oneOrder: directOrder, spreadCart, spreadOrder, constant };
  for (let w = 0; w < THROUGHPUT_WINDOWS; w++) {
    const names = Object.keys(runs);
    for (const name of w % 2 === 0 ? names : names.reverse()) {
      rates[name].push(await ctx.throughput(runs[name], THROUGHPUT_CONCURRENCY, THROUGHPUT_WINDOW_MS));
    }
  }

  const fmt = (stats, extra = {}) => ({
    p50: ctx.round(stats.p50),
    p99: ctx.round(stats.p99),
    mean: ctx.round(stats.mean),
    ...extra,
  });
  const ratio = (value) => Math.round(value * 100) / 100;
  const rows = [
    {
      name: "compare 5000 lines (body) vs 5000-line Operation",
      ...fmt(compare["compare 5000 lines (body)"], {
        "×floor p50": ratio(compare["compare 5000 lines (body)"].ratioP50),
        "×floor p99": ratio(compare["compare 5000 lines (body)"].ratioP99),
      }),
    },
    {
      name: "compare by orderId (5000-line order)",
      ...fmt(compare["compare by orderId (5000 lines)"], {
        "×floor p50": ratio(compare["compare by orderId (5000 lines)"].ratioP50),
        "×floor p99": ratio(compare["compare by orderId (5000 lines)"].ratioP99),
      }),
    },
    { name: "raw upsert of 5000 rows (floor)", ...fmt(compare["raw upsert of 5000 rows (floor)"], { "×floor p50": 1, "×floor p99": 1 }) },
    {
      name: "POST /v1/carts (10 lines)",
      ...fmt(latency["POST /v1/carts (10 lines)"], {
        "×floor p50": ratio(latency["POST /v1/carts (10 lines)"].ratioP50),
        [`req/s (${THROUGHPUT_CONCURRENCY} in flight, 1 op)`]: Math.round(mean(rates.oneCart)),
        [`req/s (${THROUGHPUT_CONCURRENCY} in flight, ${SPREAD_OPERATIONS} ops)`]: Math.round(mean(rates.spreadCart)),
      }),
    },
    {
      name: "POST /v1/orders (10 lines, 4 suppliers)",
      ...fmt(latency["POST /v1/orders (10 lines, 4 suppliers)"], {
        "×floor p50": ratio(latency["POST /v1/orders (10 lines, 4 suppliers)"].ratioP50),
        [`req/s (${THROUGHPUT_CONCURRENCY} in flight, 1 op)`]: Math.round(mean(rates.oneOrder)),
        [`req/s (${THROUGHPUT_CONCURRENCY} in flight, ${SPREAD_OPERATIONS} ops)`]: Math.round(mean(rates.spreadOrder)),
      }),
    },
    {
      name: "POST /v1/carts then /v1/orders {cartId}",
      ...fmt(latency["POST /v1/carts then /v1/orders {cartId}"], { "×floor p50": ratio(latency["POST /v1/carts then /v1/orders {cartId}"].ratioP50) }),
    },
    { name: "POST /v1/orders (5000 lines)", ...fmt(big) },
    {
      name: "constant route (floor)",
      ...fmt(latency["constant route (floor)"], { "×floor p50": 1, [`req/s (${THROUGHPUT_CONCURRENCY} in flight, 1 op)`]: Math.round(mean(rates.constant)) }),
    },
  ];
  const notes = [
    `Compare rows: ${COMPARE_ROUNDS} rounds interleaved with PUT /v1/__bench/raw-upsert of the same 5000 rows (one bare json_each upsert into another Operation), after ${WARMUP} warm-up rounds; "×floor" is the ratio to it (goal ≤ 2).`,
    `The compared body finds ${JSON.stringify(sample.summary)}; the placed order compared by id finds ${JSON.stringify(byIdSample.summary)}.`,
    `Checkout rows: ${CHECKOUT_ROUNDS} rounds interleaved with GET /v1/__bench/constant; each order is evaluated against ${SUPPLIERS} supplier rules (one evaluation per supplier) and passes.`,
    `Throughput: ${THROUGHPUT_WINDOWS} alternating ${THROUGHPUT_WINDOW_MS} ms windows with ${THROUGHPUT_CONCURRENCY} requests in flight, all on one Operation (its links are serialized by its Durable Object) or spread over ${SPREAD_OPERATIONS}; client and server share the machine's cores.`,
  ];
  return { title: "Compare, carts and orders (ms; ratio to the floor measured in the same run)", rows, notes };
}
