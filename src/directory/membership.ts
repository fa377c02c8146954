import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { inJsonList } from "../platform/data/sql";
import { ApiError } from "../platform/core/errors";
import type { BackgroundRead } from "../platform/core/refreshing-cache";
import { cachedAccountsOfUser } from "./membership-cache";
import { accountUsers } from "./tables";

/**
 * Account ids whose users match `condition`, read through the account_users indexes
 * ((tenant_id, user_id) and (tenant_id, email_lower)) rather than by scanning accounts.
 */
export function accountIdsWhere(tenantId: string, condition: SQL): SQL {
  return sql`(select ${accountUsers.accountId} from ${accountUsers} where ${accountUsers.tenantId} = ${tenantId} and ${condition})`;
}

/** The ids of the accounts whose directory users include `userId`, as a subquery. */
export function accountIdsOfUser(tenantId: string, userId: string): SQL {
  return accountIdsWhere(tenantId, sql`${accountUsers.userId} = ${userId}`);
}

/**
 * The ACCOUNT-key rule on rows that belong to an account (`accountColumn`): only the accounts the
 * key's user belongs to. No condition for OPERATOR keys, which see the whole tenant.
 */
export function ownAccountsOnly(principal: Principal, accountColumn: AnySQLiteColumn): SQL | undefined {
  return principal.role === "ACCOUNT" ? inArray(accountColumn, accountIdsOfUser(principal.tenantId, principal.userId ?? "")) : undefined;
}

/** Of `accountIds`, those whose directory users include `userId` (the ACCOUNT-key permission rule). */
export async function accountsOfUser(db: Db, tenantId: string, userId: string, accountIds: string[]): Promise<Set<string>> {
  if (!accountIds.length) return new Set();
  const rows = await db
    .select({ accountId: accountUsers.accountId })
    .from(accountUsers)
    .where(and(eq(accountUsers.tenantId, tenantId), eq(accountUsers.userId, userId), inJsonList(accountUsers.accountId, accountIds)));
  return new Set(rows.map((row) => row.accountId));
}

/** Of `accountIds`, those the principal may act for: all of them for an OPERATOR key (no query). */
export async function permittedAccounts(db: Db, principal: Principal, accountIds: string[]): Promise<Set<string>> {
  if (principal.role === "OPERATOR") return new Set(accountIds);
  return accountsOfUser(db, principal.tenantId, principal.userId ?? "", accountIds);
}

/**
 * 403 account_not_permitted unless the principal may act for every account (`permitted`, from
 * permittedAccounts), naming the others; `consequence` tells the caller what did not happen.
 */
export function requirePermitted(principal: Principal, accountIds: readonly string[], permitted: ReadonlySet<string>, consequence: string): void {
  const refused = accountIds.filter((id) => !permitted.has(id));
  if (refused.length) {
    throw new ApiError("account_not_permitted", `${refused.length} of these accounts do not list user ${principal.userId} among their users; ${consequence}.`, {
      accountIds: refused,
    });
  }
}

/**
 * requirePermitted on a read path: an ACCOUNT key's memberships come from the isolate's cache
 * (membership-cache.ts; `inBackground` refreshes them after the answer), an OPERATOR key needs none.
 */
export async function requirePermittedAccounts(
  db: Db,
  principal: Principal,
  accountIds: readonly string[],
  consequence: string,
  inBackground: BackgroundRead<Db>,
): Promise<void> {
  const unique = [...new Set(accountIds)];
  if (principal.role === "OPERATOR") return;
  const cached = await cachedAccountsOfUser(db, principal.tenantId, principal.userId ?? "", inBackground);
  requirePermitted(principal, unique, cached ?? (await accountsOfUser(db, principal.tenantId, principal.userId ?? "", unique)), consequence);
}
