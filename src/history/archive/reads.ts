import { and, asc, desc, eq, gt, gte, lt, lte, ne, type SQL } from "drizzle-orm";
import { actionCode, typeCode, type ChangeAction, type ResourceType, type StoredChanges } from "../../platform/data/changes";
import type { Db } from "../../platform/data/database";
import { archiveFormatOf, readEntries, type ArchivedEntry, type ArchivedSet } from "./objects";
import { historyArchive, type ArchivedObject } from "./tables";

/*
 * Reading the archive: which objects hold what (the index in D1), and their entries, streamed. Every
 * history read goes through here when the index says part of what it needs has left the shard.
 */

/** Where history is read from: the tenant's shard (recent records, the archive's index) and the archive's bucket. */
export interface HistoryReads {
  db: Db;
  archive: R2Bucket;
}

/** The archived objects of one scope (an Operation, or "" for the tenant's other records), oldest first. */
export function archivedObjectsOf(db: Db, tenantId: string, scope: string) {
  return db
    .select()
    .from(historyArchive)
    .where(and(eq(historyArchive.tenantId, tenantId), eq(historyArchive.scope, scope)))
    .orderBy(asc(historyArchive.firstSet));
}

/** Whether any object holds records of the tenant (of `scope` when given): the reads' way to skip the archive. */
export function anyArchivedQuery(db: Db, tenantId: string, scope?: ArchiveScope) {
  return db
    .select({ scope: historyArchive.scope })
    .from(historyArchive)
    .where(and(eq(historyArchive.tenantId, tenantId), scopeCondition(scope)))
    .limit(1);
}

/**
 * The entries of one object, newest first (see readEntries). Its stored SHA-256 must be the one the
 * index names (R2 keeps the digest it checked the upload against). An object retention just removed
 * (its index row gone too) reads as empty; one missing while indexed is an error.
 */
export async function* archivedEntries(reads: HistoryReads, object: ArchivedObject, skipSet?: (set: ArchivedSet) => boolean): AsyncGenerator<ArchivedEntry[]> {
  const body = await reads.archive.get(object.objectKey);
  if (!body) {
    const [still] = await reads.db
      .select({ key: historyArchive.objectKey })
      .from(historyArchive)
      .where(and(eq(historyArchive.tenantId, object.tenantId), eq(historyArchive.scope, object.scope), eq(historyArchive.firstSet, object.firstSet)));
    if (!still) return;
    throw new Error(`archived history ${object.objectKey} is indexed but missing from the bucket`);
  }
  // Both formats read so far parse alike (format 2 only adds an optional field): the check refuses an unknown one.
  archiveFormatOf(body.customMetadata, object.objectKey);
  const stored = body.checksums.sha256;
  if (stored && hex(stored) !== object.sha256) {
    await body.body.cancel();
    throw new Error(`archived history ${object.objectKey} is not the object indexed (sha256 ${hex(stored)}, indexed ${object.sha256})`);
  }
  yield* readEntries(body.body, skipSet);
}

