import { count, eq } from "drizzle-orm";
import { primaryDb, type DatabaseBindings } from "../platform/data/database";
import { tenantDirectory, tenants } from "../platform/data/tables";
import { shardNames, type ShardName } from "../platform/core/shards";
import { toPlacement, type TenantPlacement } from "../platform/data/tenancy";
import { nowIso } from "../platform/core/time";

/** The bound shard with the fewest tenants (ties: the first by name). */
export async function leastLoadedShard(env: DatabaseBindings): Promise<ShardName> {
  const shards = shardNames(env);
  if (!shards.length) throw new Error("no shard is bound: wrangler.toml needs a [[d1_databases]] binding named SHARD_…");
  const rows = await primaryDb(env, "CONTROL").select({ shard: tenantDirectory.shard, tenants: count() }).from(tenantDirectory).groupBy(tenantDirectory.shard);
  const load = new Map(rows.map((row) => [row.shard, row.tenants]));
  return shards.reduce((best, shard) => ((load.get(shard) ?? 0) < (load.get(best) ?? 0) ? shard : best));
}

export interface NewTenant {
  tenantId: string;
  defaultLocale: string;
  /** Where to place it; absent: the shard with the fewest tenants. */
  shard?: ShardName;
}

/**
 * Creates a tenant where it is new: its row in its shard first, then its directory entry (so a
 * directory entry always finds its rows). An existing tenant is left as it is and its placement returned.
 */
export async function createTenant(env: DatabaseBindings, tenant: NewTenant): Promise<TenantPlacement> {
  const control = primaryDb(env, "CONTROL");
  const existing = await control.select().from(tenantDirectory).where(eq(tenantDirectory.tenantId, tenant.tenantId)).limit(1);
  if (existing[0]) return toPlacement(existing[0]);
  if (tenant.shard !== undefined && !shardNames(env).includes(tenant.shard)) {
    throw new Error(`${tenant.shard} is not a shard of this Worker (bound: ${shardNames(env).join(", ")})`);
  }
  const shard = tenant.shard ?? (await leastLoadedShard(env));
  const createdAt = nowIso();
  await primaryDb(env, shard).insert(tenants).values({ id: tenant.tenantId, quotaDefaultMinimum: 0, rulesVersion: 0, createdAt }).onConflictDoNothing();
  await control
    .insert(tenantDirectory)
    .values({ tenantId: tenant.tenantId, shard, defaultLocale: tenant.defaultLocale, state: "ACTIVE", createdAt })
    .onConflictDoNothing();
  const [row] = await control.select().from(tenantDirectory).where(eq(tenantDirectory.tenantId, tenant.tenantId)).limit(1);
  return toPlacement(row);
}
