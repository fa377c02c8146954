import { and, asc, desc, eq, gt, inArray, isNotNull, lt, lte, sql, type SQL } from "drizzle-orm";
import { LINE_FIELD_NAMES, type OperationRow } from "../operations/aggregate";
import { operationAccounts, operationLines, operations, storedLineColumns } from "../operations/tables";
import { ApiError } from "../platform/core/errors";
import { changeOf, recordedFields, typeCode, type StoredChanges } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { compareText } from "../platform/data/pagination";
import { inJsonList } from "../platform/data/sql";
import { changeRecords, changeSets } from "../platform/data/tables";

/*
 * An Operation as it was at a version, computed backwards from what it is now: each change made
 * after that version is undone, newest first, from its record (an update gives back each changed
 * field's previous value, a create removes the resource, a delete brings it back with every field
 * it had). Exact for every version its history covers: changes are recorded in their own batch.
 */

/** A record of a change made after the version asked for. */
interface LaterRecord {
  version: number;
  type: string;
  action: string;
  resourceId: string;
  changes: StoredChanges;
}

type Fields = Record<string, unknown>;

/** Undoes `records` (newest first) on `state` (resource id → fields), in place. */
export function undoRecords(state: Map<string, Fields>, records: readonly LaterRecord[]): Map<string, Fields> {
  for (const record of records) {
    if (record.action === "c") state.delete(record.resourceId);
    else if (record.action === "d") state.set(record.resourceId, { ...record.changes });
    else {
      const fields = { ...state.get(record.resourceId) };
      for (const [field, [previous]] of Object.entries(record.changes as Record<string, [unknown, unknown]>)) fields[field] = previous;
      state.set(record.resourceId, fields);
    }
  }
  return state;
}

/** Which of the records after a version to read: all of their types, or only some resources. */
interface RecordFilter {
  types: ("operation" | "line" | "attachment")[];
  /** Only these resources' records: a list of ids, or a subquery giving them. */
  resourceIds?: readonly string[] | SQL;
}

const laterRecordsWhere = (tenantId: string, operationId: string, version: number, filter: RecordFilter) =>
  and(
    eq(changeSets.tenantId, tenantId),
    eq(changeSets.operationId, operationId),
    gt(changeSets.version, version),
    inArray(changeRecords.resourceType, filter.types.map(typeCode)),
    ...(filter.resourceIds === undefined
      ? []
      : [
          // Every action named, so that each resource is one seek of the records' key.
          inArray(changeRecords.action, ["c", "u", "d"]),
          Array.isArray(filter.resourceIds)
            ? inJsonList(changeRecords.resourceId, filter.resourceIds)
            : sql`${changeRecords.resourceId} in ${filter.resourceIds}`,
        ]),
  );

/** The statement reading the Operation's records (of `filter`) made after `version`, newest first. */
function laterRecordsQuery(db: Db, tenantId: string, operationId: string, version: number, filter: RecordFilter) {
  return db
    .select({
      version: changeSets.version,
      type: changeRecords.resourceType,
      action: changeRecords.action,
      resourceId: changeRecords.resourceId,
      changes: changeRecords.changes,
    })
    .from(changeSets)
    .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
    .where(laterRecordsWhere(tenantId, operationId, version, filter))
    .orderBy(desc(changeSets.version), desc(changeRecords.ordinal));
}

const laterRecordsOf = (rows: { version: number | null; type: string; action: string; resourceId: string; changes: string }[]): LaterRecord[] =>
  rows.map((row) => ({ ...row, version: row.version!, changes: JSON.parse(row.changes) as StoredChanges }));

/** The Operation's records (of `filter`'s types, and resources if it names them) made after `version`, newest first. */
export async function recordsAfter(db: Db, tenantId: string, operationId: string, version: number, filter: RecordFilter): Promise<LaterRecord[]> {
  return laterRecordsOf(await laterRecordsQuery(db, tenantId, operationId, version, filter));
}

/**
 * What the Operation's history covers (its last version, and the first it can show: 1 when its
 * creation was recorded), and what was done to it after a version: one batch, one round trip.
 */
interface History {
  /** The Operation as it is, or as its deletion recorded it (then `deleted`). */
  row: OperationRow;
  deleted: boolean;
  first: number;
  /** Its versions in order, and when each was made. */
  sets: { version: number | null; at: string }[];
  /** Its own records after the version asked for, newest first. */
  operationRecords: LaterRecord[];
  /** The lines and attachments each later version created (c) and deleted (d). */
  counts: { version: number | null; type: string; action: string; count: number }[];
}

