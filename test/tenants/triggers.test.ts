import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { shardNames } from "../../src/platform/core/shards";
import { generatedTriggers, normalizedTriggerSql } from "../../src/tenants/triggers";

/*
 * Every tenant table carries its fence and capture triggers exactly as the move's registry generates
 * them (src/tenants/triggers.ts): a table added to MOVED_TABLES without its migration, or a trigger
 * edited by hand, fails here. `npm run migrations:triggers` writes the migration that mends it.
 */
describe("the fence and capture triggers of every tenant table", () => {
  it.each(shardNames(env))("are on %s exactly as generated, and no other fence or capture trigger is", async (shard) => {
    const { results } = await env[shard].prepare("select name, sql from sqlite_master where type = 'trigger'").all<{ name: string; sql: string }>();
    const stored = new Map(results.map((trigger) => [trigger.name, normalizedTriggerSql(trigger.sql)]));
    const wanted = generatedTriggers();
    const hint = "run `npm run migrations:triggers` and commit the migration it writes";
    for (const trigger of wanted) expect(stored.get(trigger.name), `${shard}: ${trigger.name} (${hint})`).toBe(normalizedTriggerSql(trigger.sql));
    const generated = new Set(wanted.map((trigger) => trigger.name));
    const strays = [...stored.keys()].filter((name) => /_(fence|capture)_(insert|update|delete)$/.test(name) && !generated.has(name));
    expect(strays, hint).toEqual([]);
    // Six per table: a fence and a capture for each of insert, update and delete.
    expect(new Set(wanted.map((trigger) => trigger.table)).size * 6).toBe(wanted.length);
  });

  it("a fenced tenant's change records are refused even when written without their set", async () => {
    const [shard] = shardNames(env);
    const db = env[shard];
    const tenantId = `t-fence-${crypto.randomUUID()}`;
    const setId = `chg_fence_${crypto.randomUUID()}`;
    await db.prepare("insert into change_sets (id, tenant_id, actor, at) values (?, ?, 'test', '2026-01-01T00:00:00Z')").bind(setId, tenantId).run();
    await db.prepare("insert into tenant_fences (tenant_id, state, since) values (?, 'MOVING', '2026-01-01T00:00:00Z')").bind(tenantId).run();
    try {
      await expect(
        db
          .prepare("insert into change_records (set_id, resource_type, action, resource_id, ordinal, changes) values (?, 'l', 'u', 'A', 0, '{}')")
          .bind(setId)
          .run(),
      ).rejects.toThrow(/tenant_moving/);
    } finally {
      await db.prepare("delete from tenant_fences where tenant_id = ?").bind(tenantId).run();
      await db.prepare("delete from change_sets where id = ?").bind(setId).run();
    }
  });
});
