import { and, count, eq, gt, gte, lte, sql } from "drizzle-orm";
import { accounts } from "../directory/tables";
import { getVisibleOperation, listOperationRows, visibleTo } from "../operations/queries";
import { operationAccounts, operationAccountTotals, operationDailyTotals, operationLines, operations, operationTotals } from "../operations/tables";
import type { Principal } from "../platform/core/principal";
import { nowIso } from "../platform/core/time";
import type { Db } from "../platform/data/database";
import { inJsonList } from "../platform/data/sql";
import type { ListContext } from "../platform/data/pagination";
import { accountTotalsList, DEFAULT_DAYS, MAX_DAYS, type AccountTotalsQuery, type DailyTotalsQuery } from "./schemas";
import { ApiError } from "../platform/core/errors";

/*
 * Reading an Operation's totals: the rows its orders, cancellations and refusals keep (totals/commands.ts),
 * and figures of its lines counted over its lines (at most 5000), never over its orders.
 */

/** GET …/totals: the Operation's figures and its visibility check, in one round trip (one batch of reads). */
export async function readOperationTotals(db: Db, principal: Principal, operationId: string) {
  const asOf = nowIso();
  const t = operationTotals;
  const l = operationLines;
  const [[visible], [totals], [accountsOrdering], [lines]] = await db.batch([
    db
      .select({ id: operations.id })
      .from(operations)
      .where(and(eq(operations.tenantId, principal.tenantId), eq(operations.id, operationId), visibleTo(principal))),
    db
      .select({ orders: t.orders, amount: t.amount, cancelled: t.cancelled, quota: t.quotaRefusals, allocation: t.allocationRefusals })
      .from(t)
      .where(and(eq(t.operationId, operationId), eq(t.tenantId, principal.tenantId))),
    db
      .select({ accounts: count() })
      .from(operationAccountTotals)
      .where(and(eq(operationAccountTotals.operationId, operationId), gt(operationAccountTotals.orders, 0))),
    db
      .select({
        ordered: sql<number>`coalesce(sum(${l.orderedQuantity} > 0), 0)`,
        belowRecommended: sql<number>`coalesce(sum(${l.recommendedQuantity} is not null and ${l.orderedQuantity} < ${l.recommendedQuantity}), 0)`,
        exhausted: sql<number>`coalesce(sum(${l.poolQuantity} is not null and ${l.orderedQuantity} >= ${l.poolQuantity}), 0)`,
      })
      .from(l)
      .where(eq(l.operationId, operationId)),
  ]);
  if (!visible) throw new ApiError("not_found", `Operation ${operationId} not found.`);
  return {
    orders: totals?.orders ?? 0,
    cancelled: totals?.cancelled ?? 0,
    accounts: accountsOrdering?.accounts ?? 0,
    amount: totals?.amount ?? 0,
    refusals: { quota: totals?.quota ?? 0, allocation: totals?.allocation ?? 0 },
    lines: { ordered: lines?.ordered ?? 0, belowRecommended: lines?.belowRecommended ?? 0, exhausted: lines?.exhausted ?? 0 },
    asOf,
  };
}

/** GET …/totals/accounts: one page of the Operation's accounts with their figures (those that ordered, were refused, or are attached). */
export async function listAccountTotals(ctx: ListContext, operationId: string, query: AccountTotalsQuery) {
  const t = operationAccountTotals;
  const page = await listOperationRows(ctx, operationId, {
    definition: accountTotalsList,
    query,
    filters: [
      eq(t.operationId, operationId),
      eq(t.tenantId, ctx.principal.tenantId),
      query.ordered === undefined ? undefined : query.ordered ? gt(t.orders, 0) : eq(t.orders, 0),
      query.accountIds && inJsonList(t.accountId, query.accountIds),
    ],
    run: ({ where, orderBy, limit, cursorColumns }) =>
      ctx.db
        .select({
          accountId: t.accountId,
          accountName: accounts.name,
          attached: sql<number>`${operationAccounts.accountId} is not null`,
          orders: t.orders,
          amount: t.amount,
          cancelled: t.cancelled,
          lastOrderAt: t.lastOrderAt,
          quota: t.quotaRefusals,
          allocation: t.allocationRefusals,
          ...cursorColumns,
        })
        .from(t)
        .leftJoin(accounts, and(eq(accounts.tenantId, t.tenantId), eq(accounts.accountId, t.accountId)))
        .leftJoin(operationAccounts, and(eq(operationAccounts.operationId, t.operationId), eq(operationAccounts.accountId, t.accountId)))
        .where(where)
        .orderBy(...orderBy)
        .limit(limit),
  });
  return {
    items: page.items.map((row) => ({
      accountId: row.accountId,
      accountName: row.accountName,
      attached: Boolean(row.attached),
      orders: row.orders,
      amount: row.amount,
      cancelled: row.cancelled,
      lastOrderAt: row.lastOrderAt,
      refusals: { quota: row.quota, allocation: row.allocation },
    })),
    nextToken: page.nextToken,
  };
}

const DAY_MS = 86_400_000;
const dayAfter = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The days a daily request covers: as named, else the 30 days ending today (or starting at `from`); at most MAX_DAYS. */
export function dailySpan(query: DailyTotalsQuery, today = nowIso().slice(0, 10)): { from: string; to: string } {
  const to = query.to ?? (query.from === undefined ? today : dayAfter(query.from, DEFAULT_DAYS - 1));
  const from = query.from ?? dayAfter(to, -(DEFAULT_DAYS - 1));
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days > MAX_DAYS) {
    throw new ApiError("validation_failed", `from ${from} to ${to} is ${days} days; ask for at most ${MAX_DAYS} at a time.`, {
      errors: [{ field: "query.from", code: "too_big", message: `at most ${MAX_DAYS} days from to` }],
    });
  }
  return { from, to };
}

/** GET …/totals/daily: every day of the span, the days without figures as zeros. */
export async function readDailyTotals(db: Db, principal: Principal, operationId: string, query: DailyTotalsQuery) {
  const { from, to } = dailySpan(query);
  const d = operationDailyTotals;
  const [, rows] = await Promise.all([
    getVisibleOperation(db, principal, operationId),
    db
      .select()
      .from(d)
      .where(and(eq(d.operationId, operationId), eq(d.tenantId, principal.tenantId), gte(d.day, from), lte(d.day, to))),
  ]);
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const items = [];
  for (let day = from; day <= to; day = dayAfter(day, 1)) {
    const row = byDay.get(day);
    items.push({
      day,
      orders: row?.orders ?? 0,
      amount: row?.amount ?? 0,
      cancellations: row?.cancellations ?? 0,
      cancelledAmount: row?.cancelledAmount ?? 0,
      refusals: { quota: row?.quotaRefusals ?? 0, allocation: row?.allocationRefusals ?? 0 },
    });
  }
  return { from, to, items };
}