async function readHistory(db: Db, tenantId: string, operationId: string, since: number): Promise<History> {
  const [[current], sets, operationRecords, counts] = await db.batch([
    db
      .select()
      .from(operations)
      .where(and(eq(operations.tenantId, tenantId), eq(operations.id, operationId)))
      .limit(1),
    db
      .select({
        version: changeSets.version,
        at: changeSets.at,
        created: sql<number>`exists (select 1 from ${changeRecords} where ${changeRecords.setId} = ${changeSets.id} and ${changeRecords.resourceType} = 'o' and ${changeRecords.action} = 'c')`,
      })
      .from(changeSets)
      // The sets that made a version: a decision on the Operation (an approval) makes none.
      .where(and(eq(changeSets.tenantId, tenantId), eq(changeSets.operationId, operationId), isNotNull(changeSets.version)))
      .orderBy(changeSets.version),
    laterRecordsQuery(db, tenantId, operationId, since, { types: ["operation"] }),
    db
      .select({ version: changeSets.version, type: changeRecords.resourceType, action: changeRecords.action, count: sql<number>`count(*)` })
      .from(changeSets)
      .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
      .where(and(laterRecordsWhere(tenantId, operationId, since, { types: ["line", "attachment"] }), inArray(changeRecords.action, ["c", "d"])))
      .groupBy(changeSets.version, changeRecords.resourceType, changeRecords.action),
  ]);
  if (!sets.length && !current) throw new ApiError("not_found", `Operation ${operationId} not found.`);
  // Changes before the history began (an Operation older than it) cannot be undone: its span starts after them.
  const first = sets.length && sets[0].created ? 1 : (sets[0]?.version ?? current!.version);
  const later = { sets, operationRecords: laterRecordsOf(operationRecords), counts, first };
  if (current) return { row: current, deleted: false, ...later };
  const last = sets[sets.length - 1];
  const deletion = later.operationRecords.find((record) => record.version === last.version && record.action === "d");
  // createdAt: as its deletion recorded it, else (recorded before it was) when its creation was.
  const createdAt = first === 1 ? sets[0].at : last.at;
  const gone = {
    createdAt,
    ...(deletion?.changes ?? {}),
    id: operationId,
    tenantId,
    version: last.version!,
    lineCount: 0,
    accountCount: 0,
    updatedAt: last.at,
  } as unknown as OperationRow;
  return { row: gone, deleted: true, ...later };
}

/** 404 version_not_found unless the Operation's history covers `version`. */
function requireVersion(history: History, version: number): void {
  const last = history.deleted ? history.row.version - 1 : history.row.version;
  if (version < history.first || version > last) {
    const covered = history.first <= last ? `versions ${history.first} to ${last}` : "no version";
    throw new ApiError("version_not_found", `Operation ${history.row.id} has no version ${version}: its history covers ${covered}.`, {
      firstVersion: history.first,
      lastVersion: last,
    });
  }
}

/** The Operation at one version: its row then, and its lines and attachments then, each read when asked for. */
export interface OperationAtVersion {
  row: OperationRow;
  lines(): Promise<Map<string, LineAtVersion>>;
  /** One page of its lines in variantExternalId order, reading only what that page needs (linePageAt). */
  linePage(window: LineWindow): Promise<{ lines: LineAtVersion[]; more: boolean }>;
  /** The lines that differ between this version and `other`, a page at a time (lineChangesBetween). */
  lineChangesTo(other: number, window: { after: string | null; limit: number }): Promise<{ changes: LineChange[]; more: boolean }>;
  attachments(): Promise<Set<string>>;
}

/**
 * The Operation at each of `versions`, from one read: its history since the oldest of them, and its
 * current lines and attachments (each read once, when first asked for). 404 version_not_found
 * unless its history covers every version.
 */
