import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { buildRuleIndex, explainQuota, resolveQuota, type IndexedRule } from "../../src/common/rule-index";
import { call, expectStatus, newTenant, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";

const RULES = "/v1/buying-policies/quotas/rules";

/** The isolate's cache with every tenant over `wholeTenantRules`: the per-order-target path, on real D1. */
function cacheEveryTenantPerTarget(on: boolean) {
  Object.assign(ruleIndexCache, { wholeTenantRules: on ? 0 : 2000 });
  ruleIndexCache.clear();
}

const key = (prefix: string, n: number) => fc.integer({ min: 0, max: n - 1 }).map((i) => `${prefix}${i}`);
const ruleArb = fc.record({
  accountId: fc.option(key("A", 4), { nil: null }),
  supplierId: fc.option(key("S", 3), { nil: null }),
  storeId: fc.option(key("st", 2), { nil: null }),
  minimum: fc.integer({ min: 0, max: 5 }).map((n) => n * 100),
  enforcement: fc.constantFrom("BLOCK" as const, "WARN" as const),
});
const orderArb = fc.record({
  accountId: key("A", 5),
  supplierId: fc.option(key("S", 4), { nil: null }),
  storeId: fc.option(key("st", 3), { nil: null }),
  amount: fc.integer({ min: 0, max: 600 }),
});

async function allRules(op: Awaited<ReturnType<typeof newTenant>>): Promise<IndexedRule[]> {
  const page = expectStatus(await call<{ items: IndexedRule[] }>(op, "GET", `${RULES}?limit=500`), 200);
  return page.items.map(({ id, accountId, supplierId, storeId, minimum, enforcement }) => ({ id, accountId, supplierId, storeId, minimum, enforcement }));
}

describe("evaluation through the per-order-target cache answers as the pure resolver over all the tenant's rules", () => {
  afterEach(() => cacheEveryTenantPerTarget(false));

  // Both paths of the cache (a small tenant's whole index, a large tenant's per-target pieces) carry each rule's enforcement and the default's.
  it.each([
    ["per order target", true],
    ["whole tenant", false],
  ])("on random rule sets, orders and changes between calls (bulk upserts and deletes, here and elsewhere): %s", async (_, perTarget) => {
    cacheEveryTenantPerTarget(perTarget);
    await fc.assert(
      fc.asyncProperty(
        fc.array(ruleArb, { minLength: 0, maxLength: 25 }),
        fc.array(fc.array(orderArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
        fc.array(ruleArb, { maxLength: 6 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom("BLOCK" as const, "WARN" as const),
        async (rules, calls, later, deletions, defaultEnforcement) => {
          const op = await newTenant();
          const unique = [...new Map(rules.map((rule) => [JSON.stringify([rule.accountId, rule.supplierId, rule.storeId]), rule])).values()].filter(
            (rule) => rule.accountId !== null || rule.supplierId !== null,
          );
          if (unique.length) expectStatus(await callRoute(op, routes.upsertRules, { body: unique }), 200);
          expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 250, enforcement: defaultEnforcement } }), 200);
          for (const [round, orders] of calls.entries()) {
            if (round > 0) {
              // Between calls: more rules, and some deleted (the writer's isolate must see both at once).
              const more = [...new Map(later.map((rule) => [JSON.stringify([rule.accountId, rule.supplierId, rule.storeId]), rule])).values()].filter(
                (rule) => rule.accountId !== null || rule.supplierId !== null,
              );
              if (more.length) expectStatus(await callRoute(op, routes.upsertRules, { body: more }), 200);
              const ids = (await allRules(op)).slice(0, deletions).map((rule) => rule.id);
              if (ids.length) expectStatus(await callRoute(op, routes.deleteRules, { body: ids }), 200);
            }
            const truth = buildRuleIndex({ version: 0, defaultMinimum: 250, defaultEnforcement, rules: await allRules(op) });
            for (const explain of [false, true]) {
              const body = expectStatus(await callRoute(op, routes.evaluateQuotas, { body: { orders }, query: explain ? { explain: "true" } : {} }), 200);
              body.results.forEach((result, i) => {
                const expected = resolveQuota(truth, orders[i]);
                expect(result.source).toEqual({ kind: expected.kind, ruleId: expected.rule?.id ?? null });
                expect(result.effectiveMinimum).toBe(expected.minimum);
                expect(result.enforcement).toBe(expected.enforcement);
                expect(result.allowed).toBe(orders[i].amount >= expected.minimum || expected.enforcement === "WARN");
                expect(result.reason).toBe(orders[i].amount >= expected.minimum ? null : "quota_min_not_met");
                if (explain) expect(result.explanation).toEqual(explainQuota(truth, orders[i]));
              });
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
