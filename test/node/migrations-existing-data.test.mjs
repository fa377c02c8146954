// Existing data and the campaign-rules migrations (tenant 0012–0015): a shard migrated up to the
// schema before them, holding rows written then, is migrated on; every row keeps its values and the
// new columns read as what the rows meant before: sold one by one (quantityIncrement 1), minimums that
// block (enforcement BLOCK), orders without warnings, nothing scheduled. SQLite is D1's engine.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const { DatabaseSync } = await import("node:sqlite");
const migrationsDir = join(repoRoot, "migrations", "tenant");
const migrations = readdirSync(migrationsDir).filter((name) => name.endsWith(".sql")).sort();
const FIRST_OF_THE_FEATURE = "0012_";

/** A row for `table` with every column that needs a value (not null, no default) given one of its type. */
function insertRow(db, table, values) {
  const columns = db.prepare(`select name, type, "notnull" as required, dflt_value as fallback, pk from pragma_table_xinfo(?) where hidden = 0`).all(table);
  const row = { ...values };
  for (const column of columns) {
    if (column.name in row || !column.required || column.fallback !== null) continue;
    row[column.name] = /INT|REAL|NUM/i.test(column.type) ? 1 : `${column.name}-value`;
  }
  const names = Object.keys(row);
  db.prepare(`insert into ${table} (${names.map((name) => `"${name}"`).join(", ")}) values (${names.map(() => "?").join(", ")})`).run(...Object.values(row));
  return row;
}

describe("tenant migrations 0012–0015 on existing data", () => {
  it("keep every existing row and give the new columns their before-the-feature meaning", () => {
    const db = new DatabaseSync(":memory:");
    const before = migrations.filter((name) => name < FIRST_OF_THE_FEATURE);
    const after = migrations.filter((name) => name >= FIRST_OF_THE_FEATURE);
    assert.ok(after.length >= 3, `expected the feature's migrations, found ${after.join(", ")}`);
    for (const name of before) db.exec(readFileSync(join(migrationsDir, name), "utf8"));

    insertRow(db, "tenants", { id: "t1" });
    insertRow(db, "operations", { id: "op1", tenant_id: "t1", code: "OLD", type: "PUBLIC", status: "ACTIVE" });
    insertRow(db, "operation_lines", { operation_id: "op1", variant_external_id: "SKU-1", min_quantity: 2, max_quantity: 14 });
    insertRow(db, "quota_rules", { id: "r1", tenant_id: "t1", minimum: 500 });
    insertRow(db, "orders", { id: "o1", tenant_id: "t1", operation_id: "op1" });
    const rowsBefore = Object.fromEntries(["tenants", "operations", "operation_lines", "quota_rules", "orders"].map((table) => [table, db.prepare(`select * from ${table}`).all()]));

    for (const name of after) db.exec(readFileSync(join(migrationsDir, name), "utf8"));

    for (const [table, rows] of Object.entries(rowsBefore)) {
      const now = db.prepare(`select * from ${table}`).all();
      assert.equal(now.length, rows.length, table);
      // Every value the row had is unchanged.
      rows.forEach((row, i) => assert.deepEqual(Object.fromEntries(Object.keys(row).map((key) => [key, now[i][key]])), { ...row }, table));
    }
    assert.equal(db.prepare("select quantity_increment from operation_lines").get().quantity_increment, 1);
    assert.equal(db.prepare("select enforcement from quota_rules").get().enforcement, "BLOCK");
    assert.equal(db.prepare("select quota_default_enforcement from tenants").get().quota_default_enforcement, "BLOCK");
    assert.equal(db.prepare("select warnings from orders").get().warnings, "[]");
    assert.deepEqual({ ...db.prepare("select activate_at, deactivate_at from operations").get() }, { activate_at: null, deactivate_at: null });
  });
});
