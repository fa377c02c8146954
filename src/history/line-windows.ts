import { and, asc, desc, eq, gt, lt, lte, type SQL, sql } from "drizzle-orm";
import { LINE_FIELD_NAMES } from "../operations/aggregate";
import { operationLines, storedLineColumns } from "../operations/tables";
import { changeOf, recordedFields } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { compareText } from "../platform/data/pagination";
import { inJsonList } from "../platform/data/sql";
import { changeRecords, changeSets } from "../platform/data/tables";
import { type Fields, type LaterRecord, laterRecordsOf, laterRecordsQuery, laterRecordsWhere, undoRecords } from "./later-records";

/*
 * An Operation's lines at a version, and between two, a page at a time: only the lines of the page
 * (and the records that touch them) are read and undone, not every line the Operation has.
 */

/** One page of `lines` in variantExternalId order (as linePageAt, from lines already undone). */
export function linePageOf(lines: Map<string, LineAtVersion>, window: LineWindow): { lines: LineAtVersion[]; more: boolean } {
  const wanted = window.variantIds && new Set(window.variantIds);
  const direction = window.desc ? -1 : 1;
  const page = [...lines.values()]
    .filter(
      (line) => (!wanted || wanted.has(line.variantExternalId)) && (window.after === null || direction * compareText(line.variantExternalId, window.after) > 0),
    )
    .sort((a, b) => direction * compareText(a.variantExternalId, b.variantExternalId));
  return { lines: page.slice(0, window.limit), more: page.length > window.limit };
}

/** The lines that differ from `from` to `to`, a page in variantExternalId order (as lineChangesBetween, from lines already undone). */
export function lineChangesOf(
  from: Map<string, LineAtVersion>,
  to: Map<string, LineAtVersion>,
  window: { after: string | null; limit: number },
): { changes: LineChange[]; more: boolean } {
  const ids = [...new Set([...from.keys(), ...to.keys()])].filter((id) => window.after === null || compareText(id, window.after) > 0).sort(compareText);
  const changes: LineChange[] = [];
  for (const id of ids) {
    const change = { variantExternalId: id, before: from.get(id) ?? null, after: to.get(id) ?? null };
    if (sameLine(change.before, change.after)) continue;
    if (changes.length === window.limit) return { changes, more: true };
    changes.push(change);
  }
  return { changes, more: false };
}

/** Lines as they were before `records` (newest first), from the lines after them, by variantExternalId. */
export function linesAfterUndoing(current: readonly LineAtVersion[], records: readonly LaterRecord[]): Map<string, LineAtVersion> {
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

/** The ids of the lines that records matching `where` name (each once), in id order (or reversed: `descending`), `reach` of them at most. */
function recordedLineIds(db: Db, where: SQL | undefined, descending: boolean, reach: number) {
  return db
    .selectDistinct({ id: changeRecords.resourceId })
    .from(changeSets)
    .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
    .where(where)
    .orderBy(descending ? desc(changeRecords.resourceId) : asc(changeRecords.resourceId))
    .limit(reach);
}

/**
 * One page of the Operation's lines at `version` in variantExternalId order (the lines list's
 * default sort), after `after`, without undoing every line: a line then either is one now or was
 * deleted since, and at most `createdSince` of the lines now (or of the deleted ones) are absent
 * then (created since). So the first limit + createdSince + 1 of each, beyond the cursor, hold the
 * page; only their records are read and undone. One batch: the two windows, and the records of
 * the lines in them (the windows again, as a subquery).
 */
export async function linePageAt(
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
  const deletedWindow = recordedLineIds(
    db,
    and(
      laterRecordsWhere(tenantId, operationId, version, { types: ["line"], resourceIds: window.variantIds }),
      eq(changeRecords.action, "d"),
      beyond(changeRecords.resourceId),
    ),
    window.desc,
    reach,
  );
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
export async function lineChangesBetween(
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
    const touched = recordedLineIds(
      db,
      and(
        laterRecordsWhere(tenantId, operationId, older, { types: ["line"] }),
        lte(changeSets.version, newer),
        after === null ? undefined : gt(changeRecords.resourceId, after),
      ),
      false,
      reach,
    );
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
