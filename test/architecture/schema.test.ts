/// <reference types="vite/client" />
import { env } from "cloudflare:test";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import type { DatabaseName } from "../../src/platform/data/database";
import { CONTROL_TABLES } from "../../src/platform/data/tables";
import { shardNames } from "../../src/platform/core/shards";

/*
 * The migrations are the schema's one source of truth; the tables.ts files of src/ (the platform's,
 * and each resource's beside it) only name their columns for queries. This holds the two together
 * against the databases the migrations built:
 * the control database (CONTROL_TABLES) and the tenant shards (every other table), each with the
 * same tables, and in each table the same columns with the same NOT NULLs. Every shard is built alike.
 */
/** Every tables.ts of src/, each module's exports. */
const tableModules = import.meta.glob("../../src/**/tables.ts", { eager: true }) as Record<string, Record<string, unknown>>;
const declared = Object.values(tableModules)
  .flatMap((module) => Object.values(module))
  .filter((value) => typeof value === "object" && value !== null && Symbol.for("drizzle:IsDrizzleTable") in value)
  .map((table) => getTableConfig(table as SQLiteTable));

const controlNames = new Set(CONTROL_TABLES.map((table) => getTableConfig(table).name));
const shards = shardNames(env);

/** Where a declared table lives: the control database, or (alike on every shard) the first shard. */
function databaseOf(table: string): { name: DatabaseName; db: D1Database } {
  const name: DatabaseName = controlNames.has(table) ? "CONTROL" : shards[0];
  return { name, db: env[name] };
}

interface ColumnInfo {
  name: string;
  notnull: number;
  hidden: number;
}

async function migratedColumns(db: D1Database, table: string): Promise<{ name: string; notNull: boolean }[]> {
  const { results } = await db.prepare(`select name, "notnull", hidden from pragma_table_xinfo(?)`).bind(table).all<ColumnInfo>();
  // hidden 2 and 3 are generated columns; 1 would be a virtual table's hidden column.
  return results.filter((column) => column.hidden !== 1).map((column) => ({ name: column.name, notNull: column.notnull === 1 }));
}

/** The tables the migrations built in a database (not SQLite's, D1's or the migrations log). */
async function migratedTables(db: D1Database): Promise<string[]> {
  const { results } = await db
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name != 'd1_migrations'")
    .all<{ name: string }>();
  return results.map((row) => row.name).sort();
}

/** Everything the migrations built in a database (tables, indexes, triggers, views) with its SQL. */
async function migratedSchema(db: D1Database): Promise<{ type: string; name: string; sql: string | null }[]> {
  const { results } = await db
    .prepare("select type, name, sql from sqlite_master where name not like 'sqlite_%' and name not like '_cf_%' order by type, name")
    .all<{ type: string; name: string; sql: string | null }>();
  return results;
}

describe("the tables the code names and the tables the migrations build", () => {
  it("has a control database and at least one shard", () => {
    expect([...controlNames].sort()).toEqual(["api_keys", "live_keys", "tenant_directory"]);
    expect(shards.length).toBeGreaterThan(0);
  });

  it("CONTROL: are the same tables (the control tables)", async () => {
    const named = declared.map((table) => table.name).filter((name) => controlNames.has(name));
    expect(named.sort()).toEqual(await migratedTables(env.CONTROL));
  });

  for (const shard of shardNames(env)) {
    it(`${shard}: are the same tables (every table but the control tables)`, async () => {
      const named = declared.map((table) => table.name).filter((name) => !controlNames.has(name));
      expect(named.sort()).toEqual(await migratedTables(env[shard]));
    });
  }

  it("every shard is built alike", async () => {
    const [first, ...others] = shards;
    const expected = await migratedSchema(env[first]);
    expect(expected.length).toBeGreaterThan(0);
    for (const shard of others) {
      expect(await migratedTables(env[shard]), shard).toEqual(await migratedTables(env[first]));
      expect(await migratedSchema(env[shard]), shard).toEqual(expected);
    }
  });

  for (const table of declared) {
    const { name: database, db } = databaseOf(table.name);
    it(`${database} ${table.name}: same columns, same NOT NULLs`, async () => {
      const migrated = await migratedColumns(db, table.name);
      expect(migrated.length, `${table.name} is not in ${database}`).toBeGreaterThan(0);
      const named = table.columns.map((column) => ({ name: column.name, notNull: column.notNull || column.primary }));
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      // A primary-key column is NOT NULL in the code's eyes; SQLite reports notnull 0 for a rowid
      // table's TEXT key, so compare keys on name only.
      const primary = new Set(table.columns.filter((column) => column.primary).map((column) => column.name));
      const normalize = (columns: { name: string; notNull: boolean }[]) =>
        columns.map((column) => ({ name: column.name, notNull: primary.has(column.name) ? true : column.notNull })).sort(byName);
      expect(normalize(named)).toEqual(normalize(migrated));
    });
  }
});
