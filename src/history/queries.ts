import { and, asc, desc, eq, gte, lte, or, sql, type SQL } from "drizzle-orm";
import { actionOfCode, typeCode, typeOfCode, type ResourceType, type StoredChanges } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { bindPage, type ListContext, type Page } from "../platform/data/pagination";
import { changeRecords, changeSetFields, changeSets } from "../platform/data/tables";
import type { ArchivedEntry } from "./archive/objects";
import { anyArchivedQuery, compareKeys, OPERATION_RESOURCE_TYPES, scanArchive, type ArchiveScope, type HistoryKey } from "./archive/reads";
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
  keyId: string | null;
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
  ...changeSetFields,
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
    ...(row.keyId !== null && { actorKeyId: row.keyId }),
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

/** Records an archived page looks at, at most: a filter that matches little answers a shorter page (its nextToken goes on). */
export const ARCHIVE_SCAN_BUDGET = 100_000;

/** Date-times are to the second and include their whole second (records keep milliseconds). */
const atBounds = (query: HistoryFilters) => ({
  from: query.from === undefined ? undefined : `${query.from.slice(0, 19)}.000Z`,
  to: query.to === undefined ? undefined : `${query.to.slice(0, 19)}.999Z`,
});

/** The filters on a record and its set, as SQL (records in the shard) and as a test of an archived entry: the same filters, twice. */
function historyConditions(tenantId: string, query: HistoryFilters) {
  const at = atBounds(query);
  const type = query.resourceType === undefined ? undefined : typeCode(query.resourceType);
  const sqlConditions: (SQL | undefined)[] = [
    eq(changeSets.tenantId, tenantId),
    query.operationId !== undefined ? eq(changeSets.operationId, query.operationId) : undefined,
    type !== undefined ? eq(changeRecords.resourceType, type) : undefined,
    query.resourceId !== undefined ? eq(changeRecords.resourceId, query.resourceId) : undefined,
    query.field !== undefined ? sql`json_type(${changeRecords.changes}, ${`$."${query.field}"`}) is not null` : undefined,
    query.actorKeyId !== undefined ? or(eq(changeSets.actor, `key:${query.actorKeyId}`), eq(changeSets.keyId, query.actorKeyId)) : undefined,
    query.actorUserId !== undefined ? eq(changeSets.actor, `user:${query.actorUserId}`) : undefined,
    at.from !== undefined ? gte(changeSets.at, at.from) : undefined,
    at.to !== undefined ? lte(changeSets.at, at.to) : undefined,
  ];
  const matches = ({ set, record }: ArchivedEntry) =>
    (query.operationId === undefined || set.operationId === query.operationId) &&
    (type === undefined || record.type === type) &&
    (query.resourceId === undefined || record.resourceId === query.resourceId) &&
    (query.field === undefined || Object.hasOwn(record.changes, query.field)) &&
    (query.actorKeyId === undefined || set.actor === `key:${query.actorKeyId}` || set.keyId === query.actorKeyId) &&
    (query.actorUserId === undefined || set.actor === `user:${query.actorUserId}`) &&
    (at.from === undefined || set.at >= at.from) &&
    (at.to === undefined || set.at <= at.to);
  // The archived objects that can hold such records: one Operation's, the Operations', or the tenant's others'.
  const scope: ArchiveScope | undefined =
    query.operationId !== undefined
      ? { operationId: query.operationId }
      : type === undefined
        ? undefined
        : OPERATION_RESOURCE_TYPES.includes(query.resourceType!)
          ? "operations"
          : "tenant";
  return { sqlConditions, matches, scope, at };
}

const historyRowOf = ({ set, record }: ArchivedEntry): HistoryRow => ({
  setId: set.id,
  ordinal: record.ordinal,
  resourceType: record.type,
  action: record.action,
  resourceId: record.resourceId,
  changes: JSON.stringify(record.changes),
  operationId: set.operationId,
  version: set.version,
  actor: set.actor,
  keyId: set.keyId,
  requestId: set.requestId,
  reason: set.reason,
  at: set.at,
});

const keyOfRow = (row: HistoryRow): HistoryKey => [row.setId, row.ordinal];

/**
 * A page of the tenant's change records, newest first (or oldest first), with `filters`: those in the
 * shard (one statement, batched with a look at the archive's index), merged with those archived when
 * the index has any the filters may reach. An archived page looks at ARCHIVE_SCAN_BUDGET records at
 * most: past it, the page ends where the scan stopped and its nextToken goes on from there.
 */
export async function listHistory({ db, archive, secret, principal }: ListContext, query: HistoryFilters): Promise<Page<HistoryRow>> {
  const page = await bindPage({ definition: historyList, secret, scope: { tenant: principal.tenantId }, query });
  const newestFirst = page.directions[0];
  const after = page.cursor as HistoryKey | null;
  const conditions = historyConditions(principal.tenantId, query);
  const order = newestFirst ? desc : asc;
  const keyset = after === null ? undefined : sql`(${changeSets.id}, ${changeRecords.ordinal}) ${sql.raw(newestFirst ? "<" : ">")} (${after[0]}, ${after[1]})`;
  const [recent, archived] = await db.batch([
    db
      .select(historyColumns)
      .from(changeSets)
      .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
      .where(and(...conditions.sqlConditions, keyset))
      .orderBy(order(changeSets.id), order(changeRecords.ordinal))
      .limit(page.limit + 1),
    anyArchivedQuery(db, principal.tenantId, conditions.scope),
  ]);
  let rows: HistoryRow[] = recent;
  let stoppedAt: HistoryKey | null = null;
  if (archived.length) {
    const scan = await scanArchive(
      { db, archive },
      {
        tenantId: principal.tenantId,
        scope: conditions.scope,
        newestFirst,
        after,
        atFrom: conditions.at.from,
        atTo: conditions.at.to,
        matches: conditions.matches,
        want: page.limit + 1,
        budget: ARCHIVE_SCAN_BUDGET,
      },
    );
    const inOrder = (a: HistoryRow, b: HistoryRow) => (newestFirst ? -1 : 1) * compareKeys(keyOfRow(a), keyOfRow(b));
    rows = [...recent, ...scan.entries.map(historyRowOf)].sort(inOrder);
    stoppedAt = scan.stoppedAt;
    // Past where the archive's scan stopped, archived records may be missing: the page ends there.
    if (stoppedAt !== null) rows = rows.filter((row) => (newestFirst ? -1 : 1) * compareKeys(keyOfRow(row), stoppedAt!) <= 0);
  }
  if (rows.length > page.limit) {
    const items = rows.slice(0, page.limit);
    return { items, nextToken: await page.tokenAfter(keyOfRow(items[items.length - 1])) };
  }
  return { items: rows, nextToken: stoppedAt === null ? null : await page.tokenAfter(stoppedAt) };
}

/** Whether the tenant has an Operation of this id now, or had one (its history stays when it is deleted, in the shard or archived). */
export async function operationHasHistory(db: Db, tenantId: string, operationId: string): Promise<boolean> {
  const [recent, archived] = await db.batch([
    db
      .select({ id: changeSets.id })
      .from(changeSets)
      .where(and(eq(changeSets.tenantId, tenantId), eq(changeSets.operationId, operationId)))
      .limit(1),
    anyArchivedQuery(db, tenantId, { operationId }),
  ]);
  return recent.length > 0 || archived.length > 0;
}
