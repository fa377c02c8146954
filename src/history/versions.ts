import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { OperationRow } from "../operations/aggregate";
import { operationAccounts, operationLines, operations, storedLineColumns } from "../operations/tables";
import { ApiError } from "../platform/core/errors";
import type { Db } from "../platform/data/database";
import { changeRecords, changeSets } from "../platform/data/tables";
import { archivedObjectsOf, archivedOperationEntries, type HistoryReads } from "./archive/reads";
import type { ArchivedObject } from "./archive/tables";
import { type Fields, type LaterRecord, laterRecordsOf, laterRecordsQuery, laterRecordsWhere, recordsAfter, undoRecords } from "./later-records";
import {
  type LineAtVersion,
  type LineChange,
  type LineWindow,
  lineChangesBetween,
  lineChangesOf,
  linePageAt,
  linePageOf,
  linesAfterUndoing,
} from "./line-windows";

/*
 * An Operation as it was at a version, computed backwards from what it is now: each change made
 * after that version is undone, newest first, from its record (an update gives back each changed
 * field's previous value, a create removes the resource, a delete brings it back with every field
 * it had). Exact for every version its history covers: changes are recorded in their own batch.
 */

/**
 * What the Operation's history covers (its last version, and the first it can show: 1 when its
 * creation was recorded), and what was done to it after a version: one batch, one round trip. The
 * archive's index comes in the same batch: which of its versions left the shard, and where to.
 */
interface History {
  /** The Operation as it is; undefined when it was deleted. */
  current: OperationRow | undefined;
  first: number;
  /** When its creation was recorded (undefined: before its history was kept, or no longer kept). */
  createdAt: string | undefined;
  /** The last version recorded, and when. */
  last: { version: number; at: string } | undefined;
  /** Versions and when each was made: those in the shard, and each archived object's first and last. */
  sets: { version: number; at: string }[];
  /** Its own records after the version asked for, newest first (those still in the shard). */
  operationRecords: LaterRecord[];
  /** The lines and attachments each later version created (c) and deleted (d) (those still in the shard). */
  counts: VersionCount[];
  /** Its archived objects, oldest first. */
  archived: ArchivedObject[];
}

type VersionCount = { version: number | null; type: string; action: string; count: number };

async function readHistory(db: Db, tenantId: string, operationId: string, since: number): Promise<History> {
  const [[current], setRows, operationRecords, counts, archived] = await db.batch([
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
    archivedObjectsOf(db, tenantId, operationId),
  ]);
  const sets = setRows.filter((set): set is typeof set & { version: number } => set.version !== null);
  const versioned = archived.filter((object) => object.firstVersion !== null && object.lastVersion !== null);
  if (!sets.length && !versioned.length && !current) throw new ApiError("not_found", `Operation ${operationId} not found.`);
  // Changes before the history began (an Operation older than it) cannot be undone: its span starts after them.
  const earliest = versioned.length
    ? { version: versioned[0].firstVersion!, at: versioned[0].firstAt, created: versioned[0].created }
    : sets.length
      ? { version: sets[0].version, at: sets[0].at, created: sets[0].created === 1 }
      : undefined;
  const newest = sets.length
    ? sets[sets.length - 1]
    : versioned.length
      ? { version: versioned[versioned.length - 1].lastVersion!, at: versioned[versioned.length - 1].lastAt }
      : undefined;
  return {
    current,
    first: earliest?.created ? 1 : (earliest?.version ?? current!.version),
    createdAt: earliest?.created ? earliest.at : undefined,
    last: newest && { version: newest.version, at: newest.at },
    sets: [
      ...versioned.flatMap((object) => [
        { version: object.firstVersion!, at: object.firstAt },
        { version: object.lastVersion!, at: object.lastAt },
      ]),
      ...sets.map(({ version, at }) => ({ version, at })),
    ],
    operationRecords: laterRecordsOf(operationRecords),
    counts,
    archived,
  };
}

/** 404 version_not_found unless the Operation's history covers `version`. */
function requireVersion(history: History, operationId: string, version: number): void {
  const last = history.current ? history.current.version : history.last!.version - 1;
  if (version < history.first || version > last) {
    const covered = history.first <= last ? `versions ${history.first} to ${last}` : "no version";
    throw new ApiError("version_not_found", `Operation ${operationId} has no version ${version}: its history covers ${covered}.`, {
      firstVersion: history.first,
      lastVersion: last,
    });
  }
}

