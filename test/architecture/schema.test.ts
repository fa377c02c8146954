import { env } from "cloudflare:test";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as tables from "../../src/platform/tables";

/*
 * The migrations are the schema's one source of truth; src/platform/tables.ts only names their
 * columns for queries. This holds the two together against the database the migrations built:
 * the same tables, and in each the same columns with the same NOT NULLs.
 */
const declared = (Object.values(tables) as unknown[])
  .filter((value) => typeof value === "object" && value !== null && Symbol.for("drizzle:IsDrizzleTable") in value)
  .map((table) => getTableConfig(table as SQLiteTable));

interface ColumnInfo {
  name: string;
  notnull: number;
  hidden: number;
}

async function migratedColumns(table: string): Promise<{ name: string; notNull: boolean }[]> {
  const { results } = await env.DB.prepare(`select name, "notnull", hidden from pragma_table_xinfo(?)`).bind(table).all<ColumnInfo>();
  // hidden 2 and 3 are generated columns; 1 would be a virtual table's hidden column.
  return results.filter((column) => column.hidden !== 1).map((column) => ({ name: column.name, notNull: column.notnull === 1 }));
}

describe("the tables the code names and the tables the migrations build", () => {
  it("are the same tables", async () => {
    const { results } = await env.DB.prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name != 'd1_migrations'",
    ).all<{ name: string }>();
    expect(declared.map((table) => table.name).sort()).toEqual(results.map((row) => row.name).sort());
  });

  for (const table of declared) {
    it(`${table.name}: same columns, same NOT NULLs`, async () => {
      const migrated = await migratedColumns(table.name);
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
