import { and, desc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import { typeCode, type StoredChanges } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { inJsonList } from "../platform/data/sql";
import { changeRecords, changeSets } from "../platform/data/tables";

/*
 * The records of an Operation's changes made after a version, newest first, and undoing them: what
 * every read of a past version (versions.ts, line-windows.ts) starts from.
 */

/** A record of a change made after the version asked for. */
export interface LaterRecord {
  version: number;
  type: string;
  action: string;
  resourceId: string;
  changes: StoredChanges;
}

export type Fields = Record<string, unknown>;

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
export interface RecordFilter {
  types: ("operation" | "line" | "attachment")[];
  /** Only these resources' records: a list of ids, or a subquery giving them. */
  resourceIds?: readonly string[] | SQL;
}

export const laterRecordsWhere = (tenantId: string, operationId: string, version: number, filter: RecordFilter) =>
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
export function laterRecordsQuery(db: Db, tenantId: string, operationId: string, version: number, filter: RecordFilter) {
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

export const laterRecordsOf = (rows: { version: number | null; type: string; action: string; resourceId: string; changes: string }[]): LaterRecord[] =>
  rows.map((row) => ({ ...row, version: row.version!, changes: JSON.parse(row.changes) as StoredChanges }));

/** The Operation's records (of `filter`'s types, and resources if it names them) made after `version`, newest first. */
export async function recordsAfter(db: Db, tenantId: string, operationId: string, version: number, filter: RecordFilter): Promise<LaterRecord[]> {
  return laterRecordsOf(await laterRecordsQuery(db, tenantId, operationId, version, filter));
}
