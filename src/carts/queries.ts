import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Principal } from "../platform/app";
import { inJsonList, type Db } from "../platform/db";
import { ApiError } from "../platform/errors";
import { listPage, type ListDefinition } from "../platform/pagination";
import { accountUsers, carts, operationAccounts, orders, type StoredOrderLine } from "../platform/schema";
import type { ListOrdersQuery } from "./schemas";

export type CartRow = typeof carts.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;

export const orderList: ListDefinition = {
  name: "orders",
  sortable: { createdAt: orders.createdAt },
  id: orders.id,
  defaultSort: "-createdAt",
  maxLimit: 500,
};

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
  };
}

/**
 * What an ACCOUNT key may read of carts and orders: those of the accounts its user belongs to.
 * OPERATOR keys read the whole tenant.
 */
function ownAccounts(principal: Principal, accountColumn: AnySQLiteColumn): SQL | undefined {
  if (principal.role === "OPERATOR") return undefined;
  return inArray(
    accountColumn,
    sql`(select ${accountUsers.accountId} from ${accountUsers}
          where ${accountUsers.tenantId} = ${principal.tenantId} and ${accountUsers.userId} = ${principal.userId})`,
  );
}

export async function findVisibleCart(db: Db, principal: Principal, cartId: string): Promise<CartRow> {
  const [row] = await db
    .select()
    .from(carts)
    .where(and(eq(carts.tenantId, principal.tenantId), eq(carts.id, cartId), ownAccounts(principal, carts.accountId)))
    .limit(1);
  if (!row) throw new ApiError("not_found", `Cart ${cartId} not found.`);
  return row;
}

export async function findVisibleOrder(db: Db, principal: Principal, orderId: string): Promise<OrderRow> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.tenantId, principal.tenantId), eq(orders.id, orderId), ownAccounts(principal, orders.accountId)))
    .limit(1);
  if (!row) throw new ApiError("not_found", `Order ${orderId} not found.`);
  return row;
}

/** An order's place and size without its lines (a compare reads the lines in SQL, not in the Worker). */
export async function findVisibleOrderSummary(db: Db, principal: Principal, orderId: string) {
  const [row] = await db
    .select({ id: orders.id, operationId: orders.operationId, lineCount: sql<number>`json_array_length(${orders.lines})` })
    .from(orders)
    .where(and(eq(orders.tenantId, principal.tenantId), eq(orders.id, orderId), ownAccounts(principal, orders.accountId)))
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
    .where(
      and(eq(operationAccounts.operationId, operationId), eq(operationAccounts.accountId, accountId), eq(operationAccounts.tenantId, tenantId)),
    )
    .limit(1);
  return Boolean(row);
}

/** One page of an Operation's orders (the caller has already been shown the Operation). */
export async function listOrders(db: Db, secret: string, principal: Principal, operationId: string, query: ListOrdersQuery) {
  const { limit, nextToken, sort, ...filters } = query;
  const accountIds = query.accountIds ?? query.accountId;
  return listPage({
    definition: orderList,
    secret,
    binding: { tenant: principal.tenantId, user: principal.userId, operationId, filters },
    page: { limit, nextToken, sort },
    filters: [
      eq(orders.operationId, operationId),
      eq(orders.tenantId, principal.tenantId),
      ownAccounts(principal, orders.accountId),
      accountIds && inJsonList(orders.accountId, accountIds),
    ],
    run: ({ where, orderBy, limit: take, cursorColumns }) =>
      db
        .select({ row: orders, ...cursorColumns })
        .from(orders)
        .where(where)
        .orderBy(...orderBy)
        .limit(take),
  });
}
