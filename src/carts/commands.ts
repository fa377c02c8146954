import { and, eq, inArray, sql } from "drizzle-orm";
import { OPERATION_ACCOUNT_STATUSES } from "../accounts/schemas";
import { operationEvent, type CommandContext } from "../operations/commands";
import { actorOf, type Principal } from "../platform/app";
import { isUniqueViolation, isWriteGuardFailure, runBatch, writeGuard, type Db, type Statement } from "../platform/db";
import { ApiError } from "../platform/errors";
import { appendEvent } from "../platform/events";
import { idPrefixes, newId } from "../platform/ids";
import { carts, operationAccounts, operations, orders } from "../platform/schema";
import { nowIso, toIsoSeconds } from "../platform/time";
import type { QuotaOrder, QuotaResult } from "../quotas/evaluate";
import { checkLink, type LinkRequest } from "./checks";
import { orderTotal, toCartRepresentation, toOrderRepresentation, type CartRow, type OrderRow } from "./queries";

/** A checked cart or order, and the Operation version the checks read. */
export interface LinkInput {
  checkedVersion: number;
  request: LinkRequest;
}

/**
 * The SQL re-check of every link: the Operation still exists, is ACTIVE and open now, and is at
 * the version the checks read (its lines, attachments and type are as checked). Links do not bump
 * the version, so checkout traffic never makes an admin's If-Match stale; a delete or a →DRAFT
 * transition guards on cart_count/order_count = 0 instead, so it can never commit together with a link.
 */
function stillOpenAt(ctx: CommandContext, version: number) {
  const now = toIsoSeconds(Date.now());
  return writeGuard(
    sql`exists (select 1 from ${operations} where ${operations.id} = ${ctx.operationId} and ${operations.tenantId} = ${ctx.principal.tenantId}
          and ${operations.status} = 'ACTIVE' and ${operations.version} = ${version}
          and ${operations.startDate} <= ${now} and ${operations.endDate} >= ${now})`,
  );
}

/**
 * Runs a link batch. Should the guard fail, the Operation changed after the Worker's checks
 * (commands on one Operation are serialized, so not while this runs): run the checks again on what
 * is there now — 404, 409, 403 or 422 as they find — and retry at the version they read.
 */
async function link(ctx: CommandContext, input: LinkInput, statementsAt: (guard: Statement) => Statement[]): Promise<void> {
  let version = input.checkedVersion;
  for (let attempt = 0; ; attempt++) {
    try {
      await runBatch(ctx.db, statementsAt(stillOpenAt(ctx, version)));
      return;
    } catch (error) {
      if (isUniqueViolation(error, "orders.cart_id")) {
        throw new ApiError("cart_already_ordered", `Cart ${input.request.cartId} has already been ordered.`, { cartId: input.request.cartId });
      }
      if (!isWriteGuardFailure(error)) throw error;
      if (attempt >= 2) throw new ApiError("version_mismatch", "The Operation kept changing while this was linked to it; retry.");
    }
    version = (await checkLink(ctx.db, ctx.principal, input.request)).operation.version;
  }
}

/**
 * What every link writes beside its own row: the Operation's cart or order count, and the account's
 * progress in the Operation, which only moves forward (NOT_STARTED → CART_CREATED → ORDERED).
 */
function linkUpdates(ctx: CommandContext, count: "cartCount" | "orderCount", accountId: string, progress: "CART_CREATED" | "ORDERED") {
  const earlier = OPERATION_ACCOUNT_STATUSES.slice(0, OPERATION_ACCOUNT_STATUSES.indexOf(progress));
  return [
    ctx.db
      .update(operations)
      .set({ [count]: sql`${operations[count]} + 1` })
      .where(eq(operations.id, ctx.operationId)),
    ctx.db
      .update(operationAccounts)
      .set({ operationStatus: progress })
      .where(
        and(
          eq(operationAccounts.operationId, ctx.operationId),
          eq(operationAccounts.accountId, accountId),
          inArray(operationAccounts.operationStatus, earlier),
        ),
      ),
  ];
}

/** The fields a cart and an order share, for a new one. */
function newLinkRow(ctx: CommandContext, request: LinkRequest, idPrefix: string) {
  return {
    id: newId(idPrefix),
    tenantId: ctx.principal.tenantId,
    operationId: ctx.operationId,
    accountId: request.accountId,
    storeId: request.storeId,
    lines: request.lines,
    createdBy: actorOf(ctx.principal),
    createdAt: nowIso(),
  };
}

/** What cart.created and order.created record besides their ids. */
function linkEventData(row: CartRow, total: number) {
  return { accountId: row.accountId, storeId: row.storeId, lineCount: row.lines.length, total };
}

async function createCart(ctx: CommandContext, input: LinkInput) {
  const row: CartRow = newLinkRow(ctx, input.request, idPrefixes.cart);
  const cart = toCartRepresentation(row);
  await link(ctx, input, (guard) => [
    guard,
    ctx.db.insert(carts).values(row),
    ...linkUpdates(ctx, "cartCount", row.accountId, "CART_CREATED"),
    operationEvent(ctx, "cart.created", { cartId: row.id, ...linkEventData(row, cart.total) }),
  ]);
  return cart;
}

async function createOrder(ctx: CommandContext, input: LinkInput) {
  const { request } = input;
  const row: OrderRow = { ...newLinkRow(ctx, request, idPrefixes.order), cartId: request.cartId, total: orderTotal(request.lines) };
  await link(ctx, input, (guard) => [
    guard,
    ctx.db.insert(orders).values(row),
    ...linkUpdates(ctx, "orderCount", row.accountId, "ORDERED"),
    operationEvent(ctx, "order.created", { orderId: row.id, cartId: row.cartId, ...linkEventData(row, row.total) }),
  ]);
  return toOrderRepresentation(row);
}

/** Commands this resource runs inside the Operation's coordinator (see operations/durable-object.ts). */
export const operationCommands = { createCart, createOrder };

/**
 * A blocked order creates nothing but is recorded. Its own statement, outside the coordinator:
 * it changes no Operation state, so it need not wait behind the Operation's writes.
 */
export async function recordBlockedOrder(
  db: Db,
  principal: Principal,
  request: LinkRequest,
  evaluation: { orders: QuotaOrder[]; results: QuotaResult[] },
): Promise<void> {
  await appendEvent(db, {
    tenantId: principal.tenantId,
    type: "order.blocked",
    actor: actorOf(principal),
    operationId: request.operationId,
    data: {
      accountId: request.accountId,
      cartId: request.cartId,
      storeId: request.storeId,
      orders: evaluation.orders,
      results: evaluation.results,
    },
  });
}
