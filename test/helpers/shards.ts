// Which shard database holds a test's rows: tests that read or write D1 directly go through these.
import { env } from "cloudflare:test";
import { shardNames, type ShardName } from "../../src/platform/core/shards";

/** The shard the tenant directory places the tenant on. */
export async function shardOf(tenantId: string): Promise<ShardName> {
  const row = await env.CONTROL.prepare("select shard from tenant_directory where tenant_id = ?").bind(tenantId).first<{ shard: ShardName }>();
  if (!row) throw new Error(`tenant ${tenantId} has no directory entry`);
  return row.shard;
}

/** The tenant's shard database. */
export async function tenantDb(tenantId: string): Promise<D1Database> {
  return env[await shardOf(tenantId)];
}

/** The shard database holding this Operation (tests that only know its id). */
export async function operationDb(operationId: string): Promise<D1Database> {
  for (const shard of shardNames(env)) {
    if (await env[shard].prepare("select 1 from operations where id = ?").bind(operationId).first()) return env[shard];
  }
  throw new Error(`no shard holds Operation ${operationId}`);
}

/** Where test tenants go: TEST_SHARD when set, else the placement every tenant gets (the shard with the fewest tenants). */
export function testShard(): ShardName | undefined {
  return env.TEST_SHARD ? (env.TEST_SHARD as ShardName) : undefined;
}
