import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { impactPaging } from "../../src/quotas/impact";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { type Caller, callRoute, collectPages, expectStatus, newTenant } from "../helpers/client";
import { routes } from "../helpers/routes";
import { cartBody, line, setUpOperation } from "../helpers/setup";

/*
 * The impact cannot drift from evaluation: on random rule sets, orders (placed and refused) and
 * changes, its answer is what evaluate says of the same orders before the changes, and after the
 * changes are really made, one write after another.
 */
const SKUS = ["SKU-A", "SKU-B", "SKU-C"];
const key = (prefix: string, n: number) => fc.integer({ min: 0, max: n - 1 }).map((i) => `${prefix}${i}`);
const enforcementArb = fc.constantFrom("BLOCK" as const, "WARN" as const);
const ruleArb = fc.record({
  accountId: fc.option(key("A", 3), { nil: null }),
  supplierId: fc.option(key("S", 3), { nil: null }),
  storeId: fc.option(key("st", 2), { nil: null }),
  minimum: fc.integer({ min: 0, max: 8 }).map((n) => n * 100),
  enforcement: enforcementArb,
});
// Few keys, so that a key's orders often run over a page boundary (pages of 2 facts below).
const orderArb = fc.record({
  accountId: key("A", 2),
  storeId: fc.option(key("st", 1), { nil: null }),
  lines: fc.uniqueArray(
    fc.record({
      sku: fc.constantFrom(...SKUS),
      quantity: fc.integer({ min: 1, max: 3 }),
      unitPrice: fc.integer({ min: 0, max: 400 }),
      supplierId: fc.option(key("S", 2), { nil: null }),
    }),
    { minLength: 1, maxLength: 3, selector: (l) => l.sku },
  ),
});
/** A change drawn as intents; which rule a replace or delete names is picked among the rules there at that point. */
const changeArb = fc.oneof(
  fc.record({ op: fc.constant("create" as const), rule: ruleArb }),
  fc.record({ op: fc.constant("replace" as const), pick: fc.nat(), rule: ruleArb }),
  fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }),
);
const defaultArb = fc.option(fc.record({ minimum: fc.integer({ min: 0, max: 6 }).map((n) => n * 100), enforcement: enforcementArb }), { nil: undefined });

type RuleFields = { accountId: string | null; supplierId: string | null; storeId: string | null; minimum: number; enforcement: "BLOCK" | "WARN" };
type Intent = typeof changeArb extends fc.Arbitrary<infer C> ? C : never;
type Change = { op: "create"; rule: RuleFields } | { op: "replace"; ruleId: string; rule: RuleFields } | { op: "delete"; ruleId: string };
interface QuotaOrder {
  accountId: string;
  supplierId: string | null;
  storeId: string | null;
  amount: number;
}

const scopeOf = (rule: { accountId: string | null; supplierId: string | null; storeId: string | null }) =>
  JSON.stringify([rule.accountId, rule.supplierId, rule.storeId]);
const scoped = (rule: RuleFields) => rule.accountId !== null || rule.supplierId !== null;

/** The drawn intents as changes valid one after another (a scope is never taken twice), against the rules there. */
function validChanges(intents: Intent[], rules: { id: string; accountId: string | null; supplierId: string | null; storeId: string | null }[]): Change[] {
  const alive = new Map(rules.map((rule) => [rule.id, scopeOf(rule)]));
  const taken = new Set(alive.values());
  const changes: Change[] = [];
  for (const intent of intents) {
    const ids = [...alive.keys()];
    if (intent.op === "create") {
      if (!scoped(intent.rule) || taken.has(scopeOf(intent.rule))) continue;
      taken.add(scopeOf(intent.rule));
      changes.push({ op: "create", rule: intent.rule });
      continue;
    }
    if (!ids.length) continue;
    const ruleId = ids[intent.pick % ids.length];
    if (intent.op === "delete") {
      taken.delete(alive.get(ruleId)!);
      alive.delete(ruleId);
      changes.push({ op: "delete", ruleId });
      continue;
    }
    const scope = scopeOf(intent.rule);
    if (!scoped(intent.rule) || (taken.has(scope) && alive.get(ruleId) !== scope)) continue;
    taken.delete(alive.get(ruleId)!);
    taken.add(scope);
    alive.set(ruleId, scope);
    changes.push({ op: "replace", ruleId, rule: intent.rule });
  }
  return changes;
}

/** One quota order per supplier of an order, in order of first appearance, as placing it evaluates them. */
function quotaOrdersOf(order: {
  accountId: string;
  storeId: string | null;
  lines: { quantity: number; unitPrice: number; supplierId: string | null }[];
}): QuotaOrder[] {
  const amounts = new Map<string | null, number>();
  for (const l of order.lines) amounts.set(l.supplierId, (amounts.get(l.supplierId) ?? 0) + l.quantity * l.unitPrice);
  return [...amounts].map(([supplierId, amount]) => ({ accountId: order.accountId, supplierId, storeId: order.storeId, amount }));
}

type Verdict = { verdict: "met" | "warned" | "blocked"; minimum: number };

async function evaluateAll(op: Caller, orders: QuotaOrder[]): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (let i = 0; i < orders.length; i += 100) {
    const { results } = expectStatus(await callRoute(op, routes.evaluateQuotas, { body: { orders: orders.slice(i, i + 100) } }), 200);
    for (const result of results) verdicts.push({ verdict: !result.allowed ? "blocked" : result.reason ? "warned" : "met", minimum: result.effectiveMinimum });
  }
  return verdicts;
}