export async function operationVersions(db: Db, tenantId: string, operationId: string, versions: readonly number[]): Promise<OperationAtVersion[]> {
  const oldest = Math.min(...versions);
  const history = await readHistory(db, tenantId, operationId, oldest);
  for (const version of versions) requireVersion(history, version);
  const once = <T>(read: () => Promise<T>) => {
    let value: T | undefined;
    return async () => (value ??= await read());
  };
  const laterOf = {
    l: once(() => recordsAfter(db, tenantId, operationId, oldest, { types: ["line"] })),
    a: once(() => recordsAfter(db, tenantId, operationId, oldest, { types: ["attachment"] })),
  };
  const currentLines = once(async () =>
    history.deleted ? [] : db.select(storedLineColumns).from(operationLines).where(eq(operationLines.operationId, operationId)),
  );
  const currentAttachments = once(async () =>
    history.deleted ? [] : db.select({ accountId: operationAccounts.accountId }).from(operationAccounts).where(eq(operationAccounts.operationId, operationId)),
  );
  // A deleted Operation's lines and attachments come back from its deletion's records.
  const now = history.deleted ? { lineCount: 0, accountCount: 0 } : { lineCount: history.row.lineCount, accountCount: history.row.accountCount };
  return versions.map((version) => {
    const after = <T extends { version: number | null }>(rows: T[]) => rows.filter((row) => row.version! > version);
    const [fields] = undoRecords(
      new Map([["operation", { ...history.row } as Fields]]),
      after(history.operationRecords).map((record) => ({ ...record, resourceId: "operation" })),
    ).values();
    const changed = (type: string, action: string) =>
      after(history.counts).reduce((sum, row) => sum + (row.type === type && row.action === action ? row.count : 0), 0);
    const madeAt = history.sets.filter((set) => set.version! <= version).at(-1)?.at;
    return {
      row: {
        ...(fields as OperationRow),
        id: operationId,
        lineCount: now.lineCount - changed("l", "c") + changed("l", "d"),
        accountCount: now.accountCount - changed("a", "c") + changed("a", "d"),
        version,
        updatedAt: madeAt ?? history.row.createdAt,
      },
      async lines() {
        const [current, later] = await Promise.all([currentLines(), laterOf.l()]);
        return linesAfterUndoing(current, after(later));
      },
      linePage: (window) => linePageAt(db, { tenantId, operationId, version, deleted: history.deleted, createdSince: changed("l", "c") }, window),
      lineChangesTo: (other, window) => lineChangesBetween(db, { tenantId, operationId, deleted: history.deleted }, version, other, window),
      async attachments() {
        const [current, later] = await Promise.all([currentAttachments(), laterOf.a()]);
        return new Set(undoRecords(new Map(current.map(({ accountId }) => [accountId, { accountId } as Fields])), after(later)).keys());
      },
    };
  });
}

/** Lines as they were before `records` (newest first), from the lines after them, by variantExternalId. */
function linesAfterUndoing(current: readonly LineAtVersion[], records: readonly LaterRecord[]): Map<string, LineAtVersion> {
  const state = undoRecords(new Map(current.map(({ variantExternalId, ...line }) => [variantExternalId, line as Fields])), records);
  return new Map(
    [...state].map(([variantExternalId, line]) => [variantExternalId, { variantExternalId, ...(line as Omit<LineAtVersion, "variantExternalId">) }]),
  );
}

/** A page of lines by variantExternalId: those after `after` (before it when `desc`), of `variantIds` if given. */
export interface LineWindow {
  after: string | null;
  desc: boolean;
  limit: number;
  variantIds?: readonly string[];
}

/**
 * One page of the Operation's lines at `version` in variantExternalId order (the lines list's
 * default sort), after `after`, without undoing every line: a line then either is one now or was
 * deleted since, and at most `createdSince` of the lines now (or of the deleted ones) are absent
 * then (created since). So the first limit + createdSince + 1 of each, beyond the cursor, hold the
 * page; only their records are read and undone. One batch: the two windows, and the records of
 * the lines in them (the windows again, as a subquery).
 */
async function linePageAt(
  db: Db,
  at: { tenantId: string; operationId: string; version: number; deleted: boolean; createdSince: number },
  window: LineWindow,
): Promise<{ lines: LineAtVersion[]; more: boolean }> {
  const { tenantId, operationId, version } = at;
  type IdColumn = typeof operationLines.variantExternalId | typeof changeRecords.resourceId;
  const beyond = (column: IdColumn) => (window.after === null ? undefined : window.desc ? lt(column, window.after) : gt(column, window.after));
  const order = (column: IdColumn) => (window.desc ? desc(column) : asc(column));
  const reach = window.limit + at.createdSince + 1;
  const currentWhere = and(
    eq(operationLines.operationId, operationId),
    // A deleted Operation has no lines now: its lines then all come back from their records.
    at.deleted ? sql`false` : undefined,
    window.variantIds && inJsonList(operationLines.variantExternalId, window.variantIds),
    beyond(operationLines.variantExternalId),
  );
  const currentLines = db.select(storedLineColumns).from(operationLines).where(currentWhere).orderBy(order(operationLines.variantExternalId)).limit(reach);
  const currentIds = db
    .select({ id: operationLines.variantExternalId })
    .from(operationLines)
    .where(currentWhere)
    .orderBy(order(operationLines.variantExternalId))
    .limit(reach);
  const deletedWindow = db
    .selectDistinct({ id: changeRecords.resourceId })
    .from(changeSets)
    .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
    .where(
      and(
        laterRecordsWhere(tenantId, operationId, version, { types: ["line"], resourceIds: window.variantIds }),
        eq(changeRecords.action, "d"),
        beyond(changeRecords.resourceId),
      ),
    )
    .orderBy(order(changeRecords.resourceId))
    .limit(reach);
  const inEitherWindow = sql`(select * from (${currentIds}) union select * from (${deletedWindow}))`;
  const [current, records] = await db.batch([
    currentLines,
    laterRecordsQuery(db, tenantId, operationId, version, { types: ["line"], resourceIds: inEitherWindow }),
  ]);
  const then = [...linesAfterUndoing(current, laterRecordsOf(records)).values()].sort(
    (a, b) => (window.desc ? -1 : 1) * compareText(a.variantExternalId, b.variantExternalId),
  );
  return { lines: then.slice(0, window.limit), more: then.length > window.limit };
}

