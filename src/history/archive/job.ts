import { and, asc, eq, gte, inArray, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import type { Env } from "../../platform/core/env";
import { logFailure } from "../../platform/core/errors";
import { idAtTime, idPrefixes, isWellFormedId, timeOfId } from "../../platform/core/ids";
import { shardNames } from "../../platform/core/shards";
import { nowIso } from "../../platform/core/time";
import { primaryDb, type Db } from "../../platform/data/database";
import { inJsonList, runBatch, writeGuard } from "../../platform/data/sql";
import { changeRecords, changeSetFields, changeSets, tenants } from "../../platform/data/tables";
import { notFenced } from "../../platform/data/tenancy";
import {
  ARCHIVE_CONTENT_TYPE,
  ARCHIVE_FORMAT,
  compressLines,
  countEntries,
  headerLine,
  recordLine,
  sha256Hex,
  type ArchivedSet,
  type StoredRecord,
} from "./objects";
import { historyArchive } from "./tables";

/*
 * The archive job (the hourly cron): per tenant, the change sets older than the hot window leave the
 * shard for R2, a day at a time, oldest first; then the tenant's retention, when it has one, removes
 * archived objects older than it. Each object is one unit of work: written, read back and checked
 * (its SHA-256, and its sets and records counted again), and only then, in one D1 batch, indexed and
 * its sets deleted — a batch that aborts unless the shard still holds exactly the sets and records
 * the object does. A crash anywhere leaves either the sets in D1 (the object, if written, is written
 * again with the same key and bytes next run) or the index row and the object, never both or
 * neither; two runs at once cannot both commit one unit (the index row's key).
 */

/** Days a change set stays in its shard: see docs/history.md (Archive) for why 90. */
export const HOT_WINDOW_DAYS = 90;
/** The fewest years a tenant's retention may keep its records (docs/history.md). */
export const MIN_RETENTION_YEARS = 3;
/** Records per object at most (one set may exceed it alone): what a version read holds of one object at once. */
export const MAX_RECORDS_PER_OBJECT = 50_000;
/**
 * How long one run starts new objects for: well inside a cron's 30 s of CPU (gzip and JSON are most of
 * the work); a backlog takes as many hourly runs as it needs.
 */
const DEFAULT_BUDGET_MS = 20_000;
/** Sets read per statement when gathering an object's sets. */
const SETS_PER_READ = 1000;
/** Records read per statement when writing an object. */
const RECORDS_PER_READ = 10_000;
const DAY_MS = 86_400_000;

/** Where a tenant's objects live in the bucket: every key of its history starts with it. */
const tenantPrefix = (tenantId: string) => `history/${tenantId}/`;

/** Where an object lives in the bucket: by tenant (deleting a tenant is one prefix), then day and scope. */
export function objectKey(tenantId: string, scope: string, firstSet: string): string {
  const day = new Date(timeOfId(firstSet)).toISOString().slice(0, 10);
  return `${tenantPrefix(tenantId)}${day}/${scope || "tenant"}/${firstSet}.ndjson.gz`;
}

/** Keys one R2 delete takes at most. */
const KEYS_PER_DELETE = 1000;

/**
 * Deletes every archived object of the tenant (deleting the tenant): by its prefix, not its index
 * rows, so an object written by a run that stopped before indexing it goes too. Returns how many.
 */
export async function deleteTenantObjects(bucket: R2Bucket, tenantId: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    // Listed again from the start each time: the keys just deleted are gone from the listing.
    const listed = await bucket.list({ prefix: tenantPrefix(tenantId), limit: KEYS_PER_DELETE });
    if (!listed.objects.length) return deleted;
    await bucket.delete(listed.objects.map((object) => object.key));
    deleted += listed.objects.length;
  }
}

const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** When the hot window starts at `now` (a whole day): sets made before it are archived. */
export const hotWindowStart = (now: number) => startOfDay(now) - HOT_WINDOW_DAYS * DAY_MS;

/** The first set id a retention of `years` keeps at `now` (whole days: an object is one day or part of one). */
export function retentionStart(now: number, years: number): string {
  const cutoff = new Date(startOfDay(now));
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - years);
  return idAtTime(idPrefixes.change, cutoff.getTime());
}

