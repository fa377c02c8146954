import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Principal } from "../platform/app";
import { inJsonList, selectInChunks, type Db } from "../platform/db";
import { containsText, listPage, selectRows, type ListDefinition } from "../platform/pagination";
import { accounts, accountUsers, operationAccounts } from "../platform/schema";
import { getVisibleOperation, operationVisibleTo } from "../operations/queries";
import { accountIdsOfUser, accountIdsWhere, ownAccountsOnly } from "./membership";
import type { ListAttachmentsQuery, ListDirectoryQuery } from "./schemas";

export const directoryList: ListDefinition = {
  name: "accounts",
  sortable: { accountId: accounts.accountId, name: accounts.nameSearch },
  id: accounts.accountId,
  defaultSort: "accountId",
  maxLimit: 1000,
};

export const attachmentList: ListDefinition = {
  name: "operation-accounts",
  sortable: {
    accountId: operationAccounts.accountId,
    accountName: accounts.nameSearch,
    attachedAt: operationAccounts.attachedAt,
  },
  id: operationAccounts.accountId,
  defaultSort: "accountId",
  maxLimit: 1000,
};

const ofEmail = (tenantId: string, email: string) =>
  accountIdsWhere(tenantId, sql`${accountUsers.emailLower} = ${email.trim().toLowerCase()}`);

/** The filters both account lists share, on the list's account id column; ACCOUNT keys see only their own accounts. */
function accountFilters(principal: Principal, column: AnySQLiteColumn, query: ListDirectoryQuery | ListAttachmentsQuery): (SQL | undefined)[] {
  const accountIds = query.accountIds ?? query.accountId;
  return [
    ownAccountsOnly(principal, column),
    accountIds && inJsonList(column, accountIds),
    query.userId !== undefined ? inArray(column, accountIdsOfUser(principal.tenantId, query.userId)) : undefined,
    query.email !== undefined ? inArray(column, ofEmail(principal.tenantId, query.email)) : undefined,
  ];
}

// ---- directory ------------------------------------------------------------------------

export type DirectoryRow = typeof accounts.$inferSelect;

export function toDirectoryRepresentation(row: DirectoryRow) {
  return { accountId: row.accountId, name: row.name, users: row.users, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

export async function listDirectory(db: Db, secret: string, principal: Principal, query: ListDirectoryQuery) {
  const { limit, nextToken, sort, ...filters } = query;
  return listPage({
    definition: directoryList,
    secret,
    binding: { tenant: principal.tenantId, user: principal.userId, filters },
    page: { limit, nextToken, sort },
    filters: [
      eq(accounts.tenantId, principal.tenantId),
      ...accountFilters(principal, accounts.accountId, query),
      containsText(accounts.nameSearch, query.name),
    ],
    run: selectRows(db, accounts),
  });
}

/** Which of `accountIds` the tenant's directory holds. */
export async function findDirectoryIds(db: Db, tenantId: string, accountIds: string[]): Promise<Set<string>> {
  const rows = await selectInChunks(accounts.accountId, accountIds, (accountIsIn) =>
    db
      .select({ accountId: accounts.accountId })
      .from(accounts)
      .where(and(eq(accounts.tenantId, tenantId), accountIsIn)),
  );
  return new Set(rows.map((row) => row.accountId));
}

// ---- attachments ----------------------------------------------------------------------

const attachmentColumns = {
  accountId: operationAccounts.accountId,
  accountName: accounts.name,
  users: accounts.users,
  operationStatus: operationAccounts.operationStatus,
  attachedAt: operationAccounts.attachedAt,
  attachedBy: operationAccounts.attachedBy,
};

export interface AttachmentRow {
  accountId: string;
  accountName: string;
  users: { userId: string; email: string }[];
  operationStatus: "NOT_STARTED" | "CART_CREATED" | "ORDERED";
  attachedAt: string;
  attachedBy: string;
}

export function toAttachmentRepresentation(row: AttachmentRow): AttachmentRow {
  return {
    accountId: row.accountId,
    accountName: row.accountName,
    users: row.users,
    operationStatus: row.operationStatus,
    attachedAt: row.attachedAt,
    attachedBy: row.attachedBy,
  };
}

/**
 * One page of an Operation's attached accounts, with names and users joined from the directory.
 * ACCOUNT keys see only their own accounts' attachments (never other customers' users).
 */
export async function listAttachments(db: Db, secret: string, principal: Principal, operationId: string, query: ListAttachmentsQuery) {
  const { limit, nextToken, sort, ...filters } = query;
  const page = await listPage({
    definition: attachmentList,
    secret,
    binding: { tenant: principal.tenantId, user: principal.userId, operationId, filters },
    page: { limit, nextToken, sort },
    filters: [
      eq(operationAccounts.operationId, operationId),
      // Scopes the tenant too. A tenant_id term on operation_accounts would tempt SQLite into the
      // tenant-wide (tenant_id, account_id) index instead of this Operation's primary-key range.
      operationVisibleTo(principal, operationId),
      ...accountFilters(principal, operationAccounts.accountId, query),
      containsText(accounts.nameSearch, query.accountName),
      query.operationStatus && inJsonList(operationAccounts.operationStatus, query.operationStatus),
    ],
    run: ({ where, orderBy, limit: take, cursorColumns }) =>
      db
        .select({ ...attachmentColumns, ...cursorColumns })
        .from(operationAccounts)
        .innerJoin(accounts, and(eq(accounts.tenantId, operationAccounts.tenantId), eq(accounts.accountId, operationAccounts.accountId)))
        .where(where)
        .orderBy(...orderBy)
        .limit(take),
  });
  if (!page.items.length) await getVisibleOperation(db, principal, operationId);
  return page;
}

/** Of `accountIds`, those in the directory, each with whether it is attached to the Operation: one query. */
export async function findAttachmentStates(
  db: Db,
  tenantId: string,
  operationId: string,
  accountIds: string[],
): Promise<Map<string, boolean>> {
  const rows = await selectInChunks(accounts.accountId, accountIds, (accountIsIn) =>
    db
      .select({ accountId: accounts.accountId, attachedId: operationAccounts.accountId })
      .from(accounts)
      .leftJoin(operationAccounts, and(eq(operationAccounts.operationId, operationId), eq(operationAccounts.accountId, accounts.accountId)))
      .where(and(eq(accounts.tenantId, tenantId), accountIsIn)),
  );
  return new Map(rows.map((row) => [row.accountId, row.attachedId !== null]));
}

/** Which of `accountIds` are attached to the Operation. */
export async function findAttachedIds(db: Db, operationId: string, accountIds: string[]): Promise<Set<string>> {
  const rows = await selectInChunks(operationAccounts.accountId, accountIds, (accountIsIn) =>
    db
      .select({ accountId: operationAccounts.accountId })
      .from(operationAccounts)
      .where(and(eq(operationAccounts.operationId, operationId), accountIsIn)),
  );
  return new Set(rows.map((row) => row.accountId));
}
