import { and, eq, ne } from "drizzle-orm";
import { ApiError } from "../platform/core/errors";
import { operations } from "../operations/tables";
import { actorOf } from "../platform/core/principal";
import { nowIso } from "../platform/core/time";
import { changeOf, recordsOf } from "../platform/data/changes";
import type { Statement } from "../platform/data/sql";
import { ATTACHMENT_ROWS, attachmentChange, attachStatements } from "../attachments/commands";
import { operationVersions } from "../history/versions";
import { LINE_FIELDS, LINE_ROWS, upsertStatements } from "../lines/commands";
import {
  bumpOperation,
  checkIfMatch,
  commit,
  deleteOwnedRows,
  loadOperation,
  operationChange,
  operationChanges,
  operationEvent,
  recountOf,
  requireDraft,
  unchangedSince,
  type OperationRow,
} from "../operations/aggregate";
import { ownerStatements } from "../operations/commands";
import { defineCommand, type CommandContext } from "../operations/coordinator/protocol";
import { foldedText, searchText, sortText } from "../platform/core/locale";

/** What a revert changes, counted (a dry run answers them; so does the revert itself). */
export interface RevertCounts {
  fields: number;
  linesUpserted: number;
  linesRemoved: number;
  accountsAttached: number;
  accountsDetached: number;
}

/** The Operation's fields a revert takes back (not its status, nor its schedule). */
const REVERTED_FIELDS = ["code", "externalId", "name", "description", "type", "startDate", "endDate", "ownerIds"] as const;

/**
 * Makes the Operation's fields (not its status or schedule), lines and attachments what they were
 * at `toVersion`, as one new version, in one batch through the Operation's Durable Object like any
 * edit: DRAFT only, If-Match honoured, a dry run answers the counts and changes nothing. It records a
 * change record per resource it changes and operation.reverted { fromVersion, toVersion }.
 */
export const revertOperation = defineCommand(
  "operation.revert",
  async function revertOperation(
    ctx: CommandContext,
    input: { toVersion: number; ifMatch?: string | null; dryRun: boolean },
  ): Promise<{ operation: OperationRow; counts: RevertCounts }> {
    const row = await loadOperation(ctx);
    checkIfMatch(row, input.ifMatch);
    requireDraft(row, "Reverting");
    const [then, now] = await operationVersions(ctx, ctx.principal.tenantId, row.id, [input.toVersion, row.version]);
    const [linesThen, linesNow, attachedThen, attachedNow] = await Promise.all([then.lines(), now.lines(), then.attachments(), now.attachments()]);

    const fields = Object.fromEntries(REVERTED_FIELDS.map((field) => [field, then.row[field]])) as Partial<OperationRow>;
    const after: OperationRow = { ...row, ...fields };
    const operationRecord = operationChange(row, after);
    const lineRecords = recordsOf(
      [...new Set([...linesThen.keys(), ...linesNow.keys()])].map((id) =>
        changeOf("line", id, linesNow.get(id) ?? null, linesThen.get(id) ?? null, LINE_FIELDS),
      ),
    );
    const upserted = lineRecords.filter((record) => record.action !== "deleted").map((record) => linesThen.get(record.id)!);
    const removed = lineRecords.filter((record) => record.action === "deleted").map((record) => record.id);
    const attach = [...attachedThen].filter((accountId) => !attachedNow.has(accountId));
    const detach = [...attachedNow].filter((accountId) => !attachedThen.has(accountId));
    const counts: RevertCounts = {
      fields: operationRecord?.changes ? Object.keys(operationRecord.changes).length : 0,
      linesUpserted: upserted.length,
      linesRemoved: removed.length,
      accountsAttached: attach.length,
      accountsDetached: detach.length,
    };
    const records = recordsOf([
      operationRecord,
      ...lineRecords,
      ...attach.map((accountId) => attachmentChange(accountId, true)),
      ...detach.map((accountId) => attachmentChange(accountId, false)),
    ]);
    // Back to what it already is: no version (a version always has the change set naming its author).
    if (!records.length) return { operation: row, counts };
    // The batch would meet the (tenant, code) key: a dry run answers as the write would.
    if (fields.code !== row.code && (await codeTaken(ctx, fields.code!))) {
      throw new ApiError("duplicate_code", `Operation code ${fields.code} is used by another Operation of this tenant since version ${input.toVersion}.`);
    }
    if (input.dryRun) return { operation: { ...after, lineCount: then.row.lineCount, accountCount: then.row.accountCount }, counts };

    const locale = ctx.principal.tenantDefaultLocale;
    const updatedAt = nowIso();
    const statements: Statement[] = [
      unchangedSince(row),
      ...upsertStatements(ctx, row, upserted, linesNow, nowIso()),
      ...deleteOwnedRows(ctx, row, LINE_ROWS, removed),
      ...attachStatements(row, attach, { attachedAt: nowIso(), attachedBy: actorOf(ctx.principal) }),
      ...deleteOwnedRows(ctx, row, ATTACHMENT_ROWS, detach),
      bumpOperation(
        ctx,
        row,
        {
          ...fields,
          nameSearch: searchText(after.name),
          nameSort: sortText(after.name, locale),
          nameFolded: foldedText(after.name),
          lineCount: recountOf(row, LINE_ROWS),
          accountCount: recountOf(row, ATTACHMENT_ROWS),
        },
        updatedAt,
      ),
      ...(operationRecord?.changes.ownerIds ? ownerStatements(ctx.db, row.tenantId, row.id, after.ownerIds, true) : []),
      operationEvent(ctx, "operation.reverted", { fromVersion: row.version, toVersion: input.toVersion, ...counts }),
      ...operationChanges(ctx, row, records),
    ];
    await commit(ctx, statements);
    // The batch leaves the counts the version had (recounted in SQL from the rows it leaves).
    return { operation: { ...after, lineCount: then.row.lineCount, accountCount: then.row.accountCount, version: row.version + 1, updatedAt }, counts };
  },
  (_input, result) => ({ what: "operation", counts: { ...result.counts } }),
);

/** Whether another Operation of the tenant has `code`. */
async function codeTaken(ctx: CommandContext, code: string): Promise<boolean> {
  const [taken] = await ctx.db
    .select({ id: operations.id })
    .from(operations)
    .where(and(eq(operations.tenantId, ctx.principal.tenantId), eq(operations.code, code), ne(operations.id, ctx.operationId)))
    .limit(1);
  return taken !== undefined;
}

/** The commands of this folder, for the Operation's Durable Object. */
export const revertCommands = [revertOperation];
