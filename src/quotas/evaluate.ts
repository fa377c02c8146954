import { noteBookmark } from "../platform/data/trace";
import type { RuleReading } from "./queries";
import { evaluateExplained, evaluateQuota, type ExplainedQuotaResult, type QuotaOrder, type QuotaResult } from "./rule-index";
import { ruleIndexCache } from "./rule-index-cache";

export type { QuotaOrder, QuotaResult } from "./rule-index";

/**
 * Evaluates orders against the tenant's Quotas Rules through the isolate's rule cache: on a warm
 * isolate under steady traffic this issues no D1 query on the request path (the version check runs
 * after the answer); a miss reads the rules the orders can match in one round trip. The answer
 * carries the bookmark the rules were read at.
 */
export async function evaluateOrders(reading: RuleReading, tenantId: string, orders: QuotaOrder[]): Promise<QuotaResult[]> {
  const index = await ruleIndexCache.get(tenantId, orders, reading.source, reading.inBackground);
  noteBookmark(reading.trace, index.bookmark);
  return orders.map((order) => evaluateQuota(index, order));
}

/** evaluateOrders, each result with the candidate rules of every level and why each lost. */
export async function explainOrders(reading: RuleReading, tenantId: string, orders: QuotaOrder[]): Promise<ExplainedQuotaResult[]> {
  const index = await ruleIndexCache.getForExplanation(tenantId, orders, reading.source, reading.inBackground);
  noteBookmark(reading.trace, index.bookmark);
  return orders.map((order) => evaluateExplained(index, order));
}
