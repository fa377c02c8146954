// Issue 24: quota evaluation and bulk rule writes as tenants grow (10^3 … 10^6 rules), side by side
// in one run: bulk PUT of 5000 rules, warm evaluate (1 and 100 orders), the first evaluate on a fresh
// instance (the local server restarted), large tenants alternating in one instance, the rule cache's
// bytes per cached rule and its bound, and a warm evaluate against a bare Worker route.
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";
import { seededRandom } from "../lib.mjs";

/** Tenant sizes (RULES_SCALE_SIZES=1000,10000 for a quick trial of the suite itself). */
const SIZES = process.env.RULES_SCALE_SIZES ? process.env.RULES_SCALE_SIZES.split(",").map(Number) : [1_000, 10_000, 100_000, 200_000, 1_000_000];
const EXTRA_SIZE = Math.min(100_000, SIZES[SIZES.length - 1]);
/** Rules per seeding call (generated in SQL by the bench-only /v1/__bench/seed-rules). */
const SEED_CHUNK = 100_000;
const BULK = 5_000;
const BULK_SAMPLES = 7;
const ROUNDS = 150;
const WARMUP = 10;
const ALTERNATING_ROUNDS = 150;
const RESTARTS = 3;
const ORDER_POOL = 256;

const EVALUATE = "/v1/buying-policies/quotas/evaluate";
const RULES = "/v1/buying-policies/quotas/rules";

