import { and, eq, gte, lte, type SQL } from "drizzle-orm";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { ApiError } from "../platform/core/errors";
import { operations } from "../operations/tables";
import { toIsoSeconds } from "../platform/core/time";
import { visibleTo, type OperationRow } from "../operations/queries";
import { accountsOfUser, requirePermitted } from "../directory/membership";
import { accountUsers } from "../directory/tables";

/** What the front shows: ACTIVE Operations whose dates include now. */
export function openNow(): SQL[] {
  const now = toIsoSeconds(Date.now());
  return [eq(operations.status, "ACTIVE"), lte(operations.startDate, now), gte(operations.endDate, now)];
}

/** The Operation if it is open now and the caller may order from it; 404 otherwise. */
export async function findFrontOperation(db: Db, principal: Principal, operationId: string): Promise<OperationRow> {
  const [row] = await db
    .select()
    .from(operations)
    .where(and(eq(operations.tenantId, principal.tenantId), eq(operations.id, operationId), visibleTo(principal), ...openNow()))
    .limit(1);
  if (!row) throw new ApiError("not_found", `No open Operation ${operationId}.`);
  return row;
}

/** The most accounts a storefront's availableToYou looks at for an ACCOUNT key without accountId. */
const MAX_BUYERS = 50;

/**
 * Whose availableToYou a storefront answers: `accountId` (an ACCOUNT key's own, else 403
 * account_not_permitted), else an ACCOUNT key's accounts; none for an OPERATOR key without accountId.
 */
export async function buyersOf(db: Db, principal: Principal, accountId: string | undefined): Promise<string[]> {
  if (principal.role === "OPERATOR") return accountId === undefined ? [] : [accountId];
  const userId = principal.userId ?? "";
  if (accountId !== undefined) {
    requirePermitted(principal, [accountId], await accountsOfUser(db, principal.tenantId, userId, [accountId]), "nothing was listed");
    return [accountId];
  }
  const rows = await db
    .select({ accountId: accountUsers.accountId })
    .from(accountUsers)
    .where(and(eq(accountUsers.tenantId, principal.tenantId), eq(accountUsers.userId, userId)))
    .limit(MAX_BUYERS);
  return rows.map((row) => row.accountId);
}
