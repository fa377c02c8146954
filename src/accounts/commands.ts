import { and, eq, sql } from "drizzle-orm";
import { actorOf, type Principal } from "../platform/app";
import { inJsonChunks, jsonChunks, runBatch, type Db, type Statement } from "../platform/db";
import { ApiError } from "../platform/errors";
import { appendEvent } from "../platform/events";
import { accountUsers, operationAccounts } from "../platform/schema";
import { nowIso } from "../platform/time";
import { commitRowChange, loadOperation, requireDraft, type CommandContext } from "../operations/commands";
import type { OperationRow } from "../operations/queries";
import { permittedAccounts } from "./membership";
import { findAttachedIds, findAttachmentStates, findDirectoryIds } from "./queries";
import type { DirectoryAccountInput } from "./schemas";

export interface AttachResult {
  attached: number;
  alreadyAttached: number;
  accountCount: number;
}

export interface DetachResult {
  detached: number;
  notAttached: string[];
  accountCount: number;
}

function requireEditableAttachments(row: OperationRow, what: string): void {
  requireDraft(row, what);
  if (row.type !== "PRIVATE") {
    throw new ApiError("operation_not_private", `${what} needs a PRIVATE Operation; this one is ${row.type} (every account may order from it).`);
  }
}

/** 403 unless the key may act for every account (`permitted`, from permittedAccounts); nothing is changed. */
function requirePermitted(principal: Principal, accountIds: string[], permitted: Set<string>): void {
  const refused = accountIds.filter((id) => !permitted.has(id));
  if (refused.length) {
    throw new ApiError(
      "account_not_permitted",
      `${refused.length} of these accounts do not list user ${principal.userId} among their users; nothing was changed.`,
      { accountIds: refused },
    );
  }
}

/** What an attachment command recounts: the Operation's accountCount, over operation_accounts. */
const ATTACHMENT_ROWS = { count: "accountCount", operationColumn: operationAccounts.operationId } as const;

/** Attach: 404 → 409 (DRAFT, PRIVATE) → 422 unknown_accounts → 403 account_not_permitted, then one batch. */
export async function attachAccounts(ctx: CommandContext, input: { accountIds: string[] }): Promise<AttachResult> {
  const row = await loadOperation(ctx);
  requireEditableAttachments(row, "Attaching accounts");
  const ids = [...new Set(input.accountIds)];
  // Both reads at once; their verdicts still come in the contract's order (422, then 403).
  const [attachedNow, permitted] = await Promise.all([
    findAttachmentStates(ctx.db, row.tenantId, row.id, ids),
    permittedAccounts(ctx.db, ctx.principal, ids),
  ]);
  const unknownAccountIds = ids.filter((id) => !attachedNow.has(id));
  if (unknownAccountIds.length) {
    throw new ApiError("unknown_accounts", `${unknownAccountIds.length} accounts are not in the directory; nothing was attached.`, {
      unknownAccountIds,
    });
  }
  requirePermitted(ctx.principal, ids, permitted);
  const toAttach = ids.filter((id) => !attachedNow.get(id));
  const alreadyAttached = ids.length - toAttach.length;
  if (!toAttach.length) return { attached: 0, alreadyAttached, accountCount: row.accountCount };
  const attachedAt = nowIso();
  const attachedBy = actorOf(ctx.principal);
  const accountCount = await commitRowChange(ctx, row, {
    writes: jsonChunks(toAttach).map(
      (chunk) => sql`insert into operation_accounts (operation_id, account_id, tenant_id, operation_status, attached_at, attached_by)
        select ${row.id}, value, ${row.tenantId}, 'NOT_STARTED', ${attachedAt}, ${attachedBy} from json_each(${chunk}) where true
        on conflict (operation_id, account_id) do nothing`,
    ),
    ...ATTACHMENT_ROWS,
    event: "accounts.attached",
    data: { attached: toAttach.length, alreadyAttached, accountCount: row.accountCount + toAttach.length },
  });
  return { attached: toAttach.length, alreadyAttached, accountCount };
}

/** Detach: same state and permission rules; ids that are not attached are reported, not refused. */
export async function detachAccounts(ctx: CommandContext, input: { accountIds: string[] }): Promise<DetachResult> {
  const row = await loadOperation(ctx);
  requireEditableAttachments(row, "Detaching accounts");
  const ids = [...new Set(input.accountIds)];
  const [permitted, attached] = await Promise.all([permittedAccounts(ctx.db, ctx.principal, ids), findAttachedIds(ctx.db, row.id, ids)]);
  requirePermitted(ctx.principal, ids, permitted);
  const notAttached = ids.filter((id) => !attached.has(id));
  if (!attached.size) return { detached: 0, notAttached, accountCount: row.accountCount };
  const accountCount = await commitRowChange(ctx, row, {
    writes: inJsonChunks(operationAccounts.accountId, [...attached]).map((accountIsIn) =>
      ctx.db.delete(operationAccounts).where(and(eq(operationAccounts.operationId, row.id), accountIsIn)),
    ),
    ...ATTACHMENT_ROWS,
    event: "accounts.detached",
    data: { detached: attached.size, notAttached: notAttached.length, accountCount: row.accountCount - attached.size },
  });
  return { detached: attached.size, notAttached, accountCount };
}

/** Commands this resource runs inside the Operation's coordinator (see operations/durable-object.ts). */
export const operationCommands = { attachAccounts, detachAccounts };

// ---- directory (tenant-wide, not an Operation command) ---------------------------------

/**
 * Upserts directory accounts and replaces their users (account_users rows deleted and re-inserted)
 * in one batch; every statement carries its rows as one JSON parameter per chunk.
 */
export async function upsertDirectory(db: Db, principal: Principal, input: DirectoryAccountInput[]) {
  const tenantId = principal.tenantId;
  const accountIds = input.map((account) => account.accountId);
  const existing = await findDirectoryIds(db, tenantId, accountIds);
  const now = nowIso();
  const accountTuples = input.map((account) => [
    account.accountId,
    account.name,
    account.name.toLowerCase(),
    JSON.stringify(account.users.map((user) => ({ userId: user.userId, email: user.email }))),
  ]);
  const userTuples = input.flatMap((account) =>
    account.users.map((user) => [account.accountId, user.userId, user.email.toLowerCase()]),
  );
  const updated = accountIds.filter((id) => existing.has(id)).length;
  const created = accountIds.length - updated;
  const statements: Statement[] = [
    ...jsonChunks(accountTuples).map(
      (chunk) => sql`insert into accounts (tenant_id, account_id, name, name_search, users, created_at, updated_at)
        select ${tenantId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, ${now}, ${now} from json_each(${chunk}) where true
        on conflict (tenant_id, account_id) do update set
          name = excluded.name, name_search = excluded.name_search, users = excluded.users, updated_at = excluded.updated_at`,
    ),
    ...inJsonChunks(accountUsers.accountId, accountIds).map((accountIsIn) =>
      db.delete(accountUsers).where(and(eq(accountUsers.tenantId, tenantId), accountIsIn)),
    ),
    ...(userTuples.length ? jsonChunks(userTuples) : []).map(
      (chunk) => sql`insert into account_users (tenant_id, account_id, user_id, email_lower)
        select ${tenantId}, value ->> 0, value ->> 1, value ->> 2 from json_each(${chunk}) where true`,
    ),
    appendEvent(db, {
      tenantId,
      type: "directory.upserted",
      actor: actorOf(principal),
      data: { created, updated, users: userTuples.length },
    }),
  ];
  await runBatch(db, statements);
  return { created, updated };
}
