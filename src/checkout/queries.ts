import { and, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import { ownAccountsOnly } from "../directory/membership";
import { listOperationRows } from "../operations/queries";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { inJsonList } from "../platform/data/sql";
import { ApiError } from "../platform/core/errors";
import { type ListContext, selectRows } from "../platform/data/pagination";
import { carts, operationAccounts, orderLines, orders, type StoredOrderLine } from "../operations/tables";
import type { QuotaResult } from "../quotas/evaluate";
import { type ListOrdersQuery, orderList } from "./schemas";

export type CartRow = typeof carts.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;

/** Σ quantity × unitPrice (validated on the way in to stay within 2^53−1). */
export function orderTotal(lines: StoredOrderLine[]): number {
  return lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);
}

export function toCartRepresentation(row: CartRow) {
  return {
    id: row.id,
    operationId: row.operationId,
    accountId: row.accountId,
    storeId: row.storeId,
    lines: row.lines,
    total: orderTotal(row.lines),
    createdBy: row.createdBy,
    createdAt: row.createdAt,
  };
}

export function toOrderRepresentation(row: OrderRow) {
  return {
    id: row.id,
    operationId: row.operationId,
    accountId: row.accountId,
    cartId: row.cartId,
    storeId: row.storeId,
    lines: row.lines,
    total: row.total,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    warnings: row.warnings as unknown as QuotaResult[],
    status: row.status,
    placedAt: row.createdAt,
    cancelledAt: row.cancelledAt,
    cancelReason: row.cancelReason,
    cancelledBy: row.cancelledBy,
  };
}

/**
 * The cart or order `id` of the caller's tenant; for an ACCOUNT key, only one of an account its user
 * belongs to. OPERATOR keys read the whole tenant.
 */
function visible(principal: Principal, table: typeof carts | typeof orders, id: string): SQL | undefined {
  return and(eq(table.tenantId, principal.tenantId), eq(table.id, id), ownAccountsOnly(principal, table.accountId));
}

export async function findVisibleCart(db: Db, principal: Principal, cartId: string): Promise<CartRow> {
  const [row] = await db
    .select()
    .from(carts)
    .where(visible(principal, carts, cartId))
    .limit(1);
  if (!row) throw new ApiError("not_found", `Cart ${cartId} not found.`);
  return row;
}

export async function findVisibleOrder(db: Db, principal: Principal, orderId: string): Promise<OrderRow> {
  const [row] = await db
    .select()
    .from(orders)
    .where(visible(principal, orders, orderId))
    .limit(1);
  if (!row) throw new ApiError("not_found", `Order ${orderId} not found.`);
  return row;
}

/** An order's place and size without its lines (a compare reads the lines in SQL, not in the Worker). */
export async function findVisibleOrderSummary(db: Db, principal: Principal, orderId: string) {
  const [row] = await db
    .select({ id: orders.id, operationId: orders.operationId, lineCount: sql<number>`json_array_length(${orders.lines})` })
    .from(orders)
    .where(visible(principal, orders, orderId))
    .limit(1);
  if (!row) throw new ApiError("not_found", `Order ${orderId} not found.`);
  return row;
}

/** The order placed from this cart, if any (orders_cart_id keeps it to one). */
export async function findOrderOfCart(db: Db, tenantId: string, cartId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.cartId, cartId), eq(orders.tenantId, tenantId)))
    .limit(1);
  return row?.id ?? null;
}

export async function isAttached(db: Db, tenantId: string, operationId: string, accountId: string): Promise<boolean> {
  const [row] = await db
    .select({ accountId: operationAccounts.accountId })
    .from(operationAccounts)
    .where(and(eq(operationAccounts.operationId, operationId), eq(operationAccounts.accountId, accountId), eq(operationAccounts.tenantId, tenantId)))
    .limit(1);
  return Boolean(row);
}

/** One page of an Operation's orders; ACCOUNT keys see only their own accounts' orders. */
export async function listOrders(ctx: ListContext, operationId: string, query: ListOrdersQuery) {
  const accountIds = query.accountIds ?? query.accountId;
  return listOperationRows(ctx, operationId, {
    definition: orderList,
    query,
    filters: [
      eq(orders.operationId, operationId),
      eq(orders.tenantId, ctx.principal.tenantId),
      ownAccountsOnly(ctx.principal, orders.accountId),
      accountIds && inJsonList(orders.accountId, accountIds),
      query.status && inJsonList(orders.status, query.status),
      // Placed times keep milliseconds: the bounds are to the second, `to` including its whole second.
      query.from === undefined ? undefined : gte(orders.createdAt, `${query.from.slice(0, 19)}.000Z`),
      query.to === undefined ? undefined : lte(orders.createdAt, `${query.to.slice(0, 19)}.999Z`),
      query.variantExternalId === undefined
        ? undefined
        : inArray(
            orders.id,
            ctx.db
              .select({ id: orderLines.orderId })
              .from(orderLines)
              .where(and(eq(orderLines.operationId, operationId), eq(orderLines.variantExternalId, query.variantExternalId))),
          ),
    ],
    run: selectRows(ctx.db, orders),
  });
}