/** One object's worth of sets, ready to write. */
export interface ArchiveUnit {
  tenantId: string;
  scope: string;
  firstSet: string;
  lastSet: string;
  sets: number;
  records: number;
  key: string;
}

export interface ArchiveOptions {
  /** The time the job runs as (tests and the bench move it). */
  now?: number;
  /** Archive the sets made before this time (epoch ms) instead of those before the hot window: tests split an Operation's history with it. */
  archiveBefore?: number;
  /** Stop starting new objects after this long (the next run goes on). */
  budgetMs?: number;
  /** Called once an object is written and checked, before its sets leave D1 (tests inject a crash here). */
  afterObjectVerified?: (unit: ArchiveUnit) => Promise<void> | void;
  /** Only this tenant (the bench). */
  tenantId?: string;
}

export interface ArchiveReport {
  objects: number;
  sets: number;
  records: number;
  bytes: number;
  /** Objects removed by retention. */
  expired: number;
  /** Tenants whose archiving failed this run (logged; the next run tries again). */
  failed: number;
  /** Whether the budget ran out before every tenant was done. */
  more: boolean;
}

/** Runs the archive job over every shard's tenants (the hourly cron). */
export async function archiveHistory(env: Env, options: ArchiveOptions = {}): Promise<ArchiveReport> {
  const now = options.now ?? Date.now();
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_BUDGET_MS);
  const report: ArchiveReport = { objects: 0, sets: 0, records: 0, bytes: 0, expired: 0, failed: 0, more: false };
  const run: Run = { env, now, deadline, options, report };
  for (const shard of shardNames(env)) {
    const db = primaryDb(env, shard);
    // A tenant being moved, or moved away, is left alone here: its fence refuses the deletes, and the shard it lands on archives it.
    const rows = await db
      .select({ id: tenants.id })
      .from(tenants)
      .where(and(notFenced(db, tenants.id), options.tenantId === undefined ? undefined : eq(tenants.id, options.tenantId)))
      .orderBy(asc(tenants.id));
    for (const { id } of rows) {
      if (outOfTime(run)) return report;
      try {
        await archiveTenant(run, db, id);
        await enforceRetention(run, db, id);
      } catch (error) {
        report.failed++;
        logFailure(crypto.randomUUID(), `history archive: tenant ${id} on ${shard}`, error);
      }
    }
  }
  return report;
}

interface Run {
  env: Env;
  now: number;
  deadline: number;
  options: ArchiveOptions;
  report: ArchiveReport;
}

/** Whether the run's budget is spent (then it says there is more, for the next run). */
function outOfTime(run: Run): boolean {
  if (Date.now() <= run.deadline) return false;
  run.report.more = true;
  return true;
}

const scopeIs = (scope: string): SQL => (scope === "" ? isNull(changeSets.operationId) : eq(changeSets.operationId, scope));

/** The tenant's sets of one scope from `firstSet` to `lastSet` (both included): an object's, in D1. */
const unitSets = (unit: Pick<ArchiveUnit, "tenantId" | "scope" | "firstSet" | "lastSet">) =>
  and(eq(changeSets.tenantId, unit.tenantId), gte(changeSets.id, unit.firstSet), lte(changeSets.id, unit.lastSet), scopeIs(unit.scope));

