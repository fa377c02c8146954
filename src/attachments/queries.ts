import { and, eq } from "drizzle-orm";
import type { Db } from "../platform/data/database";
import { inJsonList, selectInChunks } from "../platform/data/sql";
import { containsText, pageInMemory, type ListContext } from "../platform/data/pagination";
import { operationVersion } from "../history/versions";
import { accounts } from "../directory/tables";
import { operationAccounts } from "../operations/tables";
import { listOperationRows } from "../operations/queries";
import { accountFilters } from "../directory/queries";
import { attachmentList, type ListAttachmentsQuery } from "./schemas";

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
export async function listAttachments(ctx: ListContext, operationId: string, query: ListAttachmentsQuery) {
  const { principal } = ctx;
  return listOperationRows(ctx, operationId, {
    definition: attachmentList,
    query,
    // No tenant_id term on operation_accounts: it would tempt SQLite into the tenant-wide
    // (tenant_id, account_id) index instead of this Operation's primary-key range (visibility scopes the tenant).
    filters: [
      eq(operationAccounts.operationId, operationId),
      ...accountFilters(principal, operationAccounts.accountId, query),
      containsText(accounts.nameSearch, query.accountName),
      query.operationStatus && inJsonList(operationAccounts.operationStatus, query.operationStatus),
    ],
    run: ({ where, orderBy, limit, cursorColumns }) =>
      ctx.db
        .select({ ...attachmentColumns, ...cursorColumns })
        .from(operationAccounts)
        .innerJoin(accounts, and(eq(accounts.tenantId, operationAccounts.tenantId), eq(accounts.accountId, operationAccounts.accountId)))
        .where(where)
        .orderBy(...orderBy)
        .limit(limit),
  });
}

/** Of `accountIds`, those in the directory, each with whether it is attached to the Operation: one query. */
export async function findAttachmentStates(db: Db, tenantId: string, operationId: string, accountIds: string[]): Promise<Map<string, boolean>> {
  const rows = await selectInChunks(accounts.accountId, accountIds, (accountIsIn) =>
    db
      .select({ accountId: accounts.accountId, attachedId: operationAccounts.accountId })
      .from(accounts)
      .leftJoin(operationAccounts, and(eq(operationAccounts.operationId, operationId), eq(operationAccounts.accountId, accounts.accountId)))
      .where(and(eq(accounts.tenantId, tenantId), accountIsIn)),
  );
  return new Map(rows.map((row) => [row.accountId, row.attachedId !== null]));
}

/**
 * One page of the accounts attached to the Operation at `version` (its history), with the filters,
 * sort and pages of the current list; names and users as the directory has them now. An account
 * still attached shows its attachment as it is; one detached since shows NOT_STARTED, attached
 * (at the latest) when that version was made.
 */
export async function listAttachmentsAsOf(ctx: ListContext, operationId: string, version: number, query: ListAttachmentsQuery) {
  const { db, principal } = ctx;
  const then = await operationVersion(ctx, principal.tenantId, operationId, version);
  const ids = [...(await then.attachments())];
  const [directory, attached] = await Promise.all([
    selectInChunks(accounts.accountId, ids, (accountIsIn) =>
      db
        .select({ accountId: accounts.accountId, accountName: accounts.name, users: accounts.users })
        .from(accounts)
        .where(and(eq(accounts.tenantId, principal.tenantId), accountIsIn)),
    ),
    selectInChunks(operationAccounts.accountId, ids, (accountIsIn) =>
      db
        .select({
          accountId: operationAccounts.accountId,
          operationStatus: operationAccounts.operationStatus,
          attachedAt: operationAccounts.attachedAt,
          attachedBy: operationAccounts.attachedBy,
        })
        .from(operationAccounts)
        .where(and(eq(operationAccounts.operationId, operationId), accountIsIn)),
    ),
  ]);
  const attachment = new Map(attached.map((row) => [row.accountId, row]));
  const wanted = new Set(query.accountIds ?? query.accountId ?? []);
  const email = query.email?.trim().toLowerCase();
  const rows: AttachmentRow[] = directory
    .map((account) => ({
      ...account,
      ...(attachment.get(account.accountId) ?? { operationStatus: "NOT_STARTED" as const, attachedAt: then.row.updatedAt, attachedBy: "" }),
    }))
    .filter(
      (row) =>
        (!wanted.size || wanted.has(row.accountId)) &&
        (query.userId === undefined || row.users.some((user) => user.userId === query.userId)) &&
        (email === undefined || row.users.some((user) => user.email.toLowerCase() === email)) &&
        (query.accountName === undefined || row.accountName.toLowerCase().includes(query.accountName.toLowerCase())) &&
        (!query.operationStatus || query.operationStatus.includes(row.operationStatus)),
    );
  const sortValues: Record<string, (row: AttachmentRow) => string> = {
    accountId: (row) => row.accountId,
    accountName: (row) => row.accountName.toLowerCase(),
    attachedAt: (row) => row.attachedAt,
  };
  return pageInMemory({
    definition: attachmentList,
    secret: ctx.secret,
    scope: { tenant: principal.tenantId, user: principal.userId, operationId },
    query: { ...query, asOf: version } as typeof query,
    items: rows,
    valueOf: (row, field) => sortValues[field](row),
    idOf: (row) => row.accountId,
  });
}
