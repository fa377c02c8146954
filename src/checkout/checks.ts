import { permittedAccounts } from "../directory/membership";
import { findLineIssues, nearestValidQuantities, type LineIssue } from "../lines/order-fit";
import { getVisibleOperation, type OperationRow } from "../operations/queries";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { ApiError } from "../platform/core/errors";
import type { StoredOrderLine } from "../operations/tables";
import { toIsoSeconds } from "../platform/core/time";
import { findOrderOfCart, isAttached } from "./queries";
import { readLineAllocations } from "../allocation/queries";
import { allocationExceeded, shortfallsOf } from "../allocation/remaining";

/** A cart or order as it will be placed: defaults applied, nothing checked yet. */
export interface Placement {
  operationId: string;
  accountId: string;
  storeId: string | null;
  lines: StoredOrderLine[];
  cartId: string | null;
}

/** What the checks found; `accountPermitted` is judged last, after the quota (the order the create-order route documents). */
export interface PlacementCheck {
  operation: OperationRow;
  accountPermitted: boolean;
}

/** 409 operation_not_open unless the Operation is ACTIVE and now within its dates. */
export function requireOpen(row: OperationRow): void {
  const now = toIsoSeconds(Date.now());
  if (row.status !== "ACTIVE") {
    throw new ApiError("operation_not_open", `Operation ${row.id} is ${row.status}; carts and orders need it ACTIVE.`, {
      operationStatus: row.status,
    });
  }
  if (now < row.startDate || now > row.endDate) {
    throw new ApiError("operation_not_open", `Operation ${row.id} takes carts and orders from ${row.startDate} to ${row.endDate}; it is now ${now}.`, {
      startDate: row.startDate,
      endDate: row.endDate,
    });
  }
}

/** For a quantity that is not a multiple of its pack size: the pack size and the nearest valid quantities. */
function incrementDetails(issue: LineIssue) {
  if (issue.code !== "increment_mismatch") return {};
  const bounds = { minQuantity: issue.minQuantity!, maxQuantity: issue.maxQuantity!, quantityIncrement: issue.quantityIncrement! };
  return { quantityIncrement: bounds.quantityIncrement, nearestValid: nearestValidQuantities(issue.quantity!, bounds) };
}

function lineProblem(issue: LineIssue) {
  const index = issue.index ?? -1;
  const bounds = `[${issue.minQuantity}, ${issue.maxQuantity}]`;
  const message =
    issue.code === "not_in_operation"
      ? `${issue.variantExternalId} is not a line of this Operation`
      : issue.code === "below_min"
        ? `quantity ${issue.quantity} is below the minimum of ${bounds}`
        : issue.code === "above_max"
          ? `quantity ${issue.quantity} is above the maximum of ${bounds}`
          : `quantity ${issue.quantity} is not a multiple of the pack size ${issue.quantityIncrement}`;
  return {
    index,
    field: `body.lines.${index}.${issue.code === "not_in_operation" ? "variantExternalId" : "quantity"}`,
    variantExternalId: issue.variantExternalId,
    code: issue.code,
    message,
    quantity: issue.quantity,
    minQuantity: issue.minQuantity,
    maxQuantity: issue.maxQuantity,
    ...incrementDetails(issue),
  };
}

/**
 * Everything a placement depends on, read in parallel (each read is one query; the lines are checked by
 * one statement over the Operation's lines), then judged in a fixed order: 404 (absent or
 * not visible) → 409 operation_not_open → 409 cart_already_ordered → 403 account_not_attached (PRIVATE)
 * → 422 order_lines_invalid, one entry per bad line by index → (`allocation`: a cart) 409 allocation_exceeded.
 * An order's allocation is checked where it is placed, one at a time (checkout/commands.ts).
 */
export async function checkPlacement(db: Db, principal: Principal, request: Placement, options: { allocation?: boolean } = {}): Promise<PlacementCheck> {
  const [operation, attached, issues, orderOfCart, permitted, allocations] = await Promise.all([
    getVisibleOperation(db, principal, request.operationId),
    isAttached(db, principal.tenantId, request.operationId, request.accountId),
    findLineIssues(db, request.operationId, { lines: request.lines }, { missingRequired: false }),
    request.cartId ? findOrderOfCart(db, principal.tenantId, request.cartId) : null,
    permittedAccounts(db, principal, [request.accountId]),
    options.allocation
      ? readLineAllocations(
          db,
          request.operationId,
          request.accountId,
          request.lines.map((line) => line.variantExternalId),
        )
      : null,
  ]);
  requireOpen(operation);
  if (orderOfCart) {
    throw new ApiError("cart_already_ordered", `Cart ${request.cartId} was ordered as ${orderOfCart}.`, {
      cartId: request.cartId,
      orderId: orderOfCart,
    });
  }
  if (operation.type === "PRIVATE" && !attached) {
    throw new ApiError("account_not_attached", `Account ${request.accountId} is not attached to the PRIVATE Operation ${operation.id}.`, {
      accountId: request.accountId,
    });
  }
  if (issues.length) {
    throw new ApiError("order_lines_invalid", `${issues.length} of ${request.lines.length} lines do not fit the Operation; see errors[].`, {
      errors: issues.map(lineProblem),
    });
  }
  const shortfalls = allocations ? shortfallsOf(request.lines, allocations) : [];
  if (shortfalls.length) throw allocationExceeded(shortfalls);
  return { operation, accountPermitted: permitted.has(request.accountId) };
}

/** ACCOUNT keys buy only for accounts whose directory users include their user (403 account_not_permitted). */
export function requirePermittedAccount(checked: PlacementCheck, principal: Principal, accountId: string): void {
  if (!checked.accountPermitted) {
    throw new ApiError("account_not_permitted", `Account ${accountId} is not one of user ${principal.userId}'s accounts.`, { accountId });
  }
}
