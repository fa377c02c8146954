/*
 * What a tenant move does to the databases, one bounded piece at a time: the tables it moves and how
 * their rows are read and written, the change log it catches up from, the checks that prove the copy
 * equal to the source, and the fences. The tenant's move object (mover.ts) decides which piece runs
 * when and keeps where it stands; nothing here keeps state between calls.
 */
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { d1, type DatabaseBindings } from "../platform/data/database";
import { jsonTextChunks } from "../platform/data/sql";
import { accounts, accountUsers } from "../directory/tables";
import {
  accountLineTotals,
  carts,
  operationAccountCaps,
  operationAccounts,
  operationAccountTotals,
  operationApprovals,
  operationDailyTotals,
  operationLines,
  operationOwners,
  operations,
  operationTotals,
  orderLines,
  orders,
} from "../operations/tables";
import { changeRecords, changeSets, events, idempotencyKeys, tenants } from "../platform/data/tables";
import { quotaOrderFacts, quotaRules } from "../quotas/tables";
import { webhookDeliveries, webhooks } from "../webhooks/tables";
import { historyArchive } from "../history/archive/tables";
import type { ShardName } from "../platform/core/shards";

/**
 * How a table's rows of one tenant are found: by a tenant column its indexes lead with, or (for
 * the big per-Operation tables, whose keys lead with the Operation) one Operation at a time.
 */
interface MovedTable {
  table: SQLiteTable;
  /** How its rows are found: by tenant, one Operation at a time, or (a change set's records) by their set's tenant. */
  scope: "tenant" | "operation" | "change-set";
  /** Its rows are read back in commit order (rowid): the copy keeps that order (events: the change log's order). */
  commitOrder?: true;
  /**
   * Copy order, when the key alone would sort the tenant's rows on every read: the columns after the
   * tenant in one of the table's indexes, ending with the key. A chunk is then one index range, not a
   * sort of every row of the tenant (a rule written every second of a long move adds up).
   */
  order?: readonly string[];
}

/** Every table of a shard that holds tenant rows, parents first (test/tenants holds it to the schema). */
export const MOVED_TABLES: readonly MovedTable[] = [
  { table: tenants, scope: "tenant" },
  { table: operations, scope: "tenant", order: ["created_at", "id"] },
  { table: operationOwners, scope: "tenant" },
  { table: operationLines, scope: "operation" },
  { table: accounts, scope: "tenant" },
  { table: accountUsers, scope: "tenant" },
  { table: operationAccounts, scope: "operation" },
  { table: operationApprovals, scope: "operation" },
  { table: quotaRules, scope: "tenant", order: ["created_at", "id"] },
  { table: carts, scope: "operation", order: ["created_at", "id"] },
  { table: orders, scope: "operation", order: ["created_at", "id"] },
  { table: orderLines, scope: "operation" },
  { table: operationTotals, scope: "operation" },
  { table: operationAccountTotals, scope: "operation" },
  { table: operationDailyTotals, scope: "operation" },
  { table: operationAccountCaps, scope: "operation" },
  { table: accountLineTotals, scope: "operation" },
  { table: events, scope: "tenant", commitOrder: true },
  { table: quotaOrderFacts, scope: "tenant" },
  { table: idempotencyKeys, scope: "tenant" },
  { table: webhooks, scope: "tenant", order: ["created_at", "id"] },
  { table: webhookDeliveries, scope: "tenant", order: ["webhook_id", "created_at", "id"] },
  { table: changeSets, scope: "tenant" },
  { table: changeRecords, scope: "change-set" },
  // The archive's index moves; the objects it names stay in the bucket, keyed by tenant, not shard.
  { table: historyArchive, scope: "tenant" },
];

/** Rows read per statement: a few ms of work each, so a request queues behind little (and far below D1's limits). */
export const CHUNK_ROWS = 250;
/** Change log entries read per catch-up statement, and per slice of a recheck at most. */
export const CHANGES_PER_READ = 2000;

/** An identifier of the schema objects, quoted (rowid is SQLite's own name and stays bare). */
const quote = (name: string) => (name === "rowid" ? name : `"${name.replace(/"/g, '""')}"`);
const utf8 = new TextEncoder();

