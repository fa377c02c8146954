import { and, eq, inArray, sql } from "drizzle-orm";
import { OPERATION_ACCOUNT_STATUSES } from "../attachments/schemas";
import { defineCommand, type CommandContext } from "../operations/coordinator/protocol";
import { runBatch, type Statement, writeGuard } from "../platform/data/sql";
import { markClaimCommitted } from "../platform/data/claims";
import { isWriteGuardFailure, violatesUnique } from "../platform/data/constraint-errors";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import { actorOf } from "../platform/core/principal";
import { carts, operationAccounts, operations, orders } from "../operations/tables";
import { nowIso, toIsoSeconds } from "../platform/core/time";
import { operationEvent } from "../operations/aggregate";
import type { QuotaOrder, QuotaResult } from "../quotas/evaluate";
import { quotaOrderFactRows } from "../quotas/order-facts";
import { checkPlacement, type Placement } from "./checks";
import { orderTotal, toCartRepresentation, toOrderRepresentation, type CartRow, type OrderRow } from "./queries";

/** A checked cart or order, and the Operation version the checks read. */
export interface CheckedPlacement {
  checkedVersion: number;
  placement: Placement;
}

/**
 * The SQL re-check of every placement (a cart or an order linked to its Operation): the Operation
 * still exists, is ACTIVE and open now, and is at the version the checks read (its lines,
 * attachments and type are as checked). Placements do not bump the version, so checkout traffic
 * never makes an admin's If-Match stale; a delete or a →DRAFT transition guards on
 * cart_count/order_count = 0 instead, so it can never commit together with a placement.
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
 * Runs a placement's batch. Should the guard fail, the Operation changed after the Worker's checks
 * (commands on one Operation are serialized, so not while this runs): run the checks again on what
 * is there now (404, 409, 403 or 422 as they find) and retry at the version they read.
 */
async function commitPlacement(ctx: CommandContext, input: CheckedPlacement, statementsAt: (guard: Statement) => Statement[]): Promise<void> {
  let version = input.checkedVersion;
  for (let attempt = 0; ; attempt++) {
    try {
      await runBatch(ctx.db, statementsAt(stillOpenAt(ctx, version)));
      return;
    } catch (error) {
      if (violatesUnique(error, orders.cartId)) {
        throw new ApiError("cart_already_ordered", `Cart ${input.placement.cartId} has already been ordered.`, { cartId: input.placement.cartId });
      }
      if (!isWriteGuardFailure(error)) throw error;
      if (attempt >= 2) throw new ApiError("version_mismatch", "The Operation kept changing while this was placed in it; retry.");
    }
    version = (await checkPlacement(ctx.db, ctx.principal, input.placement)).operation.version;
  }
}

/**
 * What every placement writes beside its own row: the Operation's cart or order count, and the account's
 * progress in the Operation, which only moves forward (NOT_STARTED → CART_CREATED → ORDERED).
 */
function placementUpdates(ctx: CommandContext, count: "cartCount" | "orderCount", accountId: string, progress: "CART_CREATED" | "ORDERED") {
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

/** The request's Idempotency-Key claim, marked with the cart or order in the same batch (none without a request). */
function claimOf(ctx: CommandContext, placementId: string): Statement[] {
  const { requestId } = ctx.author;
  return requestId === null ? [] : [markClaimCommitted(ctx.db, ctx.principal.tenantId, requestId, placementId)];
}

/** The fields a cart and an order share, for a new one. */
function newPlacementRow(ctx: CommandContext, request: Placement, idPrefix: string) {
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
function placementEventData(row: CartRow, total: number) {
  return { accountId: row.accountId, storeId: row.storeId, lineCount: row.lines.length, total };
}

export const createCart = defineCommand("checkout.cart", async function createCart(ctx: CommandContext, input: CheckedPlacement) {
  const row: CartRow = newPlacementRow(ctx, input.placement, idPrefixes.cart);
  const cart = toCartRepresentation(row);
  await commitPlacement(ctx, input, (guard) => [
    guard,
    ctx.db.insert(carts).values(row),
    ...placementUpdates(ctx, "cartCount", row.accountId, "CART_CREATED"),
    operationEvent(ctx, "cart.created", { cartId: row.id, ...placementEventData(row, cart.total) }),
    ...claimOf(ctx, row.id),
  ]);
  return cart;
});

/**
 * An order to place: the quota orders it was evaluated as (one per supplier) travel along, kept as
 * facts with it, and so do the results it falls short of a WARN minimum with, as its warnings.
 */
export interface CheckedOrder extends CheckedPlacement {
  quotaOrders: QuotaOrder[];
  warnings: QuotaResult[];
}

export const createOrder = defineCommand("checkout.order", async function createOrder(ctx: CommandContext, input: CheckedOrder) {
  const { placement, quotaOrders, warnings } = input;
  const row: OrderRow = {
    ...newPlacementRow(ctx, placement, idPrefixes.order),
    cartId: placement.cartId,
    total: orderTotal(placement.lines),
    warnings: warnings as unknown as OrderRow["warnings"],
  };
  await commitPlacement(ctx, input, (guard) => [
    guard,
    ctx.db.insert(orders).values(row),
    ...quotaOrderFactRows(ctx.principal.tenantId, { id: row.id, at: row.createdAt }, quotaOrders),
    ...placementUpdates(ctx, "orderCount", row.accountId, "ORDERED"),
    operationEvent(ctx, "order.created", { orderId: row.id, cartId: row.cartId, ...placementEventData(row, row.total), warnings }),
    ...claimOf(ctx, row.id),
  ]);
  return toOrderRepresentation(row);
});

/** The commands of this resource, for the coordinator's registry. */
export const checkoutCommands = [createCart, createOrder];