const progress = (line) => console.error(`[rules-scale] ${line}`);
const label = (n) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1_000}k`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
/** i mod n, never negative (warm-up rounds count from below zero). */
const wrap = (i, n) => ((i % n) + n) % n;
const ratio = (a, b) => Math.round((a / b) * 100) / 100;

/** Orders on a tenant seeded with `size` rules (see seedRules): accounts with rules, some without, every level. */
function ordersFor(size, seed) {
  const next = seededRandom(seed);
  const pick = (n) => Math.floor(next() * n);
  const accounts = Math.max(1, Math.floor((size - 1000) / 4));
  return Array.from({ length: ORDER_POOL }, (_, i) => {
    const a = pick(accounts);
    return {
      accountId: i % 9 === 0 ? `nobody-${i}` : `A${a}`,
      supplierId: i % 4 === 0 ? null : i % 4 === 1 ? `S${a % 500}` : `S${pick(500)}`,
      storeId: i % 3 === 0 ? null : `st${pick(20)}`,
      amount: 100 * pick(600),
    };
  });
}

/** 5000 new rules (a scope no seeded rule has): what a bulk PUT creates. */
function bulkBodies(tag) {
  return Array.from({ length: BULK }, (_, i) => ({
    accountId: `bulk-${tag}-${i >> 1}`,
    supplierId: i & 1 ? `S${i % 500}` : null,
    minimum: 100 * (1 + (i % 50)),
  }));
}

async function seedTenant(ctx, size) {
  const { tenantId, operator } = await ctx.newTenant();
  const started = performance.now();
  for (let from = 0; from < size; from += SEED_CHUNK) {
    await ctx.expect(operator, "PUT", "/v1/__bench/seed-rules", { from, count: Math.min(SEED_CHUNK, size - from) }, 200);
    if (size > SEED_CHUNK) progress(`seeding ${label(size)}: ${Math.min(size, from + SEED_CHUNK).toLocaleString("en")} rules`);
  }
  await ctx.expect(operator, "PUT", "/v1/buying-policies/quotas/default", { minimum: 5_000 }, 200);
  return { tenantId, operator, size, seedSeconds: (performance.now() - started) / 1000 };
}

/**
 * Real isolate bytes per cached rule: the cache module bundled for Node (same V8 as workerd), filled
 * from a fake source with rules parsed from JSON (as D1's come), heap measured around it after GC.
 */
async function measureCacheBytes() {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const dir = mkdtempSync(join(tmpdir(), "rule-cache-"));
  try {
    const outfile = join(dir, "cache.mjs");
    await build({
      entryPoints: [join(repoRoot, "src/quotas/rule-index-cache.ts")],
      bundle: true,
      format: "esm",
      platform: "neutral",
      outfile,
      logLevel: "silent",
    });
    const { RuleIndexCache } = await import(pathToFileURL(outfile).href);
    const rulesOf = (count, make) => JSON.parse(JSON.stringify(Array.from({ length: count }, (_, i) => make(i))));
    const measure = async (fill) => {
      const cache = new RuleIndexCache({ maxBytes: 2 ** 40, maxTenants: 1e6 });
      gc();
      const before = process.memoryUsage().heapUsed;
      await fill(cache);
      gc();
      const after = process.memoryUsage().heapUsed;
      return { realPerRule: (after - before) / cache.cachedRules, estimatedPerRule: cache.bytes / cache.cachedRules, rules: cache.cachedRules, keep: cache };
    };
    const rule = (i, t) => ({
      id: `qr_${(t * 1e7 + i).toString(16).padStart(26, "0")}`,
      accountId: `A${i >> 2}`,
      supplierId: i & 1 ? `S${i % 500}` : null,
      storeId: i % 3 ? null : `st${i % 20}`,
      minimum: i,
    });
    // Small tenants, cached whole: 20 tenants of 2000 rules.
    const whole = await measure(async (cache) => {
      for (let t = 0; t < 20; t++) {
        const rules = rulesOf(2000, (i) => rule(i, t));
        const source = {
          origin: "s",
          currentHead: async () => ({ version: 1, defaultMinimum: 0 }),
          load: async () => ({ version: 1, defaultMinimum: 0, whole: rules, matching: [], origin: "s" }),
          loadGroups: async () => null,
        };
        await cache.get(`t${t}`, [{ accountId: "A1", supplierId: null, storeId: null }], source);
      }
    });
    // A large tenant, cached per order target: 20,000 targets, the rules each can match.
    const perTarget = await measure(async (cache) => {
      for (let call = 0; call < 200; call++) {
        const targets = Array.from({ length: 100 }, (_, i) => ({
          accountId: `A${call * 100 + i}`,
          supplierId: `S${(call * 100 + i) % 500}`,
          storeId: i % 2 ? `st${i % 20}` : null,
        }));
        const matching = JSON.parse(
          JSON.stringify(
            targets.flatMap(({ accountId, supplierId, storeId }, i) => [
              { id: `qr_a${call}_${i}`.padEnd(29, "0"), accountId, supplierId: null, storeId: null, minimum: i },
              { id: `qr_b${call}_${i}`.padEnd(29, "0"), accountId, supplierId, storeId: null, minimum: i },
              { id: `qr_c${call}_${i}`.padEnd(29, "0"), accountId, supplierId, storeId, minimum: i },
            ]),
          ),
        );
        const source = {
          origin: "s",
          currentHead: async () => ({ version: 1, defaultMinimum: 0 }),
          load: async () => ({ version: 1, defaultMinimum: 0, whole: null, matching, origin: "s" }),
          loadGroups: async () => null,
        };
        await cache.get("big", targets, source);
      }
    });
    return { whole, perTarget, bound: new RuleIndexCache().memoryBound };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function rulesScale(ctx) {
  const suiteStarted = performance.now();
  // Tenants of each size, then three more large ones for the alternating rows.
  const tenants = [];
  for (const size of SIZES) {
    progress(`seeding a tenant of ${label(size)} rules …`);
    tenants.push(await seedTenant(ctx, size));
  }
  const extra = [];
  for (let i = 0; i < 3; i++) {
    progress(`seeding extra large tenant ${i + 1}/3 (${label(EXTRA_SIZE)} rules) …`);
    extra.push(await seedTenant(ctx, EXTRA_SIZE));
  }
  const seedSeconds = tenants.concat(extra).reduce((sum, t) => sum + t.seedSeconds, 0);
  for (const [i, tenant] of [...tenants, ...extra].entries()) tenant.orders = ordersFor(tenant.size, 100 + i);

  // Bulk PUT of 5000 new rules: into an empty tenant, and into each size (interleaved, so drift hits all alike).
  progress("bulk PUT of 5000 rules into each size …");
  const bulk = { empty: [], ...Object.fromEntries(SIZES.map((size) => [size, []])) };
  const bulkUnchanged = Object.fromEntries(SIZES.map((size) => [size, []]));
  const bulkRaw = Object.fromEntries(SIZES.map((size) => [size, []]));
  for (let sample = 0; sample < BULK_SAMPLES; sample++) {
    const { operator: fresh } = await ctx.newTenant();
    // Each sample in another order: SQLite's periodic WAL checkpoint lands on whichever PUT comes next.
    const targets = [{ size: "empty", operator: fresh }, ...tenants];
    const rotated = targets.slice(sample % targets.length).concat(targets.slice(0, sample % targets.length));
    for (const tenant of rotated) {
      bulk[tenant.size].push((await ctx.expect(tenant.operator, "PUT", RULES, bulkBodies(`s${sample}`), 200)).ms);
      // The same 5000 again: read and plan only (all unchanged, nothing written).
      if (tenant.size !== "empty") bulkUnchanged[tenant.size].push((await ctx.expect(tenant.operator, "PUT", RULES, bulkBodies(`s${sample}`), 200)).ms);
    }
  }
  // Apart from the PUTs above: its writes spread over the table, and their checkpoint would land on the next PUT.
  for (let sample = 0; sample < BULK_SAMPLES; sample++) {
    for (const tenant of tenants)
      bulkRaw[tenant.size].push((await ctx.expect(tenant.operator, "PUT", "/v1/__bench/raw-rules", bulkBodies(`r${sample}`), 200)).ms);
  }

  // Warm evaluate, each tenant's order pool evaluated once first (its targets cached), beside the bare routes.
  progress("warming every tenant's orders …");
  for (const tenant of [...tenants, ...extra]) {
    for (let i = 0; i < ORDER_POOL; i += 100) await ctx.expect(tenant.operator, "POST", EVALUATE, { orders: tenant.orders.slice(i, i + 100) }, 200);
  }
  progress("warm evaluate, side by side …");
  const functions = {};
  for (const tenant of tenants) {
    functions[`1 order @${label(tenant.size)}`] = (i) => ctx.expect(tenant.operator, "POST", EVALUATE, { orders: [tenant.orders[i & 255]] }, 200);
    functions[`100 orders @${label(tenant.size)}`] = (i) =>
      ctx.expect(tenant.operator, "POST", EVALUATE, { orders: tenant.orders.slice(wrap(i * 100, 157), wrap(i * 100, 157) + 100) }, 200);
  }
  functions["constant route (authenticated floor)"] = () => ctx.expect(tenants[0].operator, "GET", "/v1/__bench/constant", undefined, 200);
  // Where the evaluate's ms go beyond the bare route: each of its fixed costs added to the bare route alone.
  functions["bare route + the log line"] = () => ctx.expect(null, "GET", "/__bench/raw-logged", undefined, 200);
  functions["bare route + one limiter call"] = () => ctx.expect(null, "GET", "/__bench/raw-limited", undefined, 200);
  functions["bare Worker route"] = () => ctx.expect(null, "GET", "/__bench/raw", undefined, 200);
  const warm = await ctx.sideBySide(functions, { rounds: ROUNDS, warmup: WARMUP, label: "warm evaluate at every size, beside the floors" });

  // Large tenants alternating in one instance, against the largest alone (interleaved rounds).
  progress("large tenants alternating …");
  const large = [tenants[tenants.length - 1], tenants[tenants.length - 2], ...extra];
  const alone = (i) => ctx.expect(large[0].operator, "POST", EVALUATE, { orders: [large[0].orders[i & 255]] }, 200);
  const alternating = (count) => {
    let call = 0;
    return () => {
      const tenant = large[call % count];
      const order = tenant.orders[Math.floor(call / count) & 255];
      call++;
      return ctx.expect(tenant.operator, "POST", EVALUATE, { orders: [order] }, 200);
    };
  };
  const mixed = await ctx.sideBySide(
    { "two large tenants alternating": alternating(2), "five large tenants alternating": alternating(5), "the largest tenant alone": alone },
    { rounds: ALTERNATING_ROUNDS, warmup: WARMUP, label: "large tenants alternating vs the largest alone" },
  );
  const cacheAfterMixed = (await ctx.expect(null, "GET", "/__bench/rule-cache", undefined, 200)).body;

  // The first evaluate of each tenant on a fresh instance: restart the local server, wake it on a
  // route that reads no rules, then one evaluate per tenant (each its tenant's first in this instance).
  const first = Object.fromEntries(SIZES.map((size) => [size, []]));
  const instanceFirst = [];
  for (let restart = 0; restart < RESTARTS; restart++) {
    progress(`restarting the local server (${restart + 1}/${RESTARTS}) for first evaluations …`);
    await ctx.restartServer();
    // The instance's first evaluate (code paths cold), on a tenant not measured below.
    instanceFirst.push((await ctx.expect(extra[0].operator, "POST", EVALUATE, { orders: [extra[0].orders[0]] }, 200)).ms);
    const order = restart % 2 === 0 ? [...tenants].reverse() : tenants;
    for (const tenant of order) {
      first[tenant.size].push((await ctx.expect(tenant.operator, "POST", EVALUATE, { orders: [tenant.orders[(restart * 37) & 255]] }, 200)).ms);
    }
  }

  progress("measuring the rule cache's bytes per cached rule (Node, same V8) …");
  const bytes = await measureCacheBytes();

  const bulkEmpty = median(bulk.empty);
  const rows = SIZES.map((size) => {
    const one = warm[`1 order @${label(size)}`];
    const hundred = warm[`100 orders @${label(size)}`];
    return {
      "tenant rules": size.toLocaleString("en"),
      "bulk PUT 5000 ms": ctx.round(median(bulk[size])),
      "×empty": ratio(median(bulk[size]), bulkEmpty),
      "same 5000 again (read+plan)": ctx.round(median(bulkUnchanged[size])),
      "raw upsert 5000, random ids": ctx.round(median(bulkRaw[size])),
      "warm 1 order p50": ctx.round(one.p50),
      p99: ctx.round(one.p99),
      "warm 100 orders p50": ctx.round(hundred.p50),
      "p99 ": ctx.round(hundred.p99),
      "first evaluate of the tenant, fresh instance (median)": ctx.round(median(first[size])),
    };
  });
  const base1k = warm["1 order @1k"].p50;
  const bare = warm["bare Worker route"];
  const constant = warm["constant route (authenticated floor)"];
  const alone1M = mixed["the largest tenant alone"];
  const largest = SIZES[SIZES.length - 1];
  const goals = [
    {
      goal: "bulk PUT 5000 into 200k+ ≤ 1.5× into empty",
      // The goal's own size first (the summary reads the first ratio), then the other large ones.
      measured: `${[...SIZES.filter((size) => size === 200_000), ...SIZES.filter((size) => size >= 100_000 && size !== 200_000)].map((size) => `${ratio(median(bulk[size]), bulkEmpty)}× at ${label(size)}`).join(", ")} (empty: ${ctx.round(bulkEmpty)} ms)`,
    },
    {
      goal: "first evaluate on a fresh instance ≤ 50 ms at 1M",
      measured: `${ctx.round(median(first[largest]))} ms at ${label(largest)} (samples ${first[largest].map((ms) => ctx.round(ms)).join(", ")})`,
    },
    {
      goal: "two large tenants alternating p50 ≤ 1.5× one alone",
      measured: `${ratio(mixed["two large tenants alternating"].p50, alone1M.p50)}× (${ctx.round(mixed["two large tenants alternating"].p50)} vs ${ctx.round(alone1M.p50)} ms)`,
    },
    {
      goal: "five large tenants alternating p50 ≤ 1.5× one alone",
      measured: `${ratio(mixed["five large tenants alternating"].p50, alone1M.p50)}× (${ctx.round(mixed["five large tenants alternating"].p50)} ms)`,
    },
    {
      goal: "warm evaluate p50 at 1M ≤ 1.2× at 1k",
      measured: `${ratio(warm[`1 order @${label(largest)}`].p50, base1k)}× (1 order), ${ratio(warm[`100 orders @${label(largest)}`].p50, warm["100 orders @1k"].p50)}× (100 orders), at ${label(largest)}`,
    },
    {
      goal: "rule cache memory ≤ 32 MB whatever the tenants",
      measured: `bound ${(bytes.bound / 2 ** 20).toFixed(1)} MiB (estimated bytes); held after the alternating rows: ${(cacheAfterMixed.bytes / 2 ** 20).toFixed(2)} MiB for ${cacheAfterMixed.cachedRules} rules`,
    },
    {
      goal: "warm evaluate ≤ 1.3× a bare route",
      measured: `${ratio(base1k, bare.p50)}× the bare route (${ctx.round(base1k)} vs ${ctx.round(bare.p50)} ms p50); ${ratio(base1k, constant.p50)}× the authenticated constant route (${ctx.round(constant.p50)} ms)`,
    },
  ];
  const cacheRows = [
    {
      cached: "small tenants, whole (20 × 2000 rules)",
      "real bytes/rule": Math.round(bytes.whole.realPerRule),
      "estimated bytes/rule": Math.round(bytes.whole.estimatedPerRule),
    },
    {
      cached: "a large tenant, per order target (20,000 targets)",
      "real bytes/rule": Math.round(bytes.perTarget.realPerRule),
      "estimated bytes/rule": Math.round(bytes.perTarget.estimatedPerRule),
    },
  ];
  const notes = [
    `Tenants seeded by the bench-only PUT /v1/__bench/seed-rules (rules generated in SQL into local D1, ${SEED_CHUNK.toLocaleString("en")} a call; not the API): ${Math.round(seedSeconds)} s for ${(SIZES.reduce((a, b) => a + b, 0) + 300_000).toLocaleString("en")} rules. Rule i < 1000: Supplier-only; then per account A<n>: Account, Account+Supplier, Account+Supplier+store, Account+store.`,
    `Bulk rows: median of ${BULK_SAMPLES} PUTs of ${BULK} new rules through the API (each a new scope), interleaved across sizes (each sample in a rotated order); ×empty is against the same PUT into a new, empty tenant. "Same 5000 again": the PUT repeated (read and plan only, nothing changes). "Raw upsert": the bench-only PUT /v1/__bench/raw-rules, one bare insert statement of 5000 new scopes (no read, no version bump, no event) whose ids are random (not time-ordered like the API's): it lands on pages all over the primary key, so it shows what a write's spread costs as the table grows.`,
    `Warm rows: ${ROUNDS} rounds side by side (interleaved) after ${WARMUP} warm-up rounds, each tenant's ${ORDER_POOL} rotating orders (a ninth naming accounts with no rules) evaluated once before; ms of wall time on the client. Tenants over ${cacheAfterMixed.wholeTenantRules} rules are cached per order target; smaller ones whole.`,
    `First evaluate: ${RESTARTS} restarts of the local server, each followed by the instance's first evaluate on a tenant not measured (code paths cold: ${instanceFirst.map((ms) => ctx.round(ms)).join(", ")} ms), then one evaluate per tenant (largest first, then smallest first, alternately), each its tenant's first in the fresh instance (its key and placement lookups included).`,
    `Alternating rows: large tenants are the ${label(large[0].size)}, the ${label(large[1].size)} and three more ${label(EXTRA_SIZE)} tenants; one order per call, the tenants taken in turn; against the ${label(large[0].size)} tenant alone, interleaved.`,
    `Stack: "bare Worker route" answers from the bench entry before the app (no auth, no log); "+ the log line" is the same plus one JSON line the size of the request log's; "+ one limiter call" the same plus one call to the evaluate budget's rate limiter (locally a Durable Object behind a service binding); the authenticated constant route runs the /v1 stack (key, log line; no route budget) and no work. Evaluate runs the whole stack: key, its budget's limiter (alongside its work), validation, the log line.`,
    `Cache bytes: the cache module bundled for Node (same V8 as workerd) and filled from a fake source with rules parsed from JSON; heap after GC, per cached rule. The bound is the cache's own estimate (pieces ≤ ${(cacheAfterMixed.maxBytes / 2 ** 20).toFixed(0)} MiB plus tenant heads).`,
    `Suite time ${Math.round((performance.now() - suiteStarted) / 1000)} s.`,
  ];
  return {
    title: "Quota rules at scale: 1k to 1M rules per tenant",
    tables: [
      { title: "Growth curves (ms)", rows },
      {
        title: "Large tenants alternating in one instance (1 order a call, ms)",
        rows: Object.entries({
          "two large tenants alternating": mixed["two large tenants alternating"],
          "five large tenants alternating": mixed["five large tenants alternating"],
          "the largest tenant alone": alone1M,
        }).map(([name, stats]) => ({ name, p50: ctx.round(stats.p50), p99: ctx.round(stats.p99), "×alone p50": ratio(stats.p50, alone1M.p50) })),
      },
      {
        title: "Warm evaluate against the stack's floors (1 order, 1k tenant, ms)",
        rows: [
          { route: "evaluate", p50: ctx.round(base1k), p99: ctx.round(warm["1 order @1k"].p99) },
          { route: "authenticated constant route", p50: ctx.round(constant.p50), p99: ctx.round(constant.p99) },
          ...["bare route + the log line", "bare route + one limiter call", "bare Worker route"].map((route) => ({
            route,
            p50: ctx.round(warm[route].p50),
            p99: ctx.round(warm[route].p99),
          })),
        ].map((row) => ({ ...row, "×bare p50": ratio(row.p50, bare.p50) })),
      },
      { title: "Rule cache bytes per cached rule", rows: cacheRows },
      { title: "Goals", rows: goals },
    ],
    notes,
  };
}
