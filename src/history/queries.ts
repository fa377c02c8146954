import { and, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import { actionOfCode, typeCode, typeOfCode, type ResourceType, type StoredChanges } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { listPage, type ListContext, type Page } from "../platform/data/pagination";
import { changeRecords, changeSets } from "../platform/data/tables";
import { historyList, type ChangeRecordRepresentation } from "./schemas";

/** A record as read with its set. */
export type HistoryRow = {
  setId: string;
  ordinal: number;
  resourceType: string;
  action: string;
  resourceId: string;
  changes: string;
  operationId: string | null;
  version: number | null;
  actor: string;
  requestId: string | null;
  reason: string | null;
  at: string;
};

const historyColumns = {
  setId: changeSets.id,
  ordinal: changeRecords.ordinal,
  resourceType: changeRecords.resourceType,
  action: changeRecords.action,
  resourceId: changeRecords.resourceId,
  changes: changeRecords.changes,
  operationId: changeSets.operationId,
  version: changeSets.version,
  actor: changeSets.actor,
  requestId: changeSets.requestId,
  reason: changeSets.reason,
  at: changeSets.at,
};

/** A stored record's changes, field by field: [previous, next] for an update, the value for a create or a delete. */
export function fieldChangesOf(action: string, stored: StoredChanges) {
  return Object.entries(stored).map(([field, value]) => {
    if (action === "u") {
      const [previous, next] = value as [unknown, unknown];
      return { field, previous, next };
    }
    return action === "c" ? { field, next: value } : { field, previous: value };
  });
}

export function toChangeRecordRepresentation(row: HistoryRow): ChangeRecordRepresentation {
  return {
    id: `${row.setId}-${row.ordinal}`,
    resourceType: typeOfCode(row.resourceType),
    resourceId: row.resourceId,
    ...(row.operationId !== null && { operationId: row.operationId }),
    ...(row.version !== null && { version: row.version }),
    action: actionOfCode(row.action),
    changes: fieldChangesOf(row.action, JSON.parse(row.changes) as StoredChanges),
    actor: row.actor,
    ...(row.requestId !== null && { requestId: row.requestId }),
    ...(row.reason !== null && { reason: row.reason }),
    at: row.at,
  };
}

/** What every history list may filter on. */
export interface HistoryFilters {
  limit: number;
  nextToken?: string;
  sort?: string;
  resourceType?: ResourceType;
  resourceId?: string;
  operationId?: string;
  field?: string;
  actorKeyId?: string;
  actorUserId?: string;
  from?: string;
  to?: string;
}

/** A page of the tenant's change records, newest first (or oldest first), with `filters`. */
export async function listHistory({ db, secret, principal }: ListContext, query: HistoryFilters): Promise<Page<HistoryRow>> {
  const conditions: (SQL | undefined)[] = [
    eq(changeSets.tenantId, principal.tenantId),
    query.operationId !== undefined ? eq(changeSets.operationId, query.operationId) : undefined,
    query.resourceType !== undefined ? eq(changeRecords.resourceType, typeCode(query.resourceType)) : undefined,
    query.resourceId !== undefined ? eq(changeRecords.resourceId, query.resourceId) : undefined,
    query.field !== undefined ? sql`json_type(${changeRecords.changes}, ${`$."${query.field}"`}) is not null` : undefined,
    query.actorKeyId !== undefined ? eq(changeSets.actor, `key:${query.actorKeyId}`) : undefined,
    query.actorUserId !== undefined ? eq(changeSets.actor, `user:${query.actorUserId}`) : undefined,
    // Date-times are to the second and include their whole second (records keep milliseconds).
    query.from !== undefined ? gte(changeSets.at, `${query.from.slice(0, 19)}.000Z`) : undefined,
    query.to !== undefined ? lte(changeSets.at, `${query.to.slice(0, 19)}.999Z`) : undefined,
  ];
  return listPage<HistoryRow>({
    definition: historyList,
    secret,
    scope: { tenant: principal.tenantId },
    query,
    filters: conditions,
    run: ({ where, orderBy, limit, cursorColumns }) =>
      db
        .select({ ...historyColumns, ...cursorColumns })
        .from(changeSets)
        .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
        .where(and(where))
        .orderBy(...orderBy)
        .limit(limit) as unknown as Promise<HistoryRow[]>,
  });
}

/** Whether the tenant has an Operation of this id now, or had one (its history stays when it is deleted). */
export async function operationHasHistory(db: Db, tenantId: string, operationId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: changeSets.id })
    .from(changeSets)
    .where(and(eq(changeSets.tenantId, tenantId), eq(changeSets.operationId, operationId)))
    .limit(1);
  return row !== undefined;
}