/** Archives the tenant's sets older than the hot window, a day at a time, oldest first. */
async function archiveTenant(run: Run, db: Db, tenantId: string): Promise<void> {
  const { archiveBefore } = run.options;
  const hotStartMs = archiveBefore ?? hotWindowStart(run.now);
  const hotStart = idAtTime(idPrefixes.change, hotStartMs);
  // Ids below the first a clock can make carry no time to file them under (a set written by hand): left in D1.
  const firstId = idAtTime(idPrefixes.change, 0);
  for (;;) {
    if (outOfTime(run)) return;
    const [oldest] = await db
      .select({ id: changeSets.id })
      .from(changeSets)
      .where(and(eq(changeSets.tenantId, tenantId), gte(changeSets.id, firstId), lt(changeSets.id, hotStart)))
      .orderBy(asc(changeSets.id))
      .limit(1);
    if (!oldest) return;
    // Each round archives the oldest set's day, read from its id: an id newId did not make would be found again forever.
    if (!isWellFormedId(idPrefixes.change, oldest.id)) throw new Error(`change set ${oldest.id}: its id carries no time it can be archived under`);
    const day = startOfDay(timeOfId(oldest.id));
    const range = { from: idAtTime(idPrefixes.change, day), to: idAtTime(idPrefixes.change, Math.min(day + DAY_MS, hotStartMs)) };
    const scopes = await db
      .selectDistinct({ scope: sql<string>`coalesce(${changeSets.operationId}, '')` })
      .from(changeSets)
      .where(and(eq(changeSets.tenantId, tenantId), gte(changeSets.id, range.from), lt(changeSets.id, range.to)));
    for (const { scope } of scopes) {
      for (;;) {
        if (outOfTime(run)) return;
        // Committed objects' sets are gone from D1: the next object starts at the scope's oldest left.
        const sets = await db
          .select({
            id: changeSets.id,
            ...changeSetFields,
            records: sql<number>`(select count(*) from ${changeRecords} where ${changeRecords.setId} = ${changeSets.id})`,
          })
          .from(changeSets)
          .where(and(eq(changeSets.tenantId, tenantId), gte(changeSets.id, range.from), lt(changeSets.id, range.to), scopeIs(scope)))
          .orderBy(asc(changeSets.id))
          .limit(SETS_PER_READ);
        if (!sets.length) break;
        let records = 0;
        let count = 0;
        while (count < sets.length && (count === 0 || records + sets[count].records <= MAX_RECORDS_PER_OBJECT)) records += sets[count++].records;
        await archiveUnit(run, db, tenantId, scope, sets.slice(0, count));
      }
    }
  }
}

/** Writes one object of `sets` (oldest first, one scope, one day), checks it, then indexes it and deletes its sets in one batch. */
async function archiveUnit(run: Run, db: Db, tenantId: string, scope: string, sets: ArchivedSet[]): Promise<void> {
  const { env, report } = run;
  const firstSet = sets[0].id;
  const lastSet = sets[sets.length - 1].id;
  const recordCount = sets.reduce((sum, set) => sum + set.records, 0);
  const unit: ArchiveUnit = { tenantId, scope, firstSet, lastSet, sets: sets.length, records: recordCount, key: objectKey(tenantId, scope, firstSet) };

  // The object's lines, newest set first, each set's records newest first.
  const recordsOf = await readSetRecords(db, sets);
  const lines: string[] = [];
  for (let i = sets.length - 1; i >= 0; i--) {
    const records = recordsOf.get(sets[i].id) ?? [];
    if (records.length !== sets[i].records) throw new Error(`set ${sets[i].id}: counted ${sets[i].records} records, read ${records.length}`);
    lines.push(headerLine(sets[i]));
    for (const record of records) lines.push(recordLine(record));
  }
  const bytes = await compressLines(lines);
  const sha256 = await sha256Hex(bytes);
  // R2 checks the upload against the digest; reading it back checks what it stored, and that it decodes to every set and record.
  await env.HISTORY_ARCHIVE.put(unit.key, bytes, {
    sha256,
    httpMetadata: { contentType: ARCHIVE_CONTENT_TYPE },
    customMetadata: { format: String(ARCHIVE_FORMAT), tenantId, scope, sets: String(unit.sets), records: String(unit.records) },
  });
  const stored = await env.HISTORY_ARCHIVE.get(unit.key);
  if (!stored) throw new Error(`${unit.key}: not found right after it was written`);
  const storedBytes = new Uint8Array(await stored.arrayBuffer());
  if ((await sha256Hex(storedBytes)) !== sha256) throw new Error(`${unit.key}: the stored object differs from the one written`);
  const counted = await countEntries(new Blob([storedBytes]).stream());
  if (counted.sets !== unit.sets || counted.records !== unit.records) {
    throw new Error(`${unit.key}: holds ${counted.sets} sets and ${counted.records} records, not ${unit.sets} and ${unit.records}`);
  }
  await run.options.afterObjectVerified?.(unit);

  const versions = sets.map((set) => set.version).filter((version): version is number => version !== null);
  const ats = sets.map((set) => set.at).sort();
  const inUnit = db.select({ id: changeSets.id }).from(changeSets).where(unitSets(unit));
  try {
    await runBatch(db, [
      // Exactly the sets and records the object holds are still here (else nothing happens: the next run starts over from D1).
      writeGuard(sql`(select count(*) from ${changeSets} where ${unitSets(unit)}) = ${unit.sets}`),
      writeGuard(sql`(select count(*) from ${changeRecords} where ${changeRecords.setId} in ${inUnit}) = ${unit.records}`),
      db.insert(historyArchive).values({
        tenantId,
        scope,
        firstSet,
        lastSet,
        firstVersion: versions.length ? Math.min(...versions) : null,
        lastVersion: versions.length ? Math.max(...versions) : null,
        firstAt: ats[0],
        lastAt: ats[ats.length - 1],
        created: scope !== "" && (recordsOf.get(firstSet) ?? []).some((record) => record.type === "o" && record.action === "c"),
        sets: unit.sets,
        records: unit.records,
        bytes: bytes.length,
        sha256,
        objectKey: unit.key,
        archivedAt: nowIso(),
      }),
      db.delete(changeRecords).where(inArray(changeRecords.setId, inUnit)),
      db.delete(changeSets).where(unitSets(unit)),
    ]);
  } catch (error) {
    throw new Error(`${unit.key}: written, but its sets could not leave D1 (they stay there; the next run writes it again)`, { cause: error });
  }
  report.objects++;
  report.sets += unit.sets;
  report.records += unit.records;
  report.bytes += bytes.length;
}

