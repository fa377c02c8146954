import { RECORDED_LINE_FIELDS, RECORDED_OPERATION_FIELDS } from "../common/recorded-fields";
import { and, eq, sql } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { CommandContext } from "./coordinator/protocol";
import { changeOf, changeStatements, recordDeletedInSql, recordedFields, recordsOf, type ChangeRecord } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { existingKeys, inJsonChunks, runBatch, type Statement, writeGuard } from "../platform/data/sql";
import { isWriteGuardFailure, violatesUnique } from "../platform/data/constraint-errors";
import { ApiError } from "../platform/core/errors";
import { appendEvent } from "../platform/data/events";
import type { EventType } from "../common/event-types";
import { changeSets } from "../platform/data/tables";
import { operationAccounts, operationLines, operations } from "./tables";
import { nowIso } from "../platform/core/time";

/*
 * The steps every Operation command shares. A command reads top to bottom:
 *   load (loadOperation) → check (requireDraft, checkIfMatch, its own rules) →
 *   one batch: the guard (unchangedSince), its change, counts and version (bumpOperation), its event.
 */

export type OperationRow = typeof operations.$inferSelect;

export async function findOperation(db: Db, tenantId: string, operationId: string): Promise<OperationRow | undefined> {
  const [row] = await db
    .select()
    .from(operations)
    .where(and(eq(operations.tenantId, tenantId), eq(operations.id, operationId)))
    .limit(1);
  return row;
}

/**
 * The Operation's version, and the change set that made it if request `requestId` did: one set per
 * version, found through (operation_id, version) and checked to be that request's. Without a request
 * (an order, which makes no version and shares one with many sets) no set is looked for.
 */
export async function versionMadeBy(
  db: Db,
  tenantId: string,
  operationId: string,
  requestId: string | null,
): Promise<{ version: number; changeSetId: string | null } | undefined> {
  if (requestId === null) {
    const row = await findOperation(db, tenantId, operationId);
    return row && { version: row.version, changeSetId: null };
  }
  const [row] = await db
    .select({ version: operations.version, changeSetId: changeSets.id })
    .from(operations)
    .leftJoin(changeSets, and(eq(changeSets.operationId, operations.id), eq(changeSets.version, operations.version), eq(changeSets.requestId, requestId)))
    .where(and(eq(operations.tenantId, tenantId), eq(operations.id, operationId)))
    .limit(1);
  return row;
}

/** The Operation, or 404: scoped to the caller's tenant. */
export async function loadOperation(ctx: CommandContext): Promise<OperationRow> {
  const row = await findOperation(ctx.db, ctx.principal.tenantId, ctx.operationId);
  if (!row) throw new ApiError("not_found", `Operation ${ctx.operationId} not found.`);
  return row;
}

/**
 * The Operation (or 404) and what else the command reads, in one wait: those reads need only the
 * Operation's id, so they run alongside its load, and a far-away database costs one round trip
 * instead of two. Their results are only used once the Operation is known to be the caller's.
 */
export async function loadOperationWith<T>(ctx: CommandContext, read: () => Promise<T>): Promise<[OperationRow, T]> {
  return Promise.all([loadOperation(ctx), read()]);
}

