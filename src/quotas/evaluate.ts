import { noteBookmark } from "../platform/trace";
import type { RuleReading } from "./queries";
import { explainQuota, resolveQuota, type Explanation, type QuotaEnforcement, type QuotaSourceKind, type RuleIndex } from "./rule-index";
import { ruleIndexCache } from "./rule-index-cache";

export type { QuotaSourceKind } from "./rule-index";

/** One order to evaluate: storeId already defaulted from svc-store by the caller. */
export interface QuotaOrder {
  accountId: string;
  supplierId: string | null;
  storeId: string | null;
  amount: number;
}

export interface QuotaResult {
  allowed: boolean;
  reason: null | "quota_min_not_met";
  effectiveMinimum: number;
  amount: number;
  shortfall: number;
  source: { kind: QuotaSourceKind; ruleId: string | null };
  enforcement: QuotaEnforcement;
}

export interface ExplainedQuotaResult extends QuotaResult {
  explanation: Explanation;
}

function evaluateOne(index: RuleIndex, order: QuotaOrder): QuotaResult {
  const { kind, rule, minimum, enforcement } = resolveQuota(index, order);
  const met = order.amount >= minimum;
  return {
    // A WARN minimum never refuses: the order goes through with the shortfall reported.
    allowed: met || enforcement === "WARN",
    reason: met ? null : "quota_min_not_met",
    effectiveMinimum: minimum,
    amount: order.amount,
    shortfall: met ? 0 : minimum - order.amount,
    source: { kind, ruleId: rule?.id ?? null },
    enforcement,
  };
}

/**
 * Evaluates orders against the tenant's Quotas Rules through the isolate's rule cache: on a warm
 * isolate under steady traffic this issues no D1 query on the request path (the version check runs
 * after the answer); a miss reads the rules the orders can match in one round trip. The answer
 * carries the bookmark the rules were read at.
 */
export async function evaluateOrders(reading: RuleReading, tenantId: string, orders: QuotaOrder[]): Promise<QuotaResult[]> {
  const index = await ruleIndexCache.get(tenantId, orders, reading.source, reading.inBackground);
  noteBookmark(reading.trace, index.bookmark);
  return orders.map((order) => evaluateOne(index, order));
}

/** evaluateOrders, each result with the candidate rules of every level and why each lost. */
export async function explainOrders(reading: RuleReading, tenantId: string, orders: QuotaOrder[]): Promise<ExplainedQuotaResult[]> {
  const index = await ruleIndexCache.getForExplanation(tenantId, orders, reading.source, reading.inBackground);
  noteBookmark(reading.trace, index.bookmark);
  return orders.map((order) => ({ ...evaluateOne(index, order), explanation: explainQuota(index, order) }));
}
