import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { inJsonList, selectInChunks } from "../platform/data/sql";
import { containsText, listPage, selectRows, type ListContext } from "../platform/data/pagination";
import { accounts, accountUsers } from "./tables";
import { accountIdsOfUser, accountIdsWhere, ownAccountsOnly } from "./membership";
import { directoryList, type AccountFilters, type ListDirectoryQuery } from "./schemas";

const ofEmail = (tenantId: string, email: string) => accountIdsWhere(tenantId, sql`${accountUsers.emailLower} = ${email.trim().toLowerCase()}`);

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

/** What a directory write may change on an account. */
export type DirectoryFields = Pick<DirectoryRow, "name" | "users">;

/** The accounts among `accountIds` the tenant's directory holds, as they are. */
export async function findDirectoryAccounts(db: Db, tenantId: string, accountIds: string[]): Promise<Map<string, DirectoryFields>> {
  const rows = await selectInChunks(accounts.accountId, accountIds, (accountIsIn) =>
    db
      .select({ accountId: accounts.accountId, name: accounts.name, users: accounts.users })
      .from(accounts)
      .where(and(eq(accounts.tenantId, tenantId), accountIsIn)),
  );
  return new Map(rows.map(({ accountId, ...fields }) => [accountId, fields]));
}