/** A line as it was at two versions (null where it did not exist). */
export interface LineChange {
  variantExternalId: string;
  before: LineAtVersion | null;
  after: LineAtVersion | null;
}

/**
 * The lines that differ from version `from` to `to`, in variantExternalId order after `after`: only
 * lines recorded between the two can differ, so each round reads a window of those ids (in SQL), the
 * lines now of the window and its records since the older version (one batch), and undoes them to
 * both versions. A line changed and changed back differs in nothing and is left out; rounds go on
 * until the page is full or the window runs out.
 */
async function lineChangesBetween(
  db: Db,
  at: { tenantId: string; operationId: string; deleted: boolean },
  from: number,
  to: number,
  window: { after: string | null; limit: number },
): Promise<{ changes: LineChange[]; more: boolean }> {
  const { tenantId, operationId } = at;
  const [older, newer] = from < to ? [from, to] : [to, from];
  const changes: LineChange[] = [];
  let after = window.after;
  for (;;) {
    const reach = window.limit + 1 - changes.length;
    const touched = db
      .selectDistinct({ id: changeRecords.resourceId })
      .from(changeSets)
      .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
      .where(
        and(
          laterRecordsWhere(tenantId, operationId, older, { types: ["line"] }),
          lte(changeSets.version, newer),
          after === null ? undefined : gt(changeRecords.resourceId, after),
        ),
      )
      .orderBy(asc(changeRecords.resourceId))
      .limit(reach);
    const inTouched = sql`(select * from (${touched}))`;
    const [ids, current, records] = await db.batch([
      touched,
      db
        .select(storedLineColumns)
        .from(operationLines)
        .where(and(eq(operationLines.operationId, operationId), at.deleted ? sql`false` : undefined, sql`${operationLines.variantExternalId} in ${inTouched}`)),
      laterRecordsQuery(db, tenantId, operationId, older, { types: ["line"], resourceIds: inTouched }),
    ]);
    const later = laterRecordsOf(records);
    const atNewer = linesAfterUndoing(
      current,
      later.filter((record) => record.version > newer),
    );
    const atOlder = linesAfterUndoing(
      [...atNewer.values()],
      later.filter((record) => record.version <= newer),
    );
    const [atFrom, atTo] = from < to ? [atOlder, atNewer] : [atNewer, atOlder];
    for (const { id } of ids) {
      const change = { variantExternalId: id, before: atFrom.get(id) ?? null, after: atTo.get(id) ?? null };
      if (!sameLine(change.before, change.after)) changes.push(change);
      if (changes.length > window.limit) return { changes: changes.slice(0, window.limit), more: true };
    }
    if (ids.length < reach) return { changes, more: false };
    after = ids[ids.length - 1].id;
  }
}

/** A line's recorded fields, compared and shown as history records them. */
export const LINE_FIELDS = recordedFields<LineAtVersion>(LINE_FIELD_NAMES);

const sameLine = (a: LineAtVersion | null, b: LineAtVersion | null) => !changeOf("line", (a ?? b)?.variantExternalId ?? "", a, b, LINE_FIELDS);

/** The Operation at `version` (operationVersions of one). */
export async function operationVersion(db: Db, tenantId: string, operationId: string, version: number): Promise<OperationAtVersion> {
  const [then] = await operationVersions(db, tenantId, operationId, [version]);
  return then;
}

/** A line's fields, as a stored line has them and history records them. */
export interface LineAtVersion {
  variantExternalId: string;
  variantId: string | null;
  variantName: Record<string, string>;
  minQuantity: number;
  maxQuantity: number;
  recommendedQuantity: number | null;
  quantityIncrement: number;
}