/** What the move needs to know of one table: names from the schema objects. */
export interface TablePlan {
  name: string;
  scope: MovedTable["scope"];
  /** The condition that finds one scope's rows, with the parameters `scopeValues` gives: the tenant (tenants: id), the Operation, or a stretch of the tenant's change sets. */
  scopeFilter: string;
  /** The condition that finds all the tenant's rows at once, with one parameter: the tenant (counts). */
  tenantFilter: string;
  /** Columns copied (generated ones are computed again by the target). */
  columns: string[];
  /** The primary key: what the change log names a row by, the same on every shard. */
  key: string[];
  /** Copy and verification order, which is also the keyset cursor: the key, or rowid for a table kept in commit order. */
  order: string[];
  commitOrder: boolean;
}

function planOf(moved: MovedTable): TablePlan {
  const config = getTableConfig(moved.table);
  const tenantColumn = moved.table === tenants ? "id" : "tenant_id";
  const key = config.primaryKeys[0]?.columns.map((column) => column.name) ?? config.columns.filter((column) => column.primary).map((column) => column.name);
  // A null in the cursor's columns would hide its row from every range: from the copy and from its check alike.
  const nullable = moved.order?.filter((name) => !config.columns.find((column) => column.name === name)?.notNull);
  if (nullable?.length) throw new Error(`${config.name}: a move orders rows by not-null columns only, not ${nullable.join(", ")}`);
  return {
    name: config.name,
    scope: moved.scope,
    scopeFilter:
      moved.scope === "operation"
        ? `${quote("operation_id")} = ?`
        : moved.scope === "change-set"
          ? `${quote("set_id")} in (select id from ${quote(getTableConfig(changeSets).name)} where tenant_id = ? and id >= ? and id <= ?)`
          : `${quote(tenantColumn)} = ?`,
    tenantFilter:
      moved.scope === "operation"
        ? `${quote("operation_id")} in (select id from ${quote(getTableConfig(operations).name)} where tenant_id = ?)`
        : moved.scope === "change-set"
          ? `${quote("set_id")} in (select id from ${quote(getTableConfig(changeSets).name)} where tenant_id = ?)`
          : `${quote(tenantColumn)} = ?`,
    columns: config.columns.filter((column) => !column.generated).map((column) => column.name),
    key,
    order: moved.commitOrder ? ["rowid"] : [...(moved.order ?? key)],
    commitOrder: moved.commitOrder === true,
  };
}

/** The plan of every moved table, in MOVED_TABLES order. */
export const MOVE_PLANS: readonly TablePlan[] = MOVED_TABLES.map(planOf);
const planNamed = new Map(MOVE_PLANS.map((plan) => [plan.name, plan]));

/** One row as read for a move: its values (a JSON array of `columns`), its key and its cursor (JSON arrays). */
export interface MovedRow {
  row: string;
  key: string;
  cursor: string;
}

const columnsOf = (names: string[]) => names.map(quote).join(", ");
/** Rows as a move reads them: values, key and cursor as JSON arrays (and `extra` columns, for a compound's own ORDER BY). */
const selectRows = (plan: TablePlan, extra = "") =>
  `select json_array(${columnsOf(plan.columns)}) as row, json_array(${columnsOf(plan.key)}) as key, json_array(${columnsOf(plan.order)}) as cursor${extra} from ${quote(plan.name)}`;
const tuple = (names: string[]) => `(${columnsOf(names)})`;
const placeholders = (count: number) => `(${Array.from({ length: count }, () => "?").join(", ")})`;
/** `(key columns) in` the keys of one JSON parameter (an array of the change log's JSON key arrays). */
const keyIn = (plan: TablePlan) => `${tuple(plan.key)} in (select ${plan.key.map((_, i) => `value ->> ${i}`).join(", ")} from json_each(?))`;

/** Which of a scope's rows a read takes: those after `after` and up to `upTo` (both in copy order), `limit` of them at most. */
export interface RowRange {
  after: unknown[] | null;
  upTo?: unknown[] | null;
  limit?: number;
}

/** A scope's rows in `range`. */
export async function readRows(database: D1Database, plan: TablePlan, scope: string, range: RowRange): Promise<MovedRow[]> {
  const { sql, values } = readRowsStatement(plan, scope, range);
  const { results } = await database
    .prepare(sql)
    .bind(...values)
    .all<MovedRow>();
  return results;
}

