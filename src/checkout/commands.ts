import { and, eq, inArray, sql } from "drizzle-orm";
import { OPERATION_ACCOUNT_STATUSES } from "../attachments/schemas";
import { defineCommand, type CommandContext } from "../operations/coordinator/protocol";
import { insertFromJson, runBatch, type Statement, writeGuard } from "../platform/data/sql";
import { cancelledStatements, placedStatements, refusalStatements, type CountedOrder } from "../totals/commands";
import { exhaustedEvents } from "../allocation/commands";
import { fitsAllocation, readLineAllocations } from "../allocation/queries";
import { allocationExceeded, shortfallsOf } from "../allocation/remaining";
import { appendEvent } from "../platform/data/events";
import { changeOf, changeStatements, recordedFields, recordsOf } from "../platform/data/changes";
import { markClaimCommitted } from "../platform/data/claims";
import { isWriteGuardFailure, violatesUnique } from "../platform/data/constraint-errors";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import { actorOf } from "../platform/core/principal";
import { carts, operationAccounts, operations, orderLines, orders } from "../operations/tables";
import { nowIso, toIsoSeconds } from "../platform/core/time";
import { loadOperationWith, operationEvent } from "../operations/aggregate";
import type { QuotaOrder, QuotaResult } from "../quotas/evaluate";
import { quotaOrderFactRows } from "../quotas/order-facts";
import { checkPlacement, requireOpen, type Placement } from "./checks";
import { findVisibleOrder, orderTotal, toCartRepresentation, toOrderRepresentation, type CartRow, type OrderRow } from "./queries";

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
async function commitPlacement(
  ctx: CommandContext,
  input: CheckedPlacement,
  statementsAt: (guard: Statement) => Statement[],
  /** Asked first when a guard refused the batch: an order answers an allocation it would exceed (and throws). */
  onGuardFailure: () => Promise<void> = async () => {},
): Promise<void> {
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
      await onGuardFailure();
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

export const createCart = defineCommand(
  "checkout.cart",
  async function createCart(ctx: CommandContext, input: CheckedPlacement) {
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
  },
  () => null,
);

/** An order's lines by variant (the orders carrying a variant: one range of order_lines). */
function orderLineRows(row: OrderRow): Statement[] {
  return insertFromJson(orderLines, row.lines, [
    [orderLines.operationId, row.operationId],
    [orderLines.variantExternalId, (line) => line.variantExternalId],
    [orderLines.orderId, row.id],
    [orderLines.tenantId, row.tenantId],
    [orderLines.quantity, (line) => line.quantity],
  ]);
}

/** What an order counts for in its Operation's totals. */
export function countedOrder(row: OrderRow): CountedOrder {
  return {
    tenantId: row.tenantId,
    operationId: row.operationId,
    accountId: row.accountId,
    amount: row.total,
    placedAt: row.createdAt,
    lines: row.lines,
  };
}

/**
 * An order to place: the quota orders it was evaluated as (one per supplier) travel along, kept as
 * facts with it, and so do the results it falls short of a WARN minimum with, as its warnings.
 */
export interface CheckedOrder extends CheckedPlacement {
  quotaOrders: QuotaOrder[];
  warnings: QuotaResult[];
}

export const createOrder = defineCommand(
  "checkout.order",
  async function createOrder(ctx: CommandContext, input: CheckedOrder) {
    const { placement, quotaOrders, warnings } = input;
    const row: OrderRow = {
      ...newPlacementRow(ctx, placement, idPrefixes.order),
      cartId: placement.cartId,
      total: orderTotal(placement.lines),
      warnings: warnings as unknown as OrderRow["warnings"],
      status: "PLACED",
      cancelledAt: null,
      cancelReason: null,
      cancelledBy: null,
    };
    await commitPlacement(
      ctx,
      input,
      (guard) => [
        guard,
        // Never beyond a pool or a cap: re-checked where the counters move (the object runs one order at a time besides).
        writeGuard(fitsAllocation(ctx.operationId, row.accountId, row.lines)),
        ctx.db.insert(orders).values(row),
        ...orderLineRows(row),
        ...placedStatements(countedOrder(row)),
        ...exhaustedEvents(ctx, { id: row.id, placedAt: row.createdAt, lines: row.lines }),
        ...quotaOrderFactRows(ctx.principal.tenantId, { id: row.id, at: row.createdAt }, quotaOrders),
        ...placementUpdates(ctx, "orderCount", row.accountId, "ORDERED"),
        operationEvent(ctx, "order.created", { orderId: row.id, cartId: row.cartId, ...placementEventData(row, row.total), warnings }),
        ...claimOf(ctx, row.id),
      ],
      () => refuseBeyondAllocation(ctx, placement),
    );
    return toOrderRepresentation(row);
  },
  (_input, order) => ({ what: "orders", counts: { placed: 1 }, accountId: order.accountId, lineKeys: order.lines.map((line) => line.variantExternalId) }),
);

/** An order's fields as history records a cancellation: what changes on it. */
const ORDER_FIELDS = recordedFields<Pick<OrderRow, "status" | "cancelledAt" | "cancelReason">>(["status", "cancelledAt", "cancelReason"]);

/**
 * Cancels a PLACED order (a cancelled one is answered as it is): one batch that re-checks the order is
 * still PLACED, marks it, takes its figures back from the totals, records the change and order.cancelled.
 * It stays linked (the Operation still cannot be deleted). An ACCOUNT key cancels only while the
 * Operation is ACTIVE and open; the Worker found the order visible to the caller (else 404).
 */
export const cancelOrder = defineCommand(
  "checkout.cancel",
  async function cancelOrder(ctx: CommandContext, input: { orderId: string; reason: string | null }): Promise<OrderRow> {
    const [operation, order] = await loadOperationWith(ctx, () => findVisibleOrder(ctx.db, ctx.principal, input.orderId));
    if (order.operationId !== operation.id) throw new ApiError("not_found", `Order ${input.orderId} not found.`);
    if (order.status === "CANCELLED") return order;
    if (ctx.principal.role === "ACCOUNT") requireOpen(operation);
    const at = nowIso();
    const cancelled: OrderRow = { ...order, status: "CANCELLED", cancelledAt: at, cancelReason: input.reason, cancelledBy: actorOf(ctx.principal) };
    try {
      await runBatch(ctx.db, [
        writeGuard(sql`exists (select 1 from ${orders} where ${orders.id} = ${order.id} and ${orders.status} = 'PLACED')`),
        ctx.db
          .update(orders)
          .set({ status: "CANCELLED", cancelledAt: at, cancelReason: input.reason, cancelledBy: cancelled.cancelledBy })
          .where(eq(orders.id, order.id)),
        ...cancelledStatements(countedOrder(order), at),
        operationEvent(ctx, "order.cancelled", { orderId: order.id, accountId: order.accountId, total: order.total, reason: input.reason }),
        ...changeStatements(ctx.db, {
          tenantId: ctx.principal.tenantId,
          author: ctx.author,
          operationId: operation.id,
          records: recordsOf([changeOf("order", order.id, order, cancelled, ORDER_FIELDS)]),
        }),
      ]);
    } catch (error) {
      // Commands on one Operation run one at a time: only a cancellation outside it (none) could have won.
      if (isWriteGuardFailure(error)) return findVisibleOrder(ctx.db, ctx.principal, order.id);
      throw error;
    }
    return cancelled;
  },
  (_input, order) => ({ what: "orders", counts: { cancelled: 1 }, accountId: order.accountId, lineKeys: order.lines.map((line) => line.variantExternalId) }),
);

/**
 * An order that asks more than is left of a line's pool or of its account's cap places nothing: the
 * refusal is recorded (order.blocked with reason allocation_exceeded, counted in the totals, the
 * request's claim marked) and answered 409 allocation_exceeded with each line's figures. Nothing to
 * refuse: returns (the guard that failed was another).
 */
async function refuseBeyondAllocation(ctx: CommandContext, placement: Placement): Promise<void> {
  const allocations = await readLineAllocations(
    ctx.db,
    ctx.operationId,
    placement.accountId,
    placement.lines.map((line) => line.variantExternalId),
  );
  const lines = shortfallsOf(placement.lines, allocations);
  if (!lines.length) return;
  const record = { id: newId(idPrefixes.event), at: nowIso() };
  const { tenantId } = ctx.principal;
  await runBatch(ctx.db, [
    appendEvent(ctx.db, {
      ...record,
      tenantId,
      type: "order.blocked",
      actor: ctx.author.actor,
      operationId: ctx.operationId,
      data: { reason: "allocation_exceeded", accountId: placement.accountId, cartId: placement.cartId, storeId: placement.storeId, lines },
    }),
    ...refusalStatements({ tenantId, operationId: ctx.operationId, accountId: placement.accountId, at: record.at, reason: "allocation" }),
    ...claimOf(ctx, record.id),
  ]);
  throw allocationExceeded(lines);
}

/** The commands of this resource, for the coordinator's registry. */
export const checkoutCommands = [createCart, createOrder, cancelOrder];