export function checkIfMatch(row: OperationRow, ifMatch: string | null | undefined): void {
  if (ifMatch === undefined || ifMatch === null || ifMatch === "*") return;
  const versions = ifMatch.split(",").map((tag) => tag.trim().replace(/^W\//, "").replace(/"/g, ""));
  if (!versions.includes(String(row.version))) {
    throw new ApiError("version_mismatch", `If-Match ${ifMatch} does not match the current version "${row.version}".`);
  }
}

export function requireDraft(row: OperationRow, what: string): void {
  if (row.status !== "DRAFT") {
    throw new ApiError("operation_not_draft", `${what} needs the Operation in DRAFT; it is ${row.status}.`);
  }
}

/** Guard: the Operation is still at the version the command read (so nothing changed it in between). */
export function unchangedSince(row: OperationRow) {
  return writeGuard(sql`exists (select 1 from ${operations} where ${operations.id} = ${row.id} and ${operations.version} = ${row.version})`);
}

/** Bumps version and updatedAt; `set` adds the command's own column changes (values or SQL, e.g. a recount). */
export function bumpOperation(ctx: CommandContext, row: OperationRow, set: SQLiteUpdateSetSource<typeof operations> = {}, updatedAt = nowIso()) {
  return ctx.db
    .update(operations)
    .set({ ...set, version: row.version + 1, updatedAt })
    .where(and(eq(operations.id, row.id), eq(operations.version, row.version)));
}

/**
 * A bump whose changes are plain values: the statement, and the row exactly as the batch leaves it
 * (the Operation's Durable Object runs one command at a time), so the answer needs no read after
 * the write.
 */
export function bumpWithValues(ctx: CommandContext, row: OperationRow, changes: Partial<OperationRow>) {
  const after: OperationRow = { ...row, ...changes, version: row.version + 1, updatedAt: nowIso() };
  return { statement: bumpOperation(ctx, row, changes, after.updatedAt), after };
}

/** The Operation's fields as history records them. */
export const OPERATION_FIELDS = recordedFields<OperationRow>(RECORDED_OPERATION_FIELDS);

/** The Operation's record of a change from `before` to `after` (undefined: none of its recorded fields changed). */
export function operationChange(before: OperationRow | null, after: OperationRow | null): ChangeRecord | undefined {
  return changeOf("operation", (before ?? after)!.id, before, after, OPERATION_FIELDS);
}

/** A line's fields as history records them. */
export const LINE_FIELD_NAMES = RECORDED_LINE_FIELDS;

/**
 * Statements recording, as deleted, every line and attachment of the Operation (each with all its
 * fields as they are): put them before the statements that delete them.
 */
export function recordEveryRowDeleted(row: OperationRow, setId: string, firstOrdinal: number): Statement[] {
  const lineFields = Object.fromEntries(
    LINE_FIELD_NAMES.map((name) => [name, name === "variantName" ? sql`json(${operationLines.variantName})` : sql`${operationLines[name]}`]),
  );
  return [
    recordDeletedInSql(setId, firstOrdinal, "line", {
      resourceId: sql`${operationLines.variantExternalId}`,
      fields: lineFields,
      source: sql`from ${operationLines} where ${operationLines.operationId} = ${row.id}`,
    }),
    recordDeletedInSql(setId, firstOrdinal + row.lineCount, "attachment", {
      resourceId: sql`${operationAccounts.accountId}`,
      fields: { accountId: sql`${operationAccounts.accountId}` },
      source: sql`from ${operationAccounts} where ${operationAccounts.operationId} = ${row.id}`,
    }),
  ];
}

/**
 * The change set of a command on the Operation, for its batch: the version it makes (the row's
 * next) and a record per resource it changed (the Operation, its lines, its attachments); nothing
 * when no record says anything.
 */
export function operationChanges(
  ctx: CommandContext,
  row: OperationRow,
  records: readonly (ChangeRecord | undefined)[],
  recordedInSql?: (setId: string, firstOrdinal: number) => Statement[],
): Statement[] {
  return changeStatements(ctx.db, {
    tenantId: ctx.principal.tenantId,
    author: ctx.author,
    operationId: row.id,
    version: row.version + 1,
    records: recordsOf(records),
    recordedInSql,
  });
}

export function operationEvent(ctx: CommandContext, type: EventType, data: Record<string, unknown>) {
  return appendEvent(ctx.db, {
    tenantId: ctx.principal.tenantId,
    type,
    actor: ctx.author.actor,
    operationId: ctx.operationId,
    data,
  });
}

/** Runs a command's statements as one D1 transaction; a failed guard means a concurrent change won. */
export async function commit(ctx: CommandContext, statements: Statement[]) {
  try {
    return await runBatch(ctx.db, statements);
  } catch (error) {
    if (isWriteGuardFailure(error)) {
      throw new ApiError("version_mismatch", "The Operation changed while this command ran; read it again and retry.");
    }
    if (violatesUnique(error, operations.tenantId, operations.code)) {
      throw new ApiError("duplicate_code", "Another Operation of this tenant already has this code.");
    }
    throw error;
  }
}

/** The rows an Operation owns and counts (lines, attachments): the count column and the rows' key columns. */
export interface OwnedRows {
  count: "lineCount" | "accountCount";
  operationColumn: AnySQLiteColumn;
  keyColumn: AnySQLiteColumn;
  /** What else goes when rows are deleted (an account's empty totals row). */
  alsoWhenDeleted?: (db: Db, operationId: string, keys: readonly string[]) => Statement[];
}

/**
 * The batch of a command that changes rows under the Operation: the version guard, the writes,
 * the count recounted in SQL with the version bump, the event, and the count read back in the same
 * transaction, so it is exact whatever happened before. Returns that count.
 */
export async function commitRowChange(
  ctx: CommandContext,
  row: OperationRow,
  change: {
    rows: OwnedRows;
    writes: Statement[];
    records: readonly ChangeRecord[];
    event: EventType;
    data: Record<string, unknown>;
    countAfter: number;
    dryRun: boolean;
  },
): Promise<number> {
  // A dry run stops here: every check has run, and the count is what the batch would leave. A write
  // that changes nothing makes no version: a version always has the change set naming its author.
  if (change.dryRun || !change.records.length) return change.countAfter;
  const { count } = change.rows;
  const recount = recountOf(row, change.rows);
  const results = await commit(ctx, [
    unchangedSince(row),
    ...change.writes,
    bumpOperation(ctx, row, { [count]: recount }),
    operationEvent(ctx, change.event, change.data),
    ...operationChanges(ctx, row, change.records),
    sql`select ${operations[count]} as count from ${operations} where ${operations.id} = ${row.id}`,
  ]);
  return (results[results.length - 1].results[0] as { count: number }).count;
}

/** The deletes of the Operation's rows among `keys` (lines, attachments), a statement per JSON chunk. */
export function deleteOwnedRows(ctx: CommandContext, row: OperationRow, rows: OwnedRows, keys: readonly string[]): Statement[] {
  if (!keys.length) return [];
  return [
    ...inJsonChunks(rows.keyColumn, keys).map((keyIsIn) => ctx.db.delete(rows.operationColumn.table).where(and(eq(rows.operationColumn, row.id), keyIsIn))),
    ...(rows.alsoWhenDeleted?.(ctx.db, row.id, keys) ?? []),
  ];
}

/** A count of the Operation's rows (lineCount, accountCount) as SQL, for the bump that follows their change. */
export function recountOf(row: OperationRow, rows: OwnedRows) {
  return sql`(select count(*) from ${rows.operationColumn.table} where ${rows.operationColumn} = ${row.id})`;
}

/** Which of `keys` are rows of the Operation (lines, attachments): read alongside its load. */
export function findOwnedKeys(ctx: CommandContext, rows: OwnedRows, keys: readonly string[]): Promise<Set<string>> {
  return existingKeys(ctx.db, rows.keyColumn, [...new Set(keys)], eq(rows.operationColumn, ctx.operationId));
}

/**
 * Removes the Operation's rows among `keys` (`found`: those that exist, from findOwnedKeys): keys
 * that are not rows are reported, not refused, and removing nothing writes nothing.
 */
export async function removeOwnedRows(
  ctx: CommandContext,
  row: OperationRow,
  change: {
    rows: OwnedRows;
    keys: readonly string[];
    found: ReadonlySet<string>;
    /** The change record of each removed row (its every field, as it was). */
    recordOf: (key: string) => ChangeRecord | undefined;
    event: EventType;
    eventNames: { removed: string; notFound: string };
    dryRun: boolean;
  },
): Promise<{ removed: number; notFound: string[]; count: number }> {
  const { found } = change;
  const notFound = [...new Set(change.keys)].filter((key) => !found.has(key));
  const before = row[change.rows.count];
  if (!found.size) return { removed: 0, notFound, count: before };
  const count = await commitRowChange(ctx, row, {
    rows: change.rows,
    writes: deleteOwnedRows(ctx, row, change.rows, [...found]),
    records: recordsOf([...found].map(change.recordOf)),
    event: change.event,
    data: { [change.eventNames.removed]: found.size, [change.eventNames.notFound]: notFound.length, [change.rows.count]: before - found.size },
    countAfter: before - found.size,
    dryRun: change.dryRun,
  });
  return { removed: found.size, notFound, count };
}