/** The records of `sets` by set, each set's newest first, read a bounded number of records at a time. */
async function readSetRecords(db: Db, sets: ArchivedSet[]): Promise<Map<string, StoredRecord[]>> {
  const bySet = new Map<string, StoredRecord[]>();
  for (let start = 0; start < sets.length; ) {
    let end = start;
    let records = 0;
    while (end < sets.length && (end === start || records + sets[end].records <= RECORDS_PER_READ)) records += sets[end++].records;
    const rows = await db
      .select({
        setId: changeRecords.setId,
        type: changeRecords.resourceType,
        action: changeRecords.action,
        resourceId: changeRecords.resourceId,
        ordinal: changeRecords.ordinal,
        changes: changeRecords.changes,
      })
      .from(changeRecords)
      .where(
        inJsonList(
          changeRecords.setId,
          sets.slice(start, end).map((set) => set.id),
        ),
      )
      .orderBy(asc(changeRecords.setId), sql`${changeRecords.ordinal} desc`);
    for (const { setId, ...record } of rows) {
      const list = bySet.get(setId);
      if (list) list.push(record);
      else bySet.set(setId, [record]);
    }
    start = end;
  }
  return bySet;
}

/** Removes the tenant's archived objects older than its retention (none set: nothing), objects first, then their index rows. */
async function enforceRetention(run: Run, db: Db, tenantId: string): Promise<void> {
  const [tenant] = await db.select({ years: tenants.historyRetentionYears }).from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant?.years) return;
  const keepFrom = retentionStart(run.now, Math.max(tenant.years, MIN_RETENTION_YEARS));
  for (;;) {
    const expired = await db
      .select({ key: historyArchive.objectKey })
      .from(historyArchive)
      .where(and(eq(historyArchive.tenantId, tenantId), lt(historyArchive.lastSet, keepFrom)))
      .limit(1000);
    if (!expired.length) return;
    const keys = expired.map((row) => row.key);
    // Objects first: a crash between the two leaves index rows a reader skips (their objects gone, past retention), never an object no row names.
    await run.env.HISTORY_ARCHIVE.delete(keys);
    await db.delete(historyArchive).where(and(eq(historyArchive.tenantId, tenantId), inJsonList(historyArchive.objectKey, keys)));
    run.report.expired += keys.length;
  }
}
