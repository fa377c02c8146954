import { nearestValidQuantities } from "../lines/order-fit";
import { ApiError } from "../platform/core/errors";

/*
 * What is left of a line for one account: the pool all buyers share (poolQuantity − ordered) and the
 * account's own cap (its cap, else the line's maxPerAccount, − what it ordered). Pure: the order's
 * check, a cart's, compare and the storefront's availableToYou all read it the same way.
 */

/** A line as an order for one account finds it: its bounds, its pool and the account's cap, and what was ordered. */
export interface LineAllocation {
  variantExternalId: string;
  minQuantity: number;
  maxQuantity: number;
  quantityIncrement: number;
  poolQuantity: number | null;
  /** Over every account's PLACED orders. */
  orderedQuantity: number;
  /** The account's cap: its own, else the line's maxPerAccount; null: none. */
  cap: number | null;
  /** Over this account's PLACED orders. */
  accountOrdered: number;
}

export interface Remaining {
  /** null: the line has no pool. */
  poolRemaining: number | null;
  /** null: the account has no cap on it. */
  accountRemaining: number | null;
}

/** A line an order asks more of than is left. */
export interface AllocationShortfall extends Remaining {
  variantExternalId: string;
  requested: number;
  /** The largest valid quantity (bounds, pack size) within what is left; null: none. */
  nearestValid: number | null;
}

export function remainingOf(line: LineAllocation): Remaining {
  return {
    poolRemaining: line.poolQuantity === null ? null : Math.max(0, line.poolQuantity - line.orderedQuantity),
    accountRemaining: line.cap === null ? null : Math.max(0, line.cap - line.accountOrdered),
  };
}

/** What the account may still order of the line now: the least of what is left of the pool, of its cap, and the line's maxQuantity. */
export function availableTo(line: LineAllocation): number {
  const { poolRemaining, accountRemaining } = remainingOf(line);
  return Math.min(line.maxQuantity, poolRemaining ?? Number.POSITIVE_INFINITY, accountRemaining ?? Number.POSITIVE_INFINITY);
}

/** The order's lines that ask more than is left, each with what is left and the nearest quantity that fits. */
export function shortfallsOf(
  requested: readonly { variantExternalId: string; quantity: number }[],
  lines: ReadonlyMap<string, LineAllocation>,
): AllocationShortfall[] {
  const shortfalls: AllocationShortfall[] = [];
  for (const { variantExternalId, quantity } of requested) {
    const line = lines.get(variantExternalId);
    if (!line) continue;
    const remaining = remainingOf(line);
    const allowed = Math.min(remaining.poolRemaining ?? Number.POSITIVE_INFINITY, remaining.accountRemaining ?? Number.POSITIVE_INFINITY);
    if (quantity <= allowed) continue;
    const [below] = nearestValidQuantities(Math.min(allowed, line.maxQuantity), line);
    shortfalls.push({ variantExternalId, requested: quantity, ...remaining, nearestValid: below });
  }
  return shortfalls;
}

/** 409 allocation_exceeded: the order places nothing; `lines` say what is left of each line it asked too much of. */
export function allocationExceeded(lines: readonly AllocationShortfall[]): ApiError {
  const named = lines.map((line) => `${line.variantExternalId} (${line.requested} asked, ${describeLeft(line)})`).join(", ");
  return new ApiError("allocation_exceeded", `The order asks more than is left for ${named}; nothing was placed. See lines[].`, { lines });
}

function describeLeft(line: AllocationShortfall): string {
  const left = [
    line.poolRemaining === null ? null : `${line.poolRemaining} left in the pool`,
    line.accountRemaining === null ? null : `${line.accountRemaining} left to the account`,
  ].filter(Boolean);
  return left.join(", ");
}