/** The statement `readRows` runs: one index range in copy order (a test holds every table's to its query plan). */
export function readRowsStatement(plan: TablePlan, scope: string, range: RowRange): { sql: string; values: unknown[] } {
  if (plan.scope === "change-set" && range.after) return changeRecordsAfter(plan, scope, { ...range, after: range.after });
  const order = tuple(plan.order);
  const conditions = [plan.scopeFilter];
  const values: unknown[] = scopeValues(plan, scope);
  if (range.after) {
    conditions.push(`${order} > ${placeholders(plan.order.length)}`);
    values.push(...range.after);
  }
  if (range.upTo) {
    conditions.push(`${order} <= ${placeholders(plan.order.length)}`);
    values.push(...range.upTo);
  }
  const limit = range.limit === undefined ? "" : ` limit ${range.limit}`;
  return { sql: `${selectRows(plan)} where ${conditions.join(" and ")} order by ${columnsOf(plan.order)}${limit}`, values };
}

/** The rows of `keys` (the change log's JSON key arrays) that exist, in copy order. */
export async function readRowsByKey(database: D1Database, plan: TablePlan, keys: readonly string[]): Promise<MovedRow[]> {
  const [rows] = await readRowsOfKeys(database, [{ plan, keys }]);
  return rows;
}

/**
 * The rows of each table's `keys` that exist, in copy order, read in one call (one transaction): a
 * catch-up names rows of several tables, and one call each, one after another, held the move's step
 * (and the shard) several times as long.
 */
export async function readRowsOfKeys(database: D1Database, wanted: ReadonlyArray<{ plan: TablePlan; keys: readonly string[] }>): Promise<MovedRow[][]> {
  const reads = wanted.flatMap(({ plan, keys }, index) =>
    jsonTextChunks(keys).map((chunk) => ({
      index,
      statement: database.prepare(`${selectRows(plan)} where ${keyIn(plan)} order by ${columnsOf(plan.order)}`).bind(chunk),
    })),
  );
  const rows = wanted.map((): MovedRow[] => []);
  if (!reads.length) return rows;
  const results = await database.batch<MovedRow>(reads.map((read) => read.statement));
  for (const [i, result] of results.entries()) rows[reads[i].index].push(...result.results);
  return rows;
}

/**
 * The change records of a stretch of sets past a cursor: the rest of the cursor's set (one range of
 * its key), then the sets after it, each from its start; the two (at most `limit` rows each) merged in
 * key order. Read as one list of the stretch's sets, every record of the sets before the cursor's
 * would be read again at each chunk (5000 a set for a bulk write of lines: 40 ms a chunk at 1.5 M lines).
 */
function changeRecordsAfter(plan: TablePlan, scope: string, range: RowRange & { after: unknown[] }): { sql: string; values: unknown[] } {
  const [tenantId, , last] = scopeValues(plan, scope) as SetStretch;
  const [setId, ...within] = range.after;
  const [setColumn, ...withinColumns] = plan.order;
  const limit = range.limit === undefined ? "" : ` limit ${range.limit}`;
  const upTo = range.upTo ? ` and ${tuple(plan.order)} <= ${placeholders(plan.order.length)}` : "";
  const lastSet = range.upTo && String(range.upTo[0]) < last ? String(range.upTo[0]) : last;
  const sorted = plan.order.map((_, i) => `o${i}`).join(", ");
  const ordered = selectRows(plan, plan.order.map((column, i) => `, ${quote(column)} as o${i}`).join(""));
  const sameSet = `select * from (${ordered} where ${quote(setColumn)} = ? and ${tuple(withinColumns)} > ${placeholders(within.length)}${upTo} order by ${columnsOf(plan.order)}${limit})`;
  const laterSets = `select * from (${ordered} where ${quote(setColumn)} in (select id from ${quote(getTableConfig(changeSets).name)} where tenant_id = ? and id > ? and id <= ?)${upTo} order by ${columnsOf(plan.order)}${limit})`;
  return {
    sql: `select row, key, cursor from (${sameSet} union all ${laterSets}) order by ${sorted}${limit}`,
    values: [setId, ...within, ...(range.upTo ?? []), tenantId, setId, lastSet, ...(range.upTo ?? [])],
  };
}