const hex = (buffer: ArrayBuffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");

/**
 * The Operation's archived entries of versions `since` and later, newest first, from `objects` (its
 * objects that reach `since`): an object is read only down to the first set before `since`.
 */
export async function* archivedOperationEntries(reads: HistoryReads, objects: readonly ArchivedObject[], since: number): AsyncGenerator<ArchivedEntry[]> {
  const newestFirst = [...objects].sort((a, b) => (a.firstSet < b.firstSet ? 1 : -1));
  for (const object of newestFirst) {
    for await (const batch of archivedEntries(reads, object)) {
      const reached = batch.findIndex((entry) => entry.set.version !== null && entry.set.version < since);
      if (reached < 0) {
        yield batch;
        continue;
      }
      if (reached > 0) yield batch.slice(0, reached);
      break;
    }
  }
}

/** The latest archived record of one resource with `action` (a rule's last deletion), with when it was made; undefined: none. */
export async function latestArchivedRecordOf(
  reads: HistoryReads,
  tenantId: string,
  type: ResourceType,
  resourceId: string,
  action: ChangeAction,
): Promise<{ changes: StoredChanges; at: string } | undefined> {
  const wanted = { type: typeCode(type), action: actionCode(action) };
  const { entries } = await scanArchive(reads, {
    tenantId,
    scope: OPERATION_RESOURCE_TYPES.includes(type) ? "operations" : "tenant",
    newestFirst: true,
    after: null,
    matches: ({ record }) => record.type === wanted.type && record.action === wanted.action && record.resourceId === resourceId,
    want: 1,
    budget: Number.POSITIVE_INFINITY,
  });
  const [found] = entries;
  return found && { changes: found.record.changes, at: found.set.at };
}

// ---- the history list, reaching into the archive ------------------------------------------

/** The kinds of record whose sets name an Operation (kept under its id, in its objects); every other kind is the tenant's. */
export const OPERATION_RESOURCE_TYPES: readonly ResourceType[] = ["operation", "line", "attachment", "approval", "order", "allocation", "account_cap"];

/** Which objects a list reads: one Operation's, the Operations' (records of operations, lines, attachments), or the tenant's other records'. */
export type ArchiveScope = { operationId: string } | "operations" | "tenant";

function scopeCondition(scope: ArchiveScope | undefined): SQL | undefined {
  if (scope === undefined) return undefined;
  if (scope === "tenant") return eq(historyArchive.scope, "");
  if (scope === "operations") return ne(historyArchive.scope, "");
  return eq(historyArchive.scope, scope.operationId);
}

/** A list's place: [set id, ordinal], the keyset of GET /v1/history. */
export type HistoryKey = [string, number];

/** Compares two places in time order (set id, then ordinal). */
export function compareKeys(a: HistoryKey, b: HistoryKey): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] - b[1];
}

export const keyOf = (entry: ArchivedEntry): HistoryKey => [entry.set.id, entry.record.ordinal];

export interface ArchiveScan {
  tenantId: string;
  scope?: ArchiveScope;
  /** Newest first (the list's default) or oldest first. */
  newestFirst: boolean;
  /** The last place of the page before (entries at or before it in the list's order are passed). */
  after: HistoryKey | null;
  /** Only sets made from / to these times (ISO, both included): objects outside them are not read. */
  atFrom?: string;
  atTo?: string;
  matches: (entry: ArchivedEntry) => boolean;
  /** Entries wanted (a page and one). */
  want: number;
  /** Entries looked at, at most: a page of a filter that matches little stops there. */
  budget: number;
}

/** Objects read from the index a page at a time, in the order the scan opens them. */
const OBJECTS_PER_READ = 100;

/** One object's entries, one at a time in the scan's order. */
class ObjectStream {
  private batch: ArchivedEntry[] = [];
  private index = 0;
  constructor(private readonly batches: AsyncGenerator<ArchivedEntry[]>) {}

  get head(): ArchivedEntry | undefined {
    return this.batch[this.index];
  }

  async advance(): Promise<void> {
    this.index++;
    while (this.index >= this.batch.length) {
      const next = await this.batches.next();
      if (next.done) {
        this.batch = [];
        this.index = 0;
        return;
      }
      this.batch = next.value;
      this.index = 0;
    }
  }

  async close(): Promise<void> {
    await this.batches.return(undefined);
  }
}

/** Oldest first: an object's entries reversed (held whole: an object is bounded, MAX_RECORDS_PER_OBJECT). */
async function* reversed(batches: AsyncGenerator<ArchivedEntry[]>): AsyncGenerator<ArchivedEntry[]> {
  const all: ArchivedEntry[] = [];
  for await (const batch of batches) all.push(...batch);
  yield all.reverse();
}

