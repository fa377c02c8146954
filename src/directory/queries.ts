import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Principal } from "../platform/core/principal";
import { type Db } from "../platform/data/database";
import { existingKeys, inJsonList } from "../platform/data/sql";
import { containsText, listPage, selectRows, type ListContext } from "../platform/data/pagination";
import { accounts, accountUsers } from "./tables";
import { accountIdsOfUser, accountIdsWhere, ownAccountsOnly } from "./membership";
import { directoryList, type AccountFilters, type ListDirectoryQuery } from "./schemas";

const ofEmail = (tenantId: string, email: string) =>
  accountIdsWhere(tenantId, sql`${accountUsers.emailLower} = ${email.trim().toLowerCase()}`);

/** The filters both account lists share, on the list's account id column; ACCOUNT keys see only their own accounts. */
export function accountFilters(principal: Principal, column: AnySQLiteColumn, query: AccountFilters): (SQL | undefined)[] {
  const accountIds = query.accountIds ?? query.accountId;
  return [
    ownAccountsOnly(principal, column),
    accountIds && inJsonList(column, accountIds),
    query.userId !== undefined ? inArray(column, accountIdsOfUser(principal.tenantId, query.userId)) : undefined,
    query.email !== undefined ? inArray(column, ofEmail(principal.tenantId, query.email)) : undefined,
  ];
}

export type DirectoryRow = typeof accounts.$inferSelect;

export function toDirectoryRepresentation(row: DirectoryRow) {
  return { accountId: row.accountId, name: row.name, users: row.users, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

export async function listDirectory({ db, secret, principal }: ListContext, query: ListDirectoryQuery) {
  return listPage({
    definition: directoryList,
    secret,
    scope: { tenant: principal.tenantId, user: principal.userId },
    query,
    filters: [
      eq(accounts.tenantId, principal.tenantId),
      ...accountFilters(principal, accounts.accountId, query),
      containsText(accounts.nameSearch, query.name),
    ],
    run: selectRows(db, accounts),
  });
}

/** Which of `accountIds` the tenant's directory holds. */
export function findDirectoryIds(db: Db, tenantId: string, accountIds: string[]): Promise<Set<string>> {
  return existingKeys(db, accounts.accountId, accountIds, eq(accounts.tenantId, tenantId));
}

