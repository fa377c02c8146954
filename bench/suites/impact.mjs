// The impact of a rule change (POST /v1/buying-policies/quotas/impact) over windows of 10^4, 10^5
// and 10^6 orders, in one run: time per call and per order (flat), against rules read whole (a small
// tenant) and per page's keys (a tenant of 100,000 rules); the replay's live heap as the window
// grows (bounded: a page at a time); and what keeping the facts costs the order path, side by side
// with the commit before it (evaluate, a placed order, a refused order).
import { build } from "esbuild";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";
import { extractTree } from "../lib.mjs";

/** Orders in the window (IMPACT_SIZES=10000,100000 for a quick trial of the suite itself). */
const SIZES = process.env.IMPACT_SIZES ? process.env.IMPACT_SIZES.split(",").map(Number) : [10_000, 100_000, 1_000_000];
/** The goal per size: ms for one impact call. */
const GOAL_MS = { 10000: 100, 100000: 1_000, 1000000: 10_000 };
const SAMPLES = { 10000: 15, 100000: 7, 1000000: 3 };
const ACCOUNTS = 2_000;
const DAYS = 89;
/** Facts per seeding call (generated in SQL by the bench-only /v1/__bench/seed-facts). */
const SEED_CHUNK = 250_000;
/** Rules of the small tenants (read whole: at most the rule cache's 2000) and of the large one (read per page's keys). */
const SMALL_RULES = 1_500;
const LARGE_RULES = 100_000;
const RULE_SEED_CHUNK = 100_000;
/** The commit before the facts (this branch's base); BENCH_IMPACT_BASELINE=<ref> compares with another. */
const BASELINE_REF = process.env.BENCH_IMPACT_BASELINE ?? "fcd1a40";
const PATH_ROUNDS = 60;
const PATH_WARMUP = 5;

