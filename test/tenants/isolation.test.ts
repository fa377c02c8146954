import { env } from "cloudflare:test";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { ShardName } from "../../src/platform/core/shards";
import { shardNames } from "../../src/platform/core/shards";
import { countTenantRows, MOVED_TABLES } from "../../src/tenants/move";
import { newTenant, type Caller } from "../helpers/client";
import { everyRoute, runJourney, type Journey } from "./journey";

/*
 * Isolation by construction: each tenant's rows live in its shard and nowhere else. Tenants are
 * seeded on both shards through every route of the API; then every table of every shard is read
 * whole, and each row of a tenant that was not there before must be one the directory places on that shard.
 */
const journeys = new Map<ShardName, Journey[]>();

/** The tenants whose rows each table of the shard holds (by table name). */
async function tenantsByTable(shard: ShardName): Promise<Map<string, string[]>> {
  const byTable = new Map<string, string[]>();
  for (const { table, scope } of MOVED_TABLES) {
    const { name } = getTableConfig(table);
    // A change set's records carry no tenant: theirs is their set's.
    const tenants =
      scope === "change-set"
        ? `select distinct s.tenant_id as tenantId from ${name} join change_sets s on s.id = ${name}.set_id`
        : `select distinct ${name === "tenants" ? "id" : "tenant_id"} as tenantId from ${name}`;
    const { results } = await env[shard].prepare(tenants).all<{ tenantId: string }>();
    byTable.set(
      name,
      results.map((row) => row.tenantId),
    );
  }
  return byTable;
}

/**
 * What the shards held before this file seeded its tenants: other files' tenants in this runtime, among
 * them the old copies switched moves keep (placed elsewhere, on purpose). Every row of a tenant new since is checked.
 */
const heldBefore = new Map<string, Set<string>>();

beforeAll(async () => {
  expect(shardNames(env).length, "the tests need two shards bound").toBeGreaterThanOrEqual(2);
  for (const shard of shardNames(env)) {
    for (const [table, tenantIds] of await tenantsByTable(shard)) heldBefore.set(`${shard}.${table}`, new Set(tenantIds));
  }
  for (const shard of shardNames(env)) {
    const operators: Caller[] = [await newTenant({ shard }), await newTenant({ shard })];
    journeys.set(shard, await Promise.all(operators.map((operator) => runJourney(operator))));
  }
});

describe("tenants on either shard", () => {
  for (const shard of ["SHARD_1", "SHARD_2"] as const) {
    it(`${shard}: every route of the API answers a tenant placed there`, () => {
      for (const journey of journeys.get(shard)!) expect([...journey.routesCalled].sort()).toEqual(everyRoute());
    });
  }

  it("no shard holds a row of a tenant the directory places on another shard", async () => {
    const { results: directory } = await env.CONTROL.prepare("select tenant_id as tenantId, shard from tenant_directory").all<{
      tenantId: string;
      shard: string;
    }>();
    const placedOn = new Map(directory.map((entry) => [entry.tenantId, entry.shard]));
    const misplaced: string[] = [];
    for (const shard of shardNames(env)) {
      for (const [name, tenantIds] of await tenantsByTable(shard)) {
        for (const tenantId of tenantIds.filter((id) => !heldBefore.get(`${shard}.${name}`)?.has(id))) {
          if (placedOn.get(tenantId) !== shard) misplaced.push(`${shard}.${name}: ${tenantId} (placed on ${placedOn.get(tenantId) ?? "nothing"})`);
        }
      }
    }
    expect(misplaced).toEqual([]);
  });

  it("each seeded tenant has rows in every table on its shard and none on the other", async () => {
    for (const [shard, seeded] of journeys) {
      const other = shardNames(env).find((name) => name !== shard)!;
      for (const { operator } of seeded) {
        const here = await countTenantRows(env, shard, operator.tenantId);
        // idempotency_keys only fills with Idempotency-Key requests, which the journey does not send.
        const empty = Object.entries(here).filter(([table, rows]) => rows === 0 && table !== "idempotency_keys");
        expect(empty, `${operator.tenantId} on ${shard}`).toEqual([]);
        expect(Object.values(await countTenantRows(env, other, operator.tenantId)).every((rows) => rows === 0)).toBe(true);
      }
    }
  });

  it("the control database holds keys, the directory and which keys have live connections where, and they name placed tenants", async () => {
    const { results: tables } = await env.CONTROL.prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name != 'd1_migrations' order by name",
    ).all<{ name: string }>();
    expect(tables.map((table) => table.name)).toEqual(["api_keys", "live_keys", "tenant_directory"]);
    for (const table of ["api_keys", "live_keys"]) {
      const orphan = await env.CONTROL.prepare(`select count(*) as n from ${table} where tenant_id not in (select tenant_id from tenant_directory)`).first<{
        n: number;
      }>();
      expect(orphan!.n, table).toBe(0);
    }
  });

  it("every shard table that carries a tenant is one a move copies", async () => {
    const moved = new Set(MOVED_TABLES.map(({ table }) => getTableConfig(table).name));
    const { results } = await env.SHARD_1.prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' order by name",
    ).all<{ name: string }>();
    const withTenant = [];
    for (const { name } of results) {
      const columns = await env.SHARD_1.prepare("select name from pragma_table_info(?)").bind(name).all<{ name: string }>();
      if (columns.results.some((column) => column.name === "tenant_id")) withTenant.push({ name });
    }
    // A move's own bookkeeping (its fences, what it records of a tenant's writes) is not tenant data.
    const tenantTables = withTenant.map((row) => row.name).filter((name) => !["tenant_fences", "move_captures", "move_changes"].includes(name));
    expect(tenantTables.filter((name) => !moved.has(name))).toEqual([]);
    expect(moved.has("tenants")).toBe(true);
  });
});