/** A deleted Operation as its deletion recorded it, at its last version (no lines or accounts now). */
function deletedRow(history: History, operationId: string, tenantId: string): OperationRow {
  const last = history.last!;
  const deletion = history.operationRecords.find((record) => record.version === last.version && record.action === "d");
  return {
    // createdAt: as its deletion recorded it, else (recorded before it was) when its creation was.
    createdAt: history.createdAt ?? last.at,
    ...(deletion?.changes ?? {}),
    id: operationId,
    tenantId,
    version: last.version,
    lineCount: 0,
    accountCount: 0,
    updatedAt: last.at,
  } as unknown as OperationRow;
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

/** What the Operation's lines and attachments were at a version. */
interface StateAtVersion {
  lines: Map<string, LineAtVersion>;
  attachments: Set<string>;
}

/**
 * The Operation at each of `versions`, from one read: its history since the oldest of them, and its
 * current lines and attachments (each read once, when first asked for). 404 version_not_found
 * unless its history covers every version. A version whose later changes reach into the archive is
 * read from there too (readFromArchive): slower, the same answer.
 */
export async function operationVersions(
  reads: HistoryReads,
  tenantId: string,
  operationId: string,
  versions: readonly number[],
): Promise<OperationAtVersion[]> {
  const { db } = reads;
  const oldest = Math.min(...versions);
  const history = await readHistory(db, tenantId, operationId, oldest);
  for (const version of versions) requireVersion(history, operationId, version);
  const reaching = history.archived.filter((object) => object.lastVersion !== null && object.lastVersion >= oldest);
  const archivedStates = reaching.length ? await readFromArchive(reads, history, { tenantId, operationId, versions, objects: reaching }) : undefined;
  const deleted = !history.current;
  const current = history.current ?? deletedRow(history, operationId, tenantId);
  const once = <T>(read: () => Promise<T>) => {
    let value: T | undefined;
    return async () => (value ??= await read());
  };
  const laterOf = {
    l: once(() => recordsAfter(db, tenantId, operationId, oldest, { types: ["line"] })),
    a: once(() => recordsAfter(db, tenantId, operationId, oldest, { types: ["attachment"] })),
  };
  const currentLines = once(async () => (deleted ? [] : db.select(storedLineColumns).from(operationLines).where(eq(operationLines.operationId, operationId))));
  const currentAttachments = once(async () =>
    deleted ? [] : db.select({ accountId: operationAccounts.accountId }).from(operationAccounts).where(eq(operationAccounts.operationId, operationId)),
  );
  // A deleted Operation's lines and attachments come back from its deletion's records.
  const now = deleted ? { lineCount: 0, accountCount: 0 } : { lineCount: current.lineCount, accountCount: current.accountCount };
  const sets = [...history.sets].sort((a, b) => a.version - b.version);
  return versions.map((version): OperationAtVersion => {
    const after = <T extends { version: number | null }>(rows: T[]) => rows.filter((row) => row.version! > version);
    const [fields] = undoRecords(
      new Map([["operation", { ...current } as Fields]]),
      after(history.operationRecords).map((record) => ({ ...record, resourceId: "operation" })),
    ).values();
    const changed = (type: string, action: string) =>
      after(history.counts).reduce((sum, row) => sum + (row.type === type && row.action === action ? row.count : 0), 0);
    const madeAt = sets.filter((set) => set.version <= version).at(-1)?.at;
    const row = {
      ...(fields as OperationRow),
      id: operationId,
      lineCount: now.lineCount - changed("l", "c") + changed("l", "d"),
      accountCount: now.accountCount - changed("a", "c") + changed("a", "d"),
      version,
      updatedAt: madeAt ?? current.createdAt,
    };
    if (archivedStates) {
      const then = archivedStates.get(version)!;
      return {
        row,
        lines: async () => then.lines,
        linePage: async (window) => linePageOf(then.lines, window),
        lineChangesTo: async (other, window) => lineChangesOf(then.lines, archivedStates.get(other)!.lines, window),
        attachments: async () => then.attachments,
      };
    }
    return {
      row,
      async lines() {
        const [lines, later] = await Promise.all([currentLines(), laterOf.l()]);
        return linesAfterUndoing(lines, after(later));
      },
      linePage: (window) => linePageAt(db, { tenantId, operationId, version, deleted, createdSince: changed("l", "c") }, window),
      lineChangesTo: (other, window) => lineChangesBetween(db, { tenantId, operationId, deleted }, version, other, window),
      async attachments() {
        const [attached, later] = await Promise.all([currentAttachments(), laterOf.a()]);
        return new Set(undoRecords(new Map(attached.map(({ accountId }) => [accountId, { accountId } as Fields])), after(later)).keys());
      },
    };
  });
}

/**
 * The Operation's lines and attachments at each of `versions`, some of whose later changes are
 * archived: its current lines and attachments with every later change undone, newest first — those
 * still in the shard (read in one batch), then the archived ones, streamed object by object, so what
 * is held at once is the lines, not the records. Each version's state is kept as the undoing passes
 * it. Reading the archive also gives what the shard no longer has: the Operation's own records, the
 * lines and attachments each version created and deleted, and when each version was made; they are
 * added to `history` for the rows.
 */
async function readFromArchive(
  reads: HistoryReads,
  history: History,
  at: { tenantId: string; operationId: string; versions: readonly number[]; objects: ArchivedObject[] },
): Promise<Map<number, StateAtVersion>> {
  const { db } = reads;
  const { tenantId, operationId } = at;
  const oldest = Math.min(...at.versions);
  const [lineRows, attachmentRows, recent] = await db.batch([
    db
      .select(storedLineColumns)
      .from(operationLines)
      .where(and(eq(operationLines.operationId, operationId), history.current ? undefined : sql`false`)),
    db
      .select({ accountId: operationAccounts.accountId })
      .from(operationAccounts)
      .where(and(eq(operationAccounts.operationId, operationId), history.current ? undefined : sql`false`)),
    laterRecordsQuery(db, tenantId, operationId, oldest, { types: ["line", "attachment"] }),
  ]);
  const lines = new Map<string, Fields>(lineRows.map(({ variantExternalId, ...line }) => [variantExternalId, line]));
  const attachments = new Map<string, Fields>(attachmentRows.map(({ accountId }) => [accountId, { accountId }]));
  const states = new Map<number, StateAtVersion>();
  const wanted = [...new Set(at.versions)].sort((a, b) => b - a);
  // Keeps the state of every version wanted at or after `version` that is not kept yet: the changes after it are all undone.
  const keepUntil = (version: number) => {
    while (wanted.length && version <= wanted[0]) {
      states.set(wanted.shift()!, {
        lines: new Map([...lines].map(([variantExternalId, line]) => [variantExternalId, { variantExternalId, ...line } as LineAtVersion])),
        attachments: new Set(attachments.keys()),
      });
    }
  };
  const undo = (record: LaterRecord) => {
    keepUntil(record.version);
    undoRecords(record.type === "l" ? lines : attachments, [record]);
  };
  for (const record of laterRecordsOf(recent)) undo(record);

  const counts = new Map<string, VersionCount>();
  for await (const batch of archivedOperationEntries(reads, at.objects, oldest)) {
    for (const { set, record } of batch) {
      const version = set.version!;
      history.sets.push({ version, at: set.at });
      if (version <= oldest) continue;
      const later: LaterRecord = { version, type: record.type, action: record.action, resourceId: record.resourceId, changes: record.changes };
      if (record.type === "o") history.operationRecords.push(later);
      if (record.type !== "l" && record.type !== "a") continue;
      undo(later);
      if (record.action === "u") continue;
      const key = `${version} ${record.type} ${record.action}`;
      const count = counts.get(key) ?? { version, type: record.type, action: record.action, count: 0 };
      count.count++;
      counts.set(key, count);
    }
  }
  keepUntil(Number.NEGATIVE_INFINITY);
  history.counts.push(...counts.values());
  return states;
}

/** The Operation at `version` (operationVersions of one). */
export async function operationVersion(reads: HistoryReads, tenantId: string, operationId: string, version: number): Promise<OperationAtVersion> {
  const [then] = await operationVersions(reads, tenantId, operationId, [version]);
  return then;
}
