import { requirePermittedAccounts } from "../../directory/membership";
import { inShardBackground } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { evaluateOrders, explainOrders, ruleReadingOf, type QuotaOrder } from "../evaluate";
import { evaluateBody, evaluateQuery, evaluateResponse, MAX_EVALUATE_ORDERS } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/buying-policies/quotas/evaluate",
    operationId: "evaluateQuotas",
    summary: "Evaluate orders against the Quotas Rules",
    description: [
      `1–${MAX_EVALUATE_ORDERS} orders a call (e.g. one per supplier of a cart); results come in the same order.`,
      "Resolution per order: rules match when each of their set keys equals the order's (storeId null matches every store; an order's storeId defaults to svc-store, and null means no store).",
      "The first level with a matching rule decides: Account+Supplier, then Account, then Supplier, else the tenant default.",
      "Within a level the highest minimum wins; equal minimums: the smallest id (the oldest rule). `source` says which rule (or the default) decided.",
      "A rule change is seen here at once by the Worker instance that made it, and everywhere within 1 s.",
      "An ACCOUNT key evaluates only accounts whose directory users include its user: any other accountId answers 403 account_not_permitted, listing them in `accountIds`.",
      "",
      "`explain=true` adds `explanation` to each result: for each level, the rules of the order's keys, best first, each with an `outcome`:",
      "`selected` (decided the order), `lower_minimum` (same level, a higher minimum won), `tie_older_rule_wins` (same level and minimum, an older rule won),",
      "`shadowed_by_higher_level` (matched, but a higher level decided), `store_mismatch` (a rule of the same account/supplier for another store;",
      "at most 10 listed per level, the rest counted in `omittedStoreMismatches`). `default.outcome` says whether the default decided.",
      "An explanation shows rules, which only OPERATOR keys may read: `explain` (any value) with an ACCOUNT key answers 403 forbidden, before the body is read.",
    ].join("\n"),
    tag: "Quotas",
    roles: ["OPERATOR", "ACCOUNT"],
    writes: false,
    rateLimit: "evaluate",
    operatorOnlyQuery: ["explain"],
    query: evaluateQuery,
    body: evaluateBody,
    batch: { maxItems: MAX_EVALUATE_ORDERS, field: "orders" },
    headers: ["svc-store"],
    responses: { 200: { description: "One result per order.", schema: evaluateResponse } },
    errors: ["batch_too_large", "account_not_permitted"],
  },
  async function handleEvaluateQuotas(c, { query, body }) {
    const principal = c.var.principal;
    const storeScope = c.var.scope.storeId;
    const orders: QuotaOrder[] = body.orders.map((order) => ({
      accountId: order.accountId,
      supplierId: order.supplierId ?? null,
      storeId: order.storeId === undefined ? storeScope : order.storeId,
      amount: order.amount,
    }));
    // ACCOUNT keys evaluate their own accounts only (an OPERATOR key costs no query here).
    await requirePermittedAccounts(
      c.var.db,
      principal,
      orders.map((order) => order.accountId),
      "nothing was evaluated",
      inShardBackground(c),
    );
    const { tenantId } = principal;
    const reading = ruleReadingOf(c);
    const results = query.explain ? await explainOrders(reading, tenantId, orders) : await evaluateOrders(reading, tenantId, orders);
    return c.json({ results });
  },
);
