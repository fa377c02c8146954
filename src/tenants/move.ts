import { and, eq } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { d1, primaryDb, type DatabaseBindings } from "../platform/data/database";
import { jsonTextChunks } from "../platform/data/sql";
import { accounts, accountUsers } from "../directory/tables";
import { carts, operationAccounts, operationApprovals, operationLines, operationOwners, operations, orders } from "../operations/tables";
import { changeRecords, changeSets, events, idempotencyKeys, tenantDirectory, tenantFences, tenants } from "../platform/data/tables";
import { quotaOrderFacts, quotaRules } from "../quotas/tables";
import { webhookDeliveries, webhooks } from "../webhooks/tables";
import { historyArchive } from "../history/archive/tables";
import { shardNames, type ShardName } from "../platform/core/shards";
import { forgetPlacement, PLACEMENT_CACHE_TTL_MS } from "../platform/data/tenancy";
import { nowIso } from "../platform/core/time";

/**
 * How a table's rows of one tenant are found: by a tenant column its indexes lead with, or (for
 * the big per-Operation tables, whose keys lead with the Operation) one Operation at a time.
 */
interface MovedTable {
  table: SQLiteTable;
  /** How its rows are found: by tenant, one Operation at a time, or (a change set's records) by their set's tenant. */
  scope: "tenant" | "operation" | "change-set";
}

/** Every table of a shard that holds tenant rows, parents first (test/tenants holds it to the schema). */
export const MOVED_TABLES: readonly MovedTable[] = [
  { table: tenants, scope: "tenant" },
  { table: operations, scope: "tenant" },
  { table: operationOwners, scope: "tenant" },
  { table: operationLines, scope: "operation" },
  { table: accounts, scope: "tenant" },
  { table: accountUsers, scope: "tenant" },
  { table: operationAccounts, scope: "operation" },
  { table: operationApprovals, scope: "operation" },
  { table: quotaRules, scope: "tenant" },
  { table: carts, scope: "operation" },
  { table: orders, scope: "operation" },
  { table: events, scope: "tenant" },
  { table: quotaOrderFacts, scope: "tenant" },
  { table: idempotencyKeys, scope: "tenant" },
  { table: webhooks, scope: "tenant" },
  { table: webhookDeliveries, scope: "tenant" },
  { table: changeSets, scope: "tenant" },
  { table: changeRecords, scope: "change-set" },
  // The archive's index moves; the objects it names stay in the bucket, keyed by tenant, not shard.
  { table: historyArchive, scope: "tenant" },
];

/** Rows read per statement: far below D1's limits (1.5 MB of JSON per bound value is checked too). */
const CHUNK_ROWS = 1000;

/** An identifier of the schema objects, quoted (rowid is SQLite's own name and stays bare). */
const quote = (name: string) => (name === "rowid" ? name : `"${name.replace(/"/g, '""')}"`);
const utf8 = new TextEncoder();

/** What the move needs to know of one table: names from the schema objects, order from the database. */
interface TablePlan {
  name: string;
  scope: MovedTable["scope"];
  /** The condition that finds one scope's rows, with one parameter: the tenant (tenants: id), the Operation, or the change sets' tenant. */
  scopeFilter: string;
  /** Columns copied (generated ones are computed again by the target). */
  columns: string[];
  /** Copy order, which is also the keyset cursor: rowid (keeps commit order, e.g. of events) or the primary key. */
  order: string[];
}

async function planOf(database: D1Database, moved: MovedTable): Promise<TablePlan> {
  const config = getTableConfig(moved.table);
  const tenantColumn = moved.table === tenants ? "id" : "tenant_id";
  const { results } = await database.prepare("select wr from pragma_table_list where name = ?").bind(config.name).all<{ wr: number }>();
  const withoutRowid = results[0]?.wr === 1;
  const primary = config.primaryKeys[0]?.columns.map((column) => column.name) ?? config.columns.filter((column) => column.primary).map((column) => column.name);
  return {
    name: config.name,
    scope: moved.scope,
    scopeFilter:
      moved.scope === "operation"
        ? `${quote("operation_id")} = ?`
        : moved.scope === "change-set"
          ? `${quote("set_id")} in (select id from ${quote(getTableConfig(changeSets).name)} where tenant_id = ?)`
          : `${quote(tenantColumn)} = ?`,
    columns: config.columns.filter((column) => !column.generated).map((column) => column.name),
    order: withoutRowid ? primary : ["rowid"],
  };
}

