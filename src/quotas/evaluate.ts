import type { Context } from "hono";
import { noteBookmark, type RequestTrace } from "../platform/data/trace";
import { inShardBackground, type AppBindings } from "../platform/http/context";
import { d1RuleSource } from "./queries";
import { evaluateExplained, evaluateQuota, type ExplainedQuotaResult, type QuotaOrder, type QuotaResult } from "../common/rule-index";
import { ruleIndexCache, type BackgroundRunner, type RuleSource } from "./rule-index-cache";

export type { QuotaOrder, QuotaResult } from "../common/rule-index";

/** Where an evaluation reads the rule index from, and how it may check it after answering. */
export interface RuleReading {
  source: RuleSource;
  trace: RequestTrace;
  inBackground?: BackgroundRunner;
}

/** How a request reads the rule index: its own session, and checks after its answer on a session of their own. */
export function ruleReadingOf(c: Context<AppBindings>): RuleReading {
  const { db, trace } = c.var;
  const { shard } = c.var.principal;
  const inBackground = inShardBackground(c);
  return {
    source: d1RuleSource(db, shard),
    trace,
    inBackground: (check) => inBackground((own) => check(d1RuleSource(own, shard))),
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
  return orders.map((order) => evaluateQuota(index, order));
}

/** evaluateOrders, each result with the candidate rules of every level and why each lost. */
export async function explainOrders(reading: RuleReading, tenantId: string, orders: QuotaOrder[]): Promise<ExplainedQuotaResult[]> {
  const index = await ruleIndexCache.getForExplanation(tenantId, orders, reading.source, reading.inBackground);
  noteBookmark(reading.trace, index.bookmark);
  return orders.map((order) => evaluateExplained(index, order));
}