const IMPACT = "/v1/buying-policies/quotas/impact";
const progress = (line) => console.error(`[impact] ${line}`);
const label = (n) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1_000}k`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const percentile = (values, fraction) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
};

async function seedRules(ctx, operator, size) {
  for (let from = 0; from < size; from += RULE_SEED_CHUNK) {
    await ctx.expect(operator, "PUT", "/v1/__bench/seed-rules", { from, count: Math.min(RULE_SEED_CHUNK, size - from) }, 200);
  }
  await ctx.expect(operator, "PUT", "/v1/buying-policies/quotas/default", { minimum: 5_000 }, 200);
}

async function seedFacts(ctx, operator, size) {
  for (let from = 0; from < size; from += SEED_CHUNK) {
    await ctx.expect(operator, "PUT", "/v1/__bench/seed-facts", { from, count: Math.min(SEED_CHUNK, size - from), accounts: ACCOUNTS, days: DAYS }, 200);
    if (size > SEED_CHUNK) progress(`seeding ${label(size)}: ${Math.min(size, from + SEED_CHUNK).toLocaleString("en")} facts`);
  }
}

/** A change an administrator would check: one supplier's minimum raised, an account's own rule, and the default. */
async function changeBody(ctx, operator) {
  const { body } = await ctx.expect(operator, "GET", "/v1/buying-policies/quotas/rules?supplierId=S1&limit=5", undefined, 200);
  const raised = body.items.find((rule) => rule.accountId === null && rule.storeId === null) ?? body.items[0];
  return {
    changes: [
      { op: "replace", ruleId: raised.id, rule: { supplierId: raised.supplierId, storeId: raised.storeId, minimum: raised.minimum + 10_000 } },
      { op: "create", rule: { accountId: "A7", supplierId: "S2", minimum: 30_000, enforcement: "WARN" } },
    ],
    default: { minimum: 7_500, enforcement: "BLOCK" },
  };
}

async function measureImpact(ctx, tenant, samples) {
  const times = [];
  let answer;
  await ctx.expect(tenant.operator, "POST", IMPACT, tenant.body, 200); // warm-up
  for (let i = 0; i < samples; i++) {
    const response = await ctx.expect(tenant.operator, "POST", `${IMPACT}?limit=50`, tenant.body, 200);
    times.push(response.ms);
    answer = response.body;
  }
  if (answer.ordersConsidered !== tenant.size) throw new Error(`the impact considered ${answer.ordersConsidered} orders, ${tenant.size} were seeded`);
  return { times, answer };
}

/**
 * The replay's live heap as the window grows: src/quotas/impact.ts bundled for Node (the V8 of
 * workerd) and run against SQLite (D1's engine, node:sqlite) through a D1-shaped handle, with the
 * heap measured after a full GC at every database call (where the replay holds its most: a page
 * read, the previous one processed).
 */
async function measureReplayHeap(sizes) {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const { DatabaseSync } = await import("node:sqlite");
  const dir = mkdtempSync(join(tmpdir(), "impact-heap-"));
  try {
    const outfile = join(dir, "impact.mjs");
    await build({
      stdin: {
        contents: 'export { assessImpact, impactPaging } from "./src/quotas/impact"; export { seedFacts, seedRules } from "./bench/worker/queries";',
        resolveDir: repoRoot,
        loader: "ts",
      },
      bundle: true,
      format: "esm",
      platform: "node",
      outfile,
      logLevel: "silent",
    });
    const { assessImpact, impactPaging, seedFacts: seed, seedRules: seedRulesSql } = await import(pathToFileURL(outfile).href);
    const rows = [];
    for (const size of sizes) {
      const sqlite = new DatabaseSync(":memory:");
      const migrations = join(repoRoot, "migrations", "tenant");
      for (const name of readdirSync(migrations)
        .filter((file) => file.endsWith(".sql"))
        .sort())
        sqlite.exec(readFileSync(join(migrations, name), "utf8"));
      let onCall = () => {};
      // The part of D1's API the replay and the seeding use; every call (a statement or a batch) is one database call.
      // D1 binds a whole number as an INTEGER; node:sqlite binds every number as a REAL unless it is a BigInt.
      const execute = (sql, params) => {
        const results = sqlite.prepare(sql).all(...params.map((value) => (Number.isInteger(value) ? BigInt(value) : value)));
        return { results, meta: { changes: Number(sqlite.prepare("select changes() as n").get().n) } };
      };
      const statement = (sql, params = []) => ({
        sql,
        params,
        bind: (...values) => statement(sql, values),
        async all() {
          onCall();
          return execute(sql, params);
        },
      });
      const d1 = {
        prepare: (sql) => statement(sql),
        async batch(list) {
          onCall();
          return list.map((item) => execute(item.sql, item.params));
        },
      };
      sqlite.prepare("insert into tenants (id, quota_default_minimum, rules_version, created_at) values ('t', 5000, 1, '2026-01-01T00:00:00Z')").run();
      await seedRulesSql(d1, "t", 0, SMALL_RULES);
      for (let from = 0; from < size; from += SEED_CHUNK)
        await seed(d1, "t", { from, count: Math.min(SEED_CHUNK, size - from), accounts: ACCOUNTS, days: DAYS, now: new Date().toISOString() });
      const ruleId = sqlite.prepare("select id from quota_rules where supplier_id = 'S1' and account_id is null and store_id is null").get().id;
      const body = {
        changes: [
          { op: "replace", ruleId, rule: { supplierId: "S1", minimum: 40_000, enforcement: "BLOCK" } },
          { op: "create", rule: { accountId: "A7", supplierId: "S2", minimum: 30_000, enforcement: "WARN" } },
        ],
        default: { minimum: 7_500, enforcement: "BLOCK" },
      };
      gc();
      const base = process.memoryUsage().heapUsed;
      let peak = 0;
      let calls = 0;
      onCall = () => {
        calls++;
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      };
      const answer = await assessImpact({ $client: d1 }, "t", "bench-secret", body, { limit: 50 });
      onCall = () => {};
      if (answer.ordersConsidered !== size) throw new Error(`heap probe: ${answer.ordersConsidered} orders considered of ${size}`);
      rows.push({
        orders: size,
        "live heap peak (MiB)": Math.round((peak / 2 ** 20) * 100) / 100,
        "database calls": calls,
        "facts per page": impactPaging.factsPerPage,
      });
      sqlite.close();
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a tenant needs for the order path rows: an open Operation, a rule that refuses one supplier's small orders. */
async function seedOrderPath(side) {
  const { operator } = await side.newTenant();
  const open = { startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" };
  const lines = ["SKU-1", "SKU-2", "SKU-3"].map((variantExternalId) => ({ variantExternalId, minQuantity: 0, maxQuantity: 1_000 }));
  const operation = (await side.expect(operator, "POST", "/v1/operations", { code: "IMPACT-PATH", name: { en: "Impact path" }, type: "PUBLIC", ...open }, 201))
    .body;
  await side.expect(operator, "PUT", `/v1/operations/${operation.id}/lines`, lines, 200);
  await side.expect(operator, "POST", `/v1/operations/${operation.id}/status`, { status: "ACTIVE" }, 200);
  await side.expect(operator, "POST", "/v1/buying-policies/quotas/rules", { supplierId: "S-STRICT", minimum: 1_000_000 }, 201);
  const order = (suppliers) => ({
    operationId: operation.id,
    accountId: "A-PATH",
    lines: suppliers.map((supplierId, i) => ({ variantExternalId: lines[i].variantExternalId, quantity: 2, unitPrice: 1_500, supplierId })),
  });
  return {
    operator,
    placed: order(["S1", "S2", "S3"]),
    refused: order(["S1", "S2", "S-STRICT"]),
    evaluate: { orders: [{ accountId: "A-PATH", supplierId: "S1", amount: 3_000 }] },
  };
}

/** Evaluate, a placed order and a refused order on this tree and on the baseline's, alternating round after round. */
async function measureOrderPath(ctx) {
  const { commit, dir } = extractTree(BASELINE_REF);
  progress(`order path baseline: ${BASELINE_REF} = ${commit.slice(0, 12)}`);
  const baselineServer = await ctx.startServer({ root: dir, stateDir: join(dir, ".bench-state") });
  try {
    const sides = { current: ctx, baseline: ctx.createContext(baselineServer.baseUrl) };
    const seeded = { current: await seedOrderPath(sides.current), baseline: await seedOrderPath(sides.baseline) };
    const cases = [
      { name: "evaluate, 1 order", call: (side, s) => side.expect(s.operator, "POST", "/v1/buying-policies/quotas/evaluate", s.evaluate, 200) },
      { name: "place an order of 3 suppliers (201; 3 facts in its batch)", call: (side, s) => side.expect(s.operator, "POST", "/v1/orders", s.placed, 201) },
      {
        name: "a refused order of 3 suppliers (422; its event and 3 facts in one batch)",
        call: (side, s) => side.expect(s.operator, "POST", "/v1/orders", s.refused, 422),
      },
      { name: "constant route (each server's floor)", call: (side, s) => side.expect(s.operator, "GET", "/v1/__bench/constant", undefined, 200) },
    ];
    const rows = [];
    for (const measured of cases) {
      const samples = { current: [], baseline: [] };
      const timed = (name) => async (round) => {
        const { ms } = await measured.call(sides[name], seeded[name]);
        if (round >= 0) samples[name].push(ms);
        return ms;
      };
      await ctx.sideBySide(
        { current: timed("current"), baseline: timed("baseline") },
        { rounds: PATH_ROUNDS, warmup: PATH_WARMUP, label: `${measured.name}: this tree vs ${commit.slice(0, 7)}` },
      );
      const p50 = { current: percentile(samples.current, 0.5), baseline: percentile(samples.baseline, 0.5) };
      rows.push({
        name: measured.name,
        p50: ctx.round(p50.current),
        p90: ctx.round(percentile(samples.current, 0.9)),
        baselineP50: ctx.round(p50.baseline),
        baselineP90: ctx.round(percentile(samples.baseline, 0.9)),
        ratioP50: Math.round((p50.current / p50.baseline) * 1000) / 1000,
      });
    }
    return { commit, rows };
  } finally {
    await baselineServer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function impact(ctx) {
  const started = performance.now();
  const tenants = [];
  const seedStarted = performance.now();
  for (const size of SIZES) {
    progress(`seeding a window of ${label(size)} orders (${SMALL_RULES} rules) …`);
    const { operator } = await ctx.newTenant();
    await seedRules(ctx, operator, SMALL_RULES);
    await seedFacts(ctx, operator, size);
    tenants.push({ size, rules: SMALL_RULES, operator, body: await changeBody(ctx, operator) });
  }
  const largest = SIZES[SIZES.length - 1];
  progress(`seeding a window of ${label(largest)} orders (${LARGE_RULES.toLocaleString("en")} rules) …`);
  const { operator: largeOperator } = await ctx.newTenant();
  await seedRules(ctx, largeOperator, LARGE_RULES);
  await seedFacts(ctx, largeOperator, largest);
  const large = { size: largest, rules: LARGE_RULES, operator: largeOperator, body: await changeBody(ctx, largeOperator) };
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const rows = [];
  let sample;
  for (const tenant of [...tenants, large]) {
    progress(`impact over ${label(tenant.size)} orders, ${tenant.rules.toLocaleString("en")} rules …`);
    const { times, answer } = await measureImpact(ctx, tenant, SAMPLES[tenant.size] ?? 3);
    sample ??= answer;
    const p50 = median(times);
    const whole = tenant.rules <= 2_000;
    rows.push({
      name: `${label(tenant.size)} orders, ${tenant.rules.toLocaleString("en")} rules (${whole ? "read whole" : "read per page's keys"})`,
      orders: tenant.size,
      p50: ctx.round(p50),
      min: ctx.round(Math.min(...times)),
      "µs per order": Math.round((p50 * 1000 * 100) / tenant.size) / 100,
      samples: times.length,
      ...(whole && GOAL_MS[tenant.size] && { goal: `≤ ${GOAL_MS[tenant.size]} ms`, measured: `${ctx.round(p50)} ms p50` }),
      newlyBlocked: answer.newlyBlocked,
    });
  }

  progress("the replay's live heap, bundled for Node against SQLite …");
  const heap = await measureReplayHeap(SIZES);
  progress("the order path, side by side with the commit before the facts …");
  const path = await measureOrderPath(ctx);

  const perOrder = rows.filter((row) => row.name.includes("read whole")).map((row) => row["µs per order"]);
  return {
    title: `Impact of a rule change over windows of ${SIZES.map(label).join(" / ")} orders`,
    tables: [
      { title: "Impact calls (ms, client wall time over loopback)", rows },
      { title: "The replay's live heap as the window grows (Node, same V8; after a full GC at each database call)", rows: heap },
      { title: `The order path, this tree vs ${path.commit.slice(0, 12)} (before the facts), side by side (ms)`, rows: path.rows },
    ],
    notes: [
      `Windows seeded by the bench-only PUT /v1/__bench/seed-facts (quota order facts generated in SQL straight into the shard's table, ${SEED_CHUNK.toLocaleString("en")} a call; not the API) and rules by PUT /v1/__bench/seed-rules: ${Math.round(seedSeconds)} s in all. Facts: ${ACCOUNTS} accounts, each in one of 20 stores, 5 suppliers and orders without one, amounts 100–50,000, over the last ${DAYS} days.`,
      `Each call replays the whole window (the totals cover it) against today's rules and with the changes: one supplier's minimum raised by 10,000, a WARN rule for one account and supplier, and a default of 7,500; it answers the first 50 accounts. Samples after one untimed call; p50 of ${Object.entries(
        SAMPLES,
      )
        .map(([n, s]) => `${s} (${label(Number(n))})`)
        .join(", ")}.`,
      `Flat per order: ${perOrder.join(" / ")} µs per order at ${SIZES.map(label).join(" / ")}.`,
      `A sample answer: ${JSON.stringify({ ...sample, accounts: `${sample.accounts.length} listed`, nextToken: sample.nextToken ? "…" : null })}.`,
      `Order path: ${PATH_ROUNDS} rounds after ${PATH_WARMUP} untimed, alternating which server goes first; the baseline tree (${BASELINE_REF}) served by this checkout's wrangler on its own local D1.`,
      `Suite time ${Math.round((performance.now() - started) / 1000)} s.`,
    ],
  };
}