/** The values a scope filter binds: the tenant, or each of its Operations in turn. */
async function scopesOf(database: D1Database, plan: TablePlan, tenantId: string): Promise<string[]> {
  if (plan.scope !== "operation") return [tenantId];
  const { results } = await database
    .prepare(`select id from ${quote(getTableConfig(operations).name)} where tenant_id = ? order by id`)
    .bind(tenantId)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}

interface Chunk {
  /** Each row as a JSON array of `columns`. */
  rows: string[];
  /** The last row's `order` values: the next chunk starts after them. */
  last: unknown[] | null;
}

async function readChunk(database: D1Database, plan: TablePlan, scope: string, after: unknown[] | null): Promise<Chunk> {
  const order = plan.order.map(quote);
  const keyset = after ? ` and (${order.join(", ")}) > (${order.map(() => "?").join(", ")})` : "";
  const statement = database
    .prepare(
      `select json_array(${plan.columns.map(quote).join(", ")}) as row, json_array(${order.join(", ")}) as cursor from ${quote(plan.name)} ` +
        `where ${plan.scopeFilter}${keyset} order by ${order.join(", ")} limit ${CHUNK_ROWS}`,
    )
    .bind(scope, ...(after ?? []));
  const { results } = await statement.all<{ row: string; cursor: string }>();
  return { rows: results.map((r) => r.row), last: results.length ? (JSON.parse(results[results.length - 1].cursor) as unknown[]) : null };
}

/** Every chunk of a table's rows in one scope, in copy order. */
async function* chunksOf(database: D1Database, plan: TablePlan, scope: string): AsyncGenerator<string[]> {
  let after: unknown[] | null = null;
  for (;;) {
    const chunk = await readChunk(database, plan, scope, after);
    if (chunk.rows.length) yield chunk.rows;
    if (chunk.rows.length < CHUNK_ROWS) return;
    after = chunk.last;
  }
}

async function copyTable(source: D1Database, target: D1Database, plan: TablePlan, tenantId: string, afterChunk: AfterChunk): Promise<number> {
  const columns = plan.columns.map(quote).join(", ");
  const values = plan.columns.map((_, i) => `value ->> ${i}`).join(", ");
  const insert = `insert into ${quote(plan.name)} (${columns}) select ${values} from json_each(?)`;
  let copied = 0;
  for (const scope of await scopesOf(source, plan, tenantId)) {
    for await (const rows of chunksOf(source, plan, scope)) {
      for (const batch of jsonTextChunks(rows)) await target.prepare(insert).bind(batch).run();
      copied += rows.length;
      await afterChunk(plan.name, copied);
    }
  }
  return copied;
}

/** A table's rows of one tenant: how many, and a SHA-256 over all of them in copy order. */
export interface TableDigest {
  rows: number;
  sha256: string;
}