/**
 * Change sets per scope of the change records: the records are found through their sets, and a list
 * of every set of a tenant that writes all day would be built again for every chunk.
 */
const SETS_PER_SCOPE = 250;

/** A stretch of a tenant's change sets, in id order: `[tenant, first set, last set, whether it had SETS_PER_SCOPE sets]` as JSON. */
type SetStretch = [tenantId: string, first: string, last: string, full?: boolean];

/** The values of a scope's filter: the scope itself, or a stretch of change sets (a plain tenant id is every set of the tenant). */
export function scopeValues(plan: TablePlan, scope: string): unknown[] {
  if (plan.scope !== "change-set") return [scope];
  const [tenantId, first, last] = stretchOf(scope);
  return [tenantId, first, last];
}

/** A stretch as saved; a plain tenant id (a move saved before stretches) is every set of the tenant, and the last. */
const stretchOf = (scope: string): SetStretch => (scope.startsWith("[") ? (JSON.parse(scope) as SetStretch) : [scope, "", "\uffff", false]);

/**
 * The scope after `after` (null: the first): the tenant, once; the next Operation (in id order); or the
 * next SETS_PER_SCOPE change sets of the tenant. Null when there is none, and after a stretch of fewer
 * sets: the sets written since are in the move's change log, which the catch-up applies and the
 * cutover's check covers, and following them here would chase the tenant's writes for as long as they
 * go on (a check at 1.5 M lines did, one new set a step).
 */
export async function nextScope(database: D1Database, plan: TablePlan, tenantId: string, after: string | null): Promise<string | null> {
  if (plan.scope === "change-set") {
    const previous = after === null ? null : stretchOf(after);
    if (previous?.[3] === false) return null;
    const from = previous?.[2] ?? "";
    const stretch = await database
      .prepare(
        `select min(id) as first, max(id) as last, count(*) as sets from (select id from ${quote(getTableConfig(changeSets).name)} where tenant_id = ? and id > ? order by id limit ${SETS_PER_SCOPE})`,
      )
      .bind(tenantId, from)
      .first<{ first: string | null; last: string | null; sets: number }>();
    if (!stretch?.first || !stretch.last) return null;
    return JSON.stringify([tenantId, stretch.first, stretch.last, stretch.sets === SETS_PER_SCOPE] satisfies SetStretch);
  }
  if (plan.scope !== "operation") return after === null ? tenantId : null;
  const row = await database
    .prepare(`select id from ${quote(getTableConfig(operations).name)} where tenant_id = ? and id > ? order by id limit 1`)
    .bind(tenantId, after ?? "")
    .first<{ id: string }>();
  return row?.id ?? null;
}

/** How a batch of rows is written to the target. */
type WriteMode = "copy" | "resync";

/**
 * The statement that writes rows (JSON arrays of `columns`, one JSON parameter) to the target. A copy
 * skips a row already there (a chunk written again after a restart, or a row a later write changed:
 * the catch-up writes it again). A catch-up writes the source's row over the target's: a table kept in
 * commit order is updated in place (its row keeps its place), any other is replaced, which also drops a
 * stale row whose unique value (an Operation's code, a rule's scope) the source has since given to another
 * row: that row's own change is in the log and is written after.
 */
function writeRowsSql(plan: TablePlan, mode: WriteMode): string {
  const columns = columnsOf(plan.columns);
  const values = plan.columns.map((_, i) => `value ->> ${i}`).join(", ");
  const rows = `select ${values} from json_each(?) where true`;
  if (mode === "copy") return `insert into ${quote(plan.name)} (${columns}) ${rows} on conflict do nothing`;
  if (!plan.commitOrder) return `insert or replace into ${quote(plan.name)} (${columns}) ${rows}`;
  const updated = plan.columns.filter((column) => !plan.key.includes(column));
  return `insert into ${quote(plan.name)} (${columns}) ${rows} on conflict ${tuple(plan.key)} do update set ${updated.map((column) => `${quote(column)} = excluded.${quote(column)}`).join(", ")}`;
}

/** A fence on a shard: what a tenant's rows there refuse (0010_shards.sql). */
export type FenceState = "MOVING" | "LEFT";