/**
 * The tenant's archived entries in a list's order after `after` that `matches` keeps, at most `want`
 * of them: the objects are merged in time order (an object opened only once it may hold the next
 * entry, so a page of a quiet range opens one or two). Stops after `budget` entries looked at;
 * `stoppedAt` then says where, for the next page to go on from.
 */
export async function scanArchive(reads: HistoryReads, scan: ArchiveScan): Promise<{ entries: ArchivedEntry[]; stoppedAt: HistoryKey | null }> {
  const { newestFirst, after } = scan;
  // In the list's order, is `a` before `b`?
  const before = (a: HistoryKey, b: HistoryKey) => (newestFirst ? compareKeys(a, b) > 0 : compareKeys(a, b) < 0);
  const pending: ArchivedObject[] = [];
  let lastRead: string | null = null;
  let exhausted = false;
  const peek = async (): Promise<ArchivedObject | undefined> => {
    if (!pending.length && !exhausted) {
      const edge = newestFirst ? historyArchive.lastSet : historyArchive.firstSet;
      const rows = await reads.db
        .select()
        .from(historyArchive)
        .where(
          and(
            eq(historyArchive.tenantId, scan.tenantId),
            scopeCondition(scan.scope),
            // Objects wholly at or before the cursor, or outside the times asked for, are never read.
            after === null ? undefined : newestFirst ? lte(historyArchive.firstSet, after[0]) : gte(historyArchive.lastSet, after[0]),
            scan.atTo === undefined ? undefined : lte(historyArchive.firstAt, scan.atTo),
            scan.atFrom === undefined ? undefined : gte(historyArchive.lastAt, scan.atFrom),
            lastRead === null ? undefined : newestFirst ? lt(edge, lastRead) : gt(edge, lastRead),
          ),
        )
        .orderBy(newestFirst ? desc(edge) : asc(edge))
        .limit(OBJECTS_PER_READ);
      pending.push(...rows);
      exhausted = rows.length < OBJECTS_PER_READ;
      if (rows.length) lastRead = newestFirst ? rows[rows.length - 1].lastSet : rows[rows.length - 1].firstSet;
    }
    return pending[0];
  };
  const skipSet = (set: ArchivedSet) =>
    (after !== null && (newestFirst ? set.id > after[0] : set.id < after[0])) ||
    (scan.atTo !== undefined && set.at > scan.atTo) ||
    (scan.atFrom !== undefined && set.at < scan.atFrom);

  const open: ObjectStream[] = [];
  const entries: ArchivedEntry[] = [];
  let looked = 0;
  const best = () =>
    open.reduce<ObjectStream | undefined>((found, stream) => (!found || before(keyOf(stream.head!), keyOf(found.head!)) ? stream : found), undefined);
  try {
    for (;;) {
      // Open every object that may hold the next entry: one whose newest (oldest) set is beyond the best entry open.
      for (let candidate = await peek(); candidate; candidate = await peek()) {
        const leading = best()?.head;
        if (leading && !(newestFirst ? candidate.lastSet > leading.set.id : candidate.firstSet < leading.set.id)) break;
        pending.shift();
        const batches = archivedEntries(reads, candidate, skipSet);
        const stream = new ObjectStream(newestFirst ? batches : reversed(batches));
        await stream.advance();
        if (stream.head) open.push(stream);
      }
      const stream = best();
      if (!stream) return { entries, stoppedAt: null };
      const entry = stream.head!;
      await stream.advance();
      if (!stream.head) open.splice(open.indexOf(stream), 1);
      if (after !== null && !before(after, keyOf(entry))) continue;
      looked++;
      if (scan.matches(entry)) {
        entries.push(entry);
        if (entries.length >= scan.want) return { entries, stoppedAt: null };
      }
      if (looked >= scan.budget) return { entries, stoppedAt: keyOf(entry) };
    }
  } finally {
    await Promise.all(open.map((stream) => stream.close()));
  }
}
