import { actorOf } from "../platform/core/principal";
import { defineCommand, type CommandContext } from "../operations/coordinator/protocol";
import { insertFromJson } from "../platform/data/sql";
import { ApiError } from "../platform/core/errors";
import { operationAccounts } from "../operations/tables";
import { nowIso } from "../platform/core/time";
import { permittedAccounts, requirePermitted } from "../directory/membership";
import { commitRowChange, findOwnedKeys, loadOperationWith, removeOwnedRows, requireDraft, type OperationRow, type OwnedRows } from "../operations/aggregate";
import { changeOf, recordedFields, recordsOf } from "../platform/data/changes";
import { attachedStatements, detachedStatements } from "../totals/commands";
import { findAttachmentStates } from "./queries";

export interface AttachResult {
  attached: number;
  alreadyAttached: number;
  accountCount: number;
}

/** What attach and detach take: the accounts, and whether it is a dry run. */
export interface AccountIdsInput {
  accountIds: string[];
  dryRun: boolean;
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

/** An attachment as history records it: the account it attaches (also its record's resource id). */
export const ATTACHMENT_FIELDS = recordedFields<{ accountId: string }>(["accountId"]);
export const attachmentChange = (accountId: string, attached: boolean) =>
  changeOf("attachment", accountId, attached ? null : { accountId }, attached ? { accountId } : null, ATTACHMENT_FIELDS);

/**
 * The Operation's attached accounts: counted in accountCount, keyed by accountId. A detached account's
 * totals row goes with it unless it counts something.
 */
export const ATTACHMENT_ROWS: OwnedRows = {
  count: "accountCount",
  operationColumn: operationAccounts.operationId,
  keyColumn: operationAccounts.accountId,
  alsoWhenDeleted: (db, operationId, accountIds) => detachedStatements(db, operationId, accountIds),
};

/** The inserts attaching `accountIds` to the Operation (none attached yet), each with its totals row. */
export function attachStatements(row: OperationRow, accountIds: readonly string[], by: { attachedAt: string; attachedBy: string }) {
  return [...attachmentRows(row, accountIds, by), ...attachedStatements(row.tenantId, row.id, accountIds)];
}

function attachmentRows(row: OperationRow, accountIds: readonly string[], by: { attachedAt: string; attachedBy: string }) {
  return insertFromJson(
    operationAccounts,
    accountIds,
    [
      [operationAccounts.operationId, row.id],
      [operationAccounts.accountId, (accountId) => accountId],
      [operationAccounts.tenantId, row.tenantId],
      [operationAccounts.operationStatus, "NOT_STARTED"],
      [operationAccounts.attachedAt, by.attachedAt],
      [operationAccounts.attachedBy, by.attachedBy],
    ],
    { target: [operationAccounts.operationId, operationAccounts.accountId] },
  );
}

/** Attach: 404 → 409 (DRAFT, PRIVATE) → 422 unknown_accounts → 403 account_not_permitted, then one batch. */
export const attachAccounts = defineCommand(
  "accounts.attach",
  async function attachAccounts(ctx: CommandContext, input: AccountIdsInput): Promise<AttachResult> {
    const ids = [...new Set(input.accountIds)];
    // Every read at once; their verdicts still come in the contract's order (404, 409, 422, then 403).
    const [row, [attachedNow, permitted]] = await loadOperationWith(ctx, () =>
      Promise.all([findAttachmentStates(ctx.db, ctx.principal.tenantId, ctx.operationId, ids), permittedAccounts(ctx.db, ctx.principal, ids)]),
    );
    requireEditableAttachments(row, "Attaching accounts");
    const unknownAccountIds = ids.filter((id) => !attachedNow.has(id));
    if (unknownAccountIds.length) {
      throw new ApiError("unknown_accounts", `${unknownAccountIds.length} accounts are not in the directory; nothing was attached.`, {
        unknownAccountIds,
      });
    }
    requirePermitted(ctx.principal, ids, permitted, "nothing was changed");
    const toAttach = ids.filter((id) => !attachedNow.get(id));
    const alreadyAttached = ids.length - toAttach.length;
    if (!toAttach.length) return { attached: 0, alreadyAttached, accountCount: row.accountCount };
    const attachedAt = nowIso();
    const attachedBy = actorOf(ctx.principal);
    const accountCount = await commitRowChange(ctx, row, {
      rows: ATTACHMENT_ROWS,
      writes: attachStatements(row, toAttach, { attachedAt, attachedBy }),
      records: recordsOf(toAttach.map((accountId) => attachmentChange(accountId, true))),
      event: "accounts.attached",
      data: { attached: toAttach.length, alreadyAttached, accountCount: row.accountCount + toAttach.length },
      countAfter: row.accountCount + toAttach.length,
      dryRun: input.dryRun,
    });
    return { attached: toAttach.length, alreadyAttached, accountCount };
  },
  (_input, result) => ({ what: "accounts", counts: { attached: result.attached, accountCount: result.accountCount } }),
);

/** Detach: same state and permission rules; ids that are not attached are reported, not refused. */
export const detachAccounts = defineCommand(
  "accounts.detach",
  async function detachAccounts(ctx: CommandContext, input: AccountIdsInput): Promise<DetachResult> {
    const ids = [...new Set(input.accountIds)];
    const [row, [permitted, found]] = await loadOperationWith(ctx, () =>
      Promise.all([permittedAccounts(ctx.db, ctx.principal, ids), findOwnedKeys(ctx, ATTACHMENT_ROWS, ids)]),
    );
    requireEditableAttachments(row, "Detaching accounts");
    requirePermitted(ctx.principal, ids, permitted, "nothing was changed");
    const { removed, notFound, count } = await removeOwnedRows(ctx, row, {
      rows: ATTACHMENT_ROWS,
      keys: ids,
      found,
      recordOf: (accountId) => attachmentChange(accountId, false),
      event: "accounts.detached",
      eventNames: { removed: "detached", notFound: "notAttached" },
      dryRun: input.dryRun,
    });
    return { detached: removed, notAttached: notFound, accountCount: count };
  },
  (_input, result) => ({ what: "accounts", counts: { detached: result.detached, accountCount: result.accountCount } }),
);

/** The commands of this resource, for the coordinator's registry. */
export const attachmentCommands = [attachAccounts, detachAccounts];