const setFenceSql = "insert into tenant_fences (tenant_id, state, since) values (?, ?, ?) on conflict (tenant_id) do update set state = excluded.state";

/** Fences the tenant on a shard (MOVING: no write at all; LEFT: deletes only, so the move can clean up). */
export async function setFence(database: D1Database, tenantId: string, state: FenceState, since: string): Promise<void> {
  await database.prepare(setFenceSql).bind(tenantId, state, since).run();
}

export async function liftFence(database: D1Database, tenantId: string): Promise<void> {
  await database.prepare("delete from tenant_fences where tenant_id = ?").bind(tenantId).run();
}

export async function fenceOf(database: D1Database, tenantId: string): Promise<{ state: FenceState; since: string } | null> {
  return database.prepare("select state, since from tenant_fences where tenant_id = ?").bind(tenantId).first<{ state: FenceState; since: string }>();
}

/**
 * Runs `statements` on a shard that fences the tenant (the target keeps a LEFT fence all through a
 * move, so a write routed there by a stale placement, or a sweep, never touches the copy): one batch,
 * one transaction, that lifts the fence, writes and sets it again. No other write sees it lifted.
 */
async function writeThroughFence(database: D1Database, tenantId: string, fence: { state: FenceState; since: string }, statements: D1PreparedStatement[]) {
  if (!statements.length) return;
  await database.batch([
    database.prepare("delete from tenant_fences where tenant_id = ?").bind(tenantId),
    ...statements,
    database.prepare(setFenceSql).bind(tenantId, fence.state, fence.since),
  ]);
}

/** Where a move writes: the target shard, and the fence it keeps there. */
export interface Target {
  database: D1Database;
  tenantId: string;
  fence: { state: FenceState; since: string };
}

/** Copies rows read from the source (a chunk) to the target; rows already there are left for the catch-up. */
export async function copyRows(target: Target, plan: TablePlan, rows: MovedRow[]): Promise<void> {
  const sql = writeRowsSql(plan, "copy");
  await writeThroughFence(
    target.database,
    target.tenantId,
    target.fence,
    jsonTextChunks(rows.map((row) => row.row)).map((chunk) => target.database.prepare(sql).bind(chunk)),
  );
}

// ---- the change log (0019_move_capture.sql) ---------------------------------------------------

/** Starts recording the tenant's writes on a shard, from an empty log. */
export async function startCapture(database: D1Database, tenantId: string, since: string): Promise<void> {
  await database.batch([
    database.prepare("delete from move_changes where tenant_id = ?").bind(tenantId),
    database.prepare("insert into move_captures (tenant_id, since) values (?, ?) on conflict (tenant_id) do nothing").bind(tenantId, since),
  ]);
}

/**
 * Log entries deleted per statement, a few ms of work: a request waits behind one at most. The log
 * grows through a long move (150,000 entries over a 1.5 M-line check), and purged in one statement it
 * held the shard 1.6 s.
 */
export const LOG_ENTRIES_PER_DELETE = 2_000;

/** Stops recording and forgets the log: one statement per LOG_ENTRIES_PER_DELETE entries, so each stays short. */
export async function stopCapture(database: D1Database, tenantId: string): Promise<void> {
  await database.prepare("delete from move_captures where tenant_id = ?").bind(tenantId).run();
  while (await purgeChanges(database, tenantId, Number.MAX_SAFE_INTEGER)) {}
}

/**
 * Drops the oldest log entries up to `seq` (applied, and checked or covered by a check to come),
 * LOG_ENTRIES_PER_DELETE at most; answers how many went. Each step of the catch-up drops some: the
 * rest go in the steps after, or when the capture stops.
 */
export async function purgeChanges(database: D1Database, tenantId: string, upTo: number): Promise<number> {
  const deleted = await database
    .prepare(
      `delete from move_changes where seq in (select seq from move_changes where tenant_id = ? and seq <= ? order by seq limit ${LOG_ENTRIES_PER_DELETE})`,
    )
    .bind(tenantId, upTo)
    .run();
  return deleted.meta.changes;
}

/**
 * How many entries of the tenant's log come after `afterSeq` (and up to `upTo`), counted up to `atMost` (all the catch-up
 * asks is whether fewer than that wait; a count of all would read the whole backlog). Sequence
 * numbers are the shard's, shared by every tenant it logs.
 */
