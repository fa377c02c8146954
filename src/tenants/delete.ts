import { eq } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { deleteTenantObjects } from "../history/archive/job";
import type { Env } from "../platform/core/env";
import { shardNames, type ShardName } from "../platform/core/shards";
import { d1, primaryDb } from "../platform/data/database";
import { forgetPlacement } from "../platform/data/tenancy";
import { forgetCachedKey } from "../platform/http/auth";
import { operations } from "../operations/tables";
import { apiKeys, changeSets, liveKeys, tenantDirectory, tenantFences, tenants } from "../platform/data/tables";
import { MOVED_TABLES } from "./move";

/*
 * Deleting a tenant for good (`npm run tenant:delete`): the only thing that removes its change
 * history before its retention does. In an order that a crash anywhere can resume from by running it
 * again: its keys and directory entry first (it stops answering at once), then its archived
 * history's objects in the bucket, then its rows on its shard, children first and its tenants row
 * last (the row a second run finds it by once the directory has forgotten it).
 */

export class TenantDeleteRefused extends Error {}

export interface DeleteReport {
  tenantId: string;
  /** The shard its rows were on (null: none held any, a run before finished them). */
  shard: ShardName | null;
  keys: number;
  objects: number;
  rows: number;
}

/** Rows deleted per statement. */
const CHUNK_ROWS = 1000;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The condition that finds a moved table's rows of a tenant, with one parameter: the tenant. */
function tenantRows(moved: (typeof MOVED_TABLES)[number]): string {
  if (moved.scope === "operation") return `operation_id in (select id from ${quote(getTableConfig(operations).name)} where tenant_id = ?)`;
  if (moved.scope === "change-set") return `set_id in (select id from ${quote(getTableConfig(changeSets).name)} where tenant_id = ?)`;
  return `${moved.table === tenants ? "id" : "tenant_id"} = ?`;
}

/** Deletes the tenant's rows of one table, a chunk at a time (by its primary key: some tables have no rowid). */
async function deleteRows(database: D1Database, moved: (typeof MOVED_TABLES)[number], tenantId: string): Promise<number> {
  const config = getTableConfig(moved.table);
  const key = (config.primaryKeys[0]?.columns ?? config.columns.filter((column) => column.primary)).map((column) => quote(column.name)).join(", ");
  const table = quote(config.name);
  let deleted = 0;
  for (;;) {
    const result = await database
      .prepare(`delete from ${table} where (${key}) in (select ${key} from ${table} where ${tenantRows(moved)} limit ${CHUNK_ROWS})`)
      .bind(tenantId)
      .run();
    if (!result.meta.changes) return deleted;
    deleted += result.meta.changes;
  }
}

/** The shard that holds the tenant: its directory entry's, or (the entry already deleted) the one whose tenants table still has it. */
async function shardHolding(env: Env, tenantId: string, listed: ShardName | undefined): Promise<ShardName | null> {
  if (listed) return listed;
  for (const shard of shardNames(env)) {
    const [row] = await primaryDb(env, shard).select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
    if (row) return shard;
  }
  return null;
}

/** Deletes the tenant: its keys and directory entry, its archived history's objects, its rows on its shard. */
export async function deleteTenant(env: Env, tenantId: string): Promise<DeleteReport> {
  const control = primaryDb(env, "CONTROL");
  const [entry] = await control.select().from(tenantDirectory).where(eq(tenantDirectory.tenantId, tenantId));
  if (entry && entry.state !== "ACTIVE") throw new TenantDeleteRefused(`Tenant ${tenantId} is ${entry.state}: wait for its move to end, then delete it.`);
  const shard = await shardHolding(env, tenantId, entry?.shard as ShardName | undefined);
  if (!entry && !shard) throw new TenantDeleteRefused(`Tenant ${tenantId} not found (in the directory or on any shard).`);

  const keyHashes = await control.select({ hash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.tenantId, tenantId));
  const [keys] = await control.batch([
    control.delete(apiKeys).where(eq(apiKeys.tenantId, tenantId)),
    control.delete(liveKeys).where(eq(liveKeys.tenantId, tenantId)),
    control.delete(tenantDirectory).where(eq(tenantDirectory.tenantId, tenantId)),
  ]);
  // This isolate stops answering for the tenant at once; every other within its caches' lifetime (10 s), as for a revoked key.
  for (const { hash } of keyHashes) forgetCachedKey(hash);
  forgetPlacement(tenantId);
  const objects = await deleteTenantObjects(env.HISTORY_ARCHIVE, tenantId);
  let rows = 0;
  if (shard) {
    const database = d1(env, shard);
    for (const moved of [...MOVED_TABLES].reverse()) rows += await deleteRows(database, moved, tenantId);
  }
  // The fences its past moves left behind, on every shard.
  for (const name of shardNames(env)) await primaryDb(env, name).delete(tenantFences).where(eq(tenantFences.tenantId, tenantId));
  return { tenantId, shard, keys: keys.meta.changes ?? 0, objects, rows };
}
