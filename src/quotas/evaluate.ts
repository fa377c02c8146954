import type { Env } from "../platform/env";

/** One order to evaluate (API.md §7): storeId already defaulted from svc-store by the caller. */
export interface QuotaOrder {
  accountId: string;
  supplierId: string | null;
  storeId: string | null;
  amount: number;
}

export type QuotaSourceKind = "ACCOUNT_SUPPLIER" | "ACCOUNT" | "SUPPLIER" | "DEFAULT";

export interface QuotaResult {
  allowed: boolean;
  reason: null | "quota_min_not_met";
  effectiveMinimum: number;
  amount: number;
  shortfall: number;
  source: { kind: QuotaSourceKind; ruleId: string | null };
}

/**
 * Evaluates orders against the tenant's Quotas Rules through the cached rule index.
 * STUB until issue 4 lands: every order meets a default minimum of 0.
 */
export async function evaluateOrders(_env: Env, _tenantId: string, orders: QuotaOrder[]): Promise<QuotaResult[]> {
  return orders.map((order) => ({
    allowed: true,
    reason: null,
    effectiveMinimum: 0,
    amount: order.amount,
    shortfall: 0,
    source: { kind: "DEFAULT", ruleId: null },
  }));
}