export async function pendingChanges(
  database: D1Database,
  tenantId: string,
  afterSeq: number,
  atMost: number,
  upTo = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  const row = await database
    .prepare("select count(*) as n from (select 1 from move_changes where tenant_id = ? and seq > ? and seq <= ? limit ?)")
    .bind(tenantId, afterSeq, upTo, atMost)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The rows the log names after `afterSeq`, by table: distinct keys. */
export async function changedKeys(database: D1Database, tenantId: string, afterSeq: number): Promise<Map<string, Set<string>>> {
  const { results } = await database
    .prepare("select distinct table_name as tableName, row_key as rowKey from move_changes where tenant_id = ? and seq > ?")
    .bind(tenantId, afterSeq)
    .all<LogEntry>();
  return keysByTable(results);
}

interface LogEntry {
  tableName: string;
  rowKey: string;
}

function keysByTable(entries: readonly LogEntry[]): Map<string, Set<string>> {
  const byTable = new Map<string, Set<string>>();
  for (const { tableName, rowKey } of entries) {
    const keys = byTable.get(tableName) ?? new Set<string>();
    keys.add(rowKey);
    byTable.set(tableName, keys);
  }
  return byTable;
}

/** A stretch of the log: the rows it names by table (distinct keys), how many entries it held, the last one's seq. */
export interface LogSlice {
  byTable: Map<string, Set<string>>;
  entries: number;
  lastSeq: number;
}

/** The next `limit` entries of the tenant's log after `afterSeq` (and up to `upTo`), oldest first. */
export async function readLog(database: D1Database, tenantId: string, afterSeq: number, limit: number, upTo?: number): Promise<LogSlice> {
  const { results } = await database
    .prepare(
      `select seq, table_name as tableName, row_key as rowKey from move_changes where tenant_id = ? and seq > ?${upTo === undefined ? "" : " and seq <= ?"} order by seq limit ?`,
    )
    .bind(...(upTo === undefined ? [tenantId, afterSeq, limit] : [tenantId, afterSeq, upTo, limit]))
    .all<LogEntry & { seq: number }>();
  return { byTable: keysByTable(results), entries: results.length, lastSeq: results.at(-1)?.seq ?? afterSeq };
}

export interface Applied {
  /** Log entries read (each names one row write). */
  entries: number;
  /** The last entry applied (unchanged when there was none). */
  lastSeq: number;
  /** Rows written to the target (the source's row), and deleted from it (gone from the source). */
  written: number;
  deleted: number;
}

/**
 * Catches the target up on the log, from entry `afterSeq` on, `maxEntries` at most: each row an entry
 * names is read from the source as it is now, and written over the target's (or deleted from it when
 * the source has it no more), all in one target transaction. Reading the row as it is now (not as the
 * entry saw it) makes the order of entries irrelevant: a row changed again meanwhile has a later entry,
 * which a later call applies, and writes the same row again.
 */
export async function applyChanges(source: D1Database, target: Target, afterSeq: number, maxEntries: number): Promise<Applied> {
  const log = await readLog(source, target.tenantId, afterSeq, Math.min(maxEntries, CHANGES_PER_READ));
  if (!log.entries) return { entries: 0, lastSeq: afterSeq, written: 0, deleted: 0 };
  const { byTable } = log;
  const unknown = [...byTable.keys()].filter((name) => !planNamed.has(name));
  if (unknown.length) throw new Error(`the change log names tables no move knows: ${unknown.join(", ")}`);
  const wanted = MOVE_PLANS.filter((plan) => byTable.has(plan.name)).map((plan) => ({ plan, keys: [...(byTable.get(plan.name) ?? [])] }));
  const read = await readRowsOfKeys(source, wanted);
  const statements: D1PreparedStatement[] = [];
  let written = 0;
  let deleted = 0;
  for (const [index, { plan, keys }] of wanted.entries()) {
    const rows = read[index];
    const present = new Set(rows.map((row) => row.key));
    const gone = keys.filter((key) => !present.has(key));
    for (const chunk of gone.length ? jsonTextChunks(gone) : []) {
      statements.push(target.database.prepare(`delete from ${quote(plan.name)} where ${keyIn(plan)}`).bind(chunk));
    }
    const sql = writeRowsSql(plan, "resync");
    for (const chunk of rows.length ? jsonTextChunks(rows.map((row) => row.row)) : []) statements.push(target.database.prepare(sql).bind(chunk));
    written += rows.length;
    deleted += gone.length;
  }
  await writeThroughFence(target.database, target.tenantId, target.fence, statements);
  return { entries: log.entries, lastSeq: log.lastSeq, written, deleted };
}

// ---- checks ---------------------------------------------------------------------------------

/** Why a copy differs from its source (a move that finds one stops, and leaves the tenant on its source). */
export class CopyDiffers extends Error {}

const describeKey = (plan: TablePlan, key: string) => `${plan.name} ${key}`;

/**
 * Compares the rows each table's `keys` name (the change log's JSON key arrays) on both shards: every
 * table in one call per side, as a catch-up reads them (one call per table, one after another, held a
 * recheck slice several times as long). Rows `pending` names (changed since the last catch-up: read
 * between the two sides, so it covers any change the source's read may have missed) are left to
 * later. Throws CopyDiffers at the first row that differs.
 */
export async function compareRowsOfKeys(
  source: D1Database,
  target: D1Database,
  byTable: ReadonlyMap<string, ReadonlySet<string>>,
  pending?: () => Promise<ReadonlyMap<string, ReadonlySet<string>>>,
): Promise<void> {
  const wanted = MOVE_PLANS.filter((plan) => byTable.get(plan.name)?.size).map((plan) => ({ plan, keys: [...byTable.get(plan.name)!] }));
  if (!wanted.length) return;
  const sourceRows = await readRowsOfKeys(source, wanted);
  const skip = pending ? await pending() : new Map<string, ReadonlySet<string>>();
  const targetRows = await readRowsOfKeys(target, wanted);
  for (const [index, { plan, keys }] of wanted.entries()) {
    const here = new Map(sourceRows[index].map((row) => [row.key, row.row]));
    const there = new Map(targetRows[index].map((row) => [row.key, row.row]));
    const changed = skip.get(plan.name);
    for (const key of keys) {
      if (changed?.has(key) || here.get(key) === there.get(key)) continue;
      throw new CopyDiffers(
        `${describeKey(plan, key)} is ${here.has(key) ? "different" : "absent"} on the source and ${there.has(key) ? "present" : "absent"} on the copy`,
      );
    }
  }
}

/** Where a verification pass stands in one table's scope. */
export interface PassCursor {
  /** Source cursor (copy order). */
  after: unknown[] | null;
  /** Target cursor, for a table in commit order (rowids differ between shards); else the source cursor serves both. */
  targetAfter: unknown[] | null;
}

export interface PassChunk {
  /** Rows compared (those changed since the last catch-up are left to the fence's check). */
  compared: MovedRow[];
  /** Whether the source has no more rows in the scope. */
  done: boolean;
  cursor: PassCursor;
}

/**
 * Compares the next chunk of a scope on both shards, row by row and in order: the next `limit` rows the
 * source has (after the cursor), against the target's rows over the same stretch. Rows the log names after the
 * last catch-up (`pending`, read after the source's rows, so it covers every change they may miss) are
 * left out on both sides: the fence checks them. Everything else must be equal, and in the same order
 * (events: commit order). Throws CopyDiffers.
 */
export async function compareChunk(
  source: D1Database,
  target: D1Database,
  plan: TablePlan,
  scope: string,
  cursor: PassCursor,
  limit: number,
  pending: () => Promise<Set<string>>,
): Promise<PassChunk> {
  const read: MovedRow[] = [];
  let changed: Set<string>;
  let compared: MovedRow[];
  let last: boolean;
  do {
    // In commit order a stretch ends at a row compared: a chunk of rows all changed since the last
    // catch-up reads on (left out here, the next catch-up would bring them back into the target's stretch).
    const more = await readRows(source, plan, scope, { after: read.length ? (JSON.parse(read[read.length - 1].cursor) as unknown[]) : cursor.after, limit });
    read.push(...more);
    last = more.length === limit;
    changed = await pending();
    compared = read.filter((row) => !changed.has(row.key));
  } while (plan.commitOrder && last && !compared.length);
  let after = read.length ? (JSON.parse(read[read.length - 1].cursor) as unknown[]) : cursor.after;
  let targetAfter = cursor.after;
  let upTo: unknown[] | null = last ? after : null;
  if (plan.commitOrder) {
    // The target numbers its rows its own way: the stretch ends at the target's place of the last row
    // compared, and so does the source's. Rows read after it (changed since the last catch-up) are read
    // again by the next chunk: a catch-up may have put them back in the target's next stretch by then.
    targetAfter = cursor.targetAfter;
    if (last) {
      after = JSON.parse(compared[compared.length - 1].cursor) as unknown[];
      const [place] = await readRowsByKey(target, plan, [compared[compared.length - 1].key]);
      if (!place) throw new CopyDiffers(`${describeKey(plan, compared[compared.length - 1].key)} is missing from the copy`);
      upTo = JSON.parse(place.cursor) as unknown[];
    }
  }
  const theirs = (await readRows(target, plan, scope, { after: targetAfter, upTo })).filter((row) => !changed.has(row.key));
  for (let i = 0; i < Math.max(compared.length, theirs.length); i++) {
    const mine = compared[i];
    const copy = theirs[i];
    if (mine?.row !== copy?.row) {
      const key = mine?.key ?? copy!.key;
      throw new CopyDiffers(
        `${describeKey(plan, key)}: ${mine && copy && mine.key === copy.key ? "different values" : "rows out of step"} on the copy (row ${i + 1} of the stretch after ${JSON.stringify(targetAfter)})`,
      );
    }
  }
  return { compared, done: !last, cursor: { after, targetAfter: plan.commitOrder ? (upTo ?? targetAfter) : after } };
}

/** A running SHA-256 over a table's rows, chained per chunk (WebCrypto has no streaming digest): equal rows in equal order give equal digests. */
export async function chainDigest(previousHex: string, rows: readonly MovedRow[]): Promise<string> {
  const previous = utf8.encode(previousHex);
  const text = utf8.encode(rows.map((row) => row.row).join("\n"));
  const input = new Uint8Array(previous.length + text.length);
  input.set(previous);
  input.set(text, previous.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", input));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- cleaning up --------------------------------------------------------------------------------

/**
 * Deletes up to `maxStatements` chunks of a tenant's rows from a shard, children first; answers how
 * many rows went (0: none are left). A shard that fences the tenant MOVING refuses it; LEFT allows it.
 */
export async function deleteTenantRows(database: D1Database, tenantId: string, maxStatements: number): Promise<number> {
  let deleted = 0;
  let statements = 0;
  for (const plan of [...MOVE_PLANS].reverse()) {
    const key = columnsOf(plan.key);
    for (let scope = await nextScope(database, plan, tenantId, null); scope !== null; ) {
      const result = await database
        .prepare(
          `delete from ${quote(plan.name)} where ${tuple(plan.key)} in (select ${key} from ${quote(plan.name)} where ${plan.scopeFilter} limit ${CHUNK_ROWS})`,
        )
        .bind(...scopeValues(plan, scope))
        .run();
      statements++;
      deleted += result.meta.changes ?? 0;
      if (statements >= maxStatements) return deleted;
      if (!result.meta.changes) scope = await nextScope(database, plan, tenantId, scope);
    }
  }
  return deleted;
}

/** How many rows of each table a shard holds for a tenant (isolation checks, move reports): one count per table. */
export async function countTenantRows(env: DatabaseBindings, shard: ShardName, tenantId: string): Promise<Record<string, number>> {
  const database = d1(env, shard);
  const counts = await Promise.all(
    MOVE_PLANS.map(async (plan) => {
      const row = await database
        .prepare(`select count(*) as n from ${quote(plan.name)} where ${plan.tenantFilter}`)
        .bind(tenantId)
        .first<{ n: number }>();
      return [plan.name, row?.n ?? 0] as const;
    }),
  );
  return Object.fromEntries(counts);
}

/** The tenant's rows on a shard, all tables (the copy's size, read once when it starts). */
export async function totalTenantRows(env: DatabaseBindings, shard: ShardName, tenantId: string): Promise<number> {
  return Object.values(await countTenantRows(env, shard, tenantId)).reduce((sum, rows) => sum + rows, 0);
}