async function digestTable(database: D1Database, plan: TablePlan, tenantId: string): Promise<TableDigest> {
  let rows = 0;
  let digest = new Uint8Array(0);
  for (const scope of await scopesOf(database, plan, tenantId)) {
    for await (const chunk of chunksOf(database, plan, scope)) {
      rows += chunk.length;
      // Chained per chunk (WebCrypto has no streaming digest): equal rows in equal order give equal digests.
      const text = utf8.encode(chunk.join("\n"));
      const input = new Uint8Array(digest.length + text.length);
      input.set(digest);
      input.set(text, digest.length);
      digest = new Uint8Array(await crypto.subtle.digest("SHA-256", input));
    }
  }
  return { rows, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") };
}

/** Deletes a tenant's rows of one table, a chunk per statement (each stays short). */
async function deleteTable(database: D1Database, plan: TablePlan, tenantId: string): Promise<number> {
  const key = plan.order.map(quote).join(", ");
  let deleted = 0;
  for (const scope of await scopesOf(database, plan, tenantId)) {
    for (;;) {
      const result = await database
        .prepare(`delete from ${quote(plan.name)} where (${key}) in (select ${key} from ${quote(plan.name)} where ${plan.scopeFilter} limit ${CHUNK_ROWS})`)
        .bind(scope)
        .run();
      deleted += result.meta.changes ?? 0;
      if (!result.meta.changes) break;
    }
  }
  return deleted;
}

/** Deletes every row of the tenant from a shard, children first (Operation-scoped tables find their Operations). */
async function deleteTenantRows(database: D1Database, plans: TablePlan[], tenantId: string): Promise<number> {
  let deleted = 0;
  for (const plan of [...plans].reverse()) deleted += await deleteTable(database, plan, tenantId);
  return deleted;
}

export type AfterChunk = (table: string, rowsCopied: number) => void | Promise<void>;

export interface MoveOptions {
  /** Called after each copied chunk (progress; a test throws here to fail a move half-way). */
  afterChunk?: AfterChunk;
  /**
   * How long to wait between switching the directory and deleting the old rows: every Worker
   * instance reads the new placement within its cache lifetime, until then reads still find the old rows.
   */
  drainMs?: number;
  log?: (line: string) => void;
}

export interface MoveReport {
  tenantId: string;
  from: ShardName;
  to: ShardName;
  tables: { table: string; rows: number; sha256: string }[];
  deletedFromSource: number;
  durationMs: number;
}

export class MoveRefused extends Error {}

/**
 * Moves a tenant's rows to another shard. From the start its writes are refused (503
 * tenant_moving: the Worker reads MOVING from the directory, and the old shard's fence aborts any
 * write that still reaches it) while reads keep being served from the old shard. The rows are copied
 * in chunks, counted and checksummed on both sides, the directory is switched, and only then are the
 * old rows deleted. A failure before the switch leaves the tenant on its old shard, whole and
 * writable; running the move again starts it over.
 */
export async function moveTenant(env: DatabaseBindings, tenantId: string, to: ShardName, options: MoveOptions = {}): Promise<MoveReport> {
  const startedAt = Date.now();
  const log = options.log ?? (() => {});
  const control = primaryDb(env, "CONTROL");
  const [entry] = await control.select().from(tenantDirectory).where(eq(tenantDirectory.tenantId, tenantId)).limit(1);
  if (!entry) throw new MoveRefused(`No tenant ${tenantId}.`);
  const from = entry.shard as ShardName;
  if (!shardNames(env).includes(to)) throw new MoveRefused(`${to} is not a shard (bound: ${shardNames(env).join(", ")}).`);
  if (from === to) throw new MoveRefused(`Tenant ${tenantId} is already on ${to}.`);
  if (entry.state === "MOVING" && entry.movingTo !== to) {
    throw new MoveRefused(`Tenant ${tenantId} is being moved to ${entry.movingTo}; run that move again (or to that shard) to finish it.`);
  }
  const source = d1(env, from);
  const target = d1(env, to);
  const plans = await Promise.all(MOVED_TABLES.map((moved) => planOf(source, moved)));

  // 1. Writes stop: the directory says MOVING (Worker instances refuse writes once they read it) and
  //    the source shard's fence aborts every write that still reaches it.
  await control.update(tenantDirectory).set({ state: "MOVING", movingTo: to }).where(eq(tenantDirectory.tenantId, tenantId));
  await primaryDb(env, from)
    .insert(tenantFences)
    .values({ tenantId, state: "MOVING", since: nowIso() })
    .onConflictDoUpdate({
      target: tenantFences.tenantId,
      set: { state: "MOVING" },
    });
  forgetPlacement(tenantId);
  log(`${tenantId}: writes fenced on ${from}; copying to ${to}`);

  const tables: MoveReport["tables"] = [];
  try {
    // 2. The target starts clean: an earlier move of this tenant away from it (or a failed attempt) may have left a fence or rows.
    await primaryDb(env, to).delete(tenantFences).where(eq(tenantFences.tenantId, tenantId));
    await deleteTenantRows(target, plans, tenantId);
    // 3. Copy, then 4. verify: the same count and checksum on both sides, table by table.
    for (const plan of plans) await copyTable(source, target, plan, tenantId, options.afterChunk ?? (() => {}));
    for (const plan of plans) {
      const [expected, actual] = await Promise.all([digestTable(source, plan, tenantId), digestTable(target, plan, tenantId)]);
      if (expected.rows !== actual.rows || expected.sha256 !== actual.sha256) {
        throw new Error(
          `${plan.name}: ${expected.rows} rows (${expected.sha256.slice(0, 12)}) on ${from}, ${actual.rows} (${actual.sha256.slice(0, 12)}) on ${to}`,
        );
      }
      tables.push({ table: plan.name, ...expected });
      log(`${tenantId}: ${plan.name} ${expected.rows} rows verified`);
    }
    // 5. Switch: only a directory entry still MOVING from this shard is switched.
    const switched = await control
      .update(tenantDirectory)
      .set({ shard: to, state: "ACTIVE", movingTo: null, movedAt: nowIso() })
      .where(and(eq(tenantDirectory.tenantId, tenantId), eq(tenantDirectory.shard, from), eq(tenantDirectory.state, "MOVING")));
    if (!switched.meta.changes) throw new Error("the directory entry changed during the move");
  } catch (error) {
    log(`${tenantId}: move failed (${error instanceof Error ? error.message : String(error)}); staying on ${from}`);
    await abandonMove(env, tenantId, from, to, plans);
    throw error;
  }
  forgetPlacement(tenantId);
  log(`${tenantId}: directory switched to ${to}`);

  // 6. The old rows stay readable until every instance has read the new placement, then go. The
  //    fence stays (LEFT): a write routed by a stale placement still answers tenant_moving.
  await primaryDb(env, from).update(tenantFences).set({ state: "LEFT" }).where(eq(tenantFences.tenantId, tenantId));
  const drainMs = options.drainMs ?? PLACEMENT_CACHE_TTL_MS + 1_000;
  if (drainMs > 0) {
    log(`${tenantId}: waiting ${drainMs} ms for every instance to read the new placement`);
    await new Promise((resolve) => setTimeout(resolve, drainMs));
  }
  const deletedFromSource = await deleteTenantRows(source, plans, tenantId);
  log(`${tenantId}: ${deletedFromSource} rows deleted from ${from}`);
  return { tenantId, from, to, tables, deletedFromSource, durationMs: Date.now() - startedAt };
}

/** Undoes a move that did not switch: the copy goes, the tenant stays where it was and writes again. */
async function abandonMove(env: DatabaseBindings, tenantId: string, from: ShardName, to: ShardName, plans: TablePlan[]): Promise<void> {
  await deleteTenantRows(d1(env, to), plans, tenantId);
  await primaryDb(env, from).delete(tenantFences).where(eq(tenantFences.tenantId, tenantId));
  await primaryDb(env, "CONTROL")
    .update(tenantDirectory)
    .set({ state: "ACTIVE", movingTo: null })
    .where(and(eq(tenantDirectory.tenantId, tenantId), eq(tenantDirectory.shard, from)));
  forgetPlacement(tenantId);
}

/** How many rows of each table a shard holds for a tenant (isolation checks, move reports). */
export async function countTenantRows(env: DatabaseBindings, shard: ShardName, tenantId: string): Promise<Record<string, number>> {
  const database = d1(env, shard);
  const counts: Record<string, number> = {};
  for (const moved of MOVED_TABLES) {
    const plan = await planOf(database, moved);
    let rows = 0;
    for (const scope of await scopesOf(database, plan, tenantId)) {
      const row = await database
        .prepare(`select count(*) as n from ${quote(plan.name)} where ${plan.scopeFilter}`)
        .bind(scope)
        .first<{ n: number }>();
      rows += row?.n ?? 0;
    }
    counts[plan.name] = rows;
  }
  return counts;
}