async function applyForReal(op: Caller, changes: Change[], proposedDefault: { minimum: number; enforcement: "BLOCK" | "WARN" } | undefined) {
  for (const change of changes) {
    if (change.op === "create") expectStatus(await callRoute(op, routes.createRule, { body: change.rule }), 201);
    else if (change.op === "replace") expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: change.ruleId }, body: change.rule }), 200);
    else expectStatus(await callRoute(op, routes.deleteRule, { params: { ruleId: change.ruleId } }), 204);
  }
  if (proposedDefault) expectStatus(await callRoute(op, routes.putQuotaDefault, { body: proposedDefault }), 200);
}

/** What the impact must answer, from evaluate's verdicts on every quota order before and after. */
function expectedImpact(orders: QuotaOrder[], before: Verdict[], after: Verdict[]) {
  const totals = { ordersConsidered: orders.length, before: { blocked: 0, warned: 0 }, after: { blocked: 0, warned: 0 }, newlyBlocked: 0, newlyAllowed: 0 };
  const keys = new Map<
    string,
    {
      accountId: string;
      supplierId: string | null;
      storeId: string | null;
      orders: number;
      newlyBlocked: number;
      newlyAllowed: number;
      minimumBefore: number;
      minimumAfter: number;
    }
  >();
  orders.forEach((order, i) => {
    const [was, would] = [before[i], after[i]];
    if (was.verdict !== "met") totals.before[was.verdict]++;
    if (would.verdict !== "met") totals.after[would.verdict]++;
    const k = scopeOf(order);
    const entry = keys.get(k) ?? {
      accountId: order.accountId,
      supplierId: order.supplierId,
      storeId: order.storeId,
      orders: 0,
      newlyBlocked: 0,
      newlyAllowed: 0,
      minimumBefore: was.minimum,
      minimumAfter: would.minimum,
    };
    keys.set(k, entry);
    entry.orders++;
    if (was.verdict === "blocked" && would.verdict !== "blocked") {
      entry.newlyAllowed++;
      totals.newlyAllowed++;
    }
    if (would.verdict === "blocked" && was.verdict !== "blocked") {
      entry.newlyBlocked++;
      totals.newlyBlocked++;
    }
  });
  const compareText = (a: string | null, b: string | null) => ((a ?? "") < (b ?? "") ? -1 : (a ?? "") > (b ?? "") ? 1 : 0);
  const accounts = [...keys.values()]
    .filter((entry) => entry.newlyBlocked || entry.newlyAllowed || entry.minimumBefore !== entry.minimumAfter)
    .sort(
      (a, b) =>
        b.newlyBlocked - a.newlyBlocked ||
        b.newlyAllowed - a.newlyAllowed ||
        compareText(a.accountId, b.accountId) ||
        compareText(a.supplierId, b.supplierId) ||
        compareText(a.storeId, b.storeId),
    );
  return { ...totals, accounts };
}

describe("the impact of a change is what evaluation says of the same orders before and after the change is made", () => {
  afterEach(() => {
    Object.assign(ruleIndexCache, { wholeTenantRules: 2000 });
    ruleIndexCache.clear();
    impactPaging.factsPerPage = 20_000;
  });

  it.each([
    ["a small tenant read whole, one page of facts", 2000, 20_000],
    ["a large tenant read per page's keys, keys over several pages", 0, 2],
  ])("on random rules, orders (placed and refused), changes and defaults: %s", async (_, wholeTenantRules, factsPerPage) => {
    Object.assign(ruleIndexCache, { wholeTenantRules });
    ruleIndexCache.clear();
    impactPaging.factsPerPage = factsPerPage;
    await fc.assert(
      fc.asyncProperty(
        fc.array(ruleArb, { maxLength: 12 }),
        fc.record({ minimum: fc.integer({ min: 0, max: 6 }).map((n) => n * 100), enforcement: enforcementArb }),
        fc.array(orderArb, { minLength: 1, maxLength: 8 }),
        fc.array(changeArb, { maxLength: 6 }),
        defaultArb,
        async (rules, today, placed, intents, proposedDefault) => {
          const op = await newTenant();
          const operation = await setUpOperation(op, {
            type: "PUBLIC",
            lines: SKUS.map((variantExternalId) => ({ variantExternalId, minQuantity: 0, maxQuantity: 100 })),
          });
          const unique = [...new Map(rules.filter(scoped).map((rule) => [scopeOf(rule), rule])).values()];
          if (unique.length) expectStatus(await callRoute(op, routes.upsertRules, { body: unique }), 200);
          expectStatus(await callRoute(op, routes.putQuotaDefault, { body: today }), 200);
          const orders: QuotaOrder[] = [];
          for (const order of placed) {
            const lines = order.lines.map((l) => line(l.sku, l.quantity, l.unitPrice, l.supplierId));
            const res = await callRoute(op, routes.createOrder, { body: cartBody(operation.id, order.accountId, lines, { storeId: order.storeId }) });
            expect([201, 422], res.text).toContain(res.status);
            orders.push(...quotaOrdersOf(order));
          }
          const stored = (await collectPages(op, routes.listRules, { query: { limit: 500 } })).items;
          const changes = validChanges(intents, stored);
          if (!changes.length && !proposedDefault) return;

          const answer = expectStatus(
            await callRoute(op, routes.assessQuotaImpact, { body: { changes, default: proposedDefault }, query: { limit: 500 } }),
            200,
          );
          const before = await evaluateAll(op, orders);
          await applyForReal(op, changes, proposedDefault);
          const after = await evaluateAll(op, orders);
          expect(answer).toEqual({ ...expectedImpact(orders, before, after), nextToken: null });
        },
      ),
      { numRuns: 15 },
    );
  });
});
