// Existing data and the campaign-rules migrations (tenant 0012–0015): a shard migrated up to the
// schema before them, holding rows written then, is migrated on; every row keeps its values and the
// new columns read as what the rows meant before: sold one by one (quantityIncrement 1), minimums that
// block (enforcement BLOCK), orders without warnings, nothing scheduled. And the control database's
// keys (control 0002): prefixes two keys of a tenant shared are dropped, every other value kept.
// SQLite is D1's engine.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const { DatabaseSync } = await import("node:sqlite");
const migrationsIn = (dir) => readdirSync(dir).filter((name) => name.endsWith(".sql")).sort();
const migrationsDir = join(repoRoot, "migrations", "tenant");
const migrations = migrationsIn(migrationsDir);
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

describe("control migration 0002 on existing keys", () => {
  it("drops the prefixes two keys of a tenant share, keeps every other value, and refuses a shared prefix from then on", () => {
    const dir = join(repoRoot, "migrations", "control");
    const [before, after] = migrationsIn(dir).reduce(([older, newer], name) => (name < "0002_" ? [[...older, name], newer] : [older, [...newer, name]]), [[], []]);
    assert.ok(after[0]?.startsWith("0002_"), `expected 0002, found ${after.join(", ")}`);
    const db = new DatabaseSync(":memory:");
    for (const name of before) db.exec(readFileSync(join(dir, name), "utf8"));

    for (const tenant of ["t1", "t2"]) insertRow(db, "tenant_directory", { tenant_id: tenant, shard: "SHARD_1" });
    const key = (id, tenant, prefix) => insertRow(db, "api_keys", { id, tenant_id: tenant, role: "OPERATOR", key_hash: `hash-${id}`, prefix, name: `name of ${id}`, created_at: "2026-03-01T10:00:00.000Z" });
    // sk2 keys issued within hours of each other: the same first 8 characters.
    key("k1", "t1", "sk2_AaIU");
    key("k2", "t1", "sk2_AaIU");
    key("k3", "t1", "sk2_AaIU");
    key("k4", "t1", "sk2_AZwY"); // alone with its prefix in t1
    key("k5", "t2", "sk2_AaIU"); // the same prefix, in another tenant
    key("k6", "t1", null); // issued before prefixes were recorded
    key("k7", "t1", "sk_Q2hhb");
    const rowsBefore = db.prepare("select * from api_keys order by id").all();

    for (const name of after) db.exec(readFileSync(join(dir, name), "utf8"));

    const rowsAfter = db.prepare("select * from api_keys order by id").all();
    const shared = new Set(["k1", "k2", "k3"]);
    assert.deepEqual(
      rowsAfter.map((row) => ({ ...row })),
      rowsBefore.map((row) => ({ ...row, prefix: shared.has(row.id) ? null : row.prefix })),
    );
    assert.throws(() => key("k8", "t1", "sk2_AZwY"), /UNIQUE constraint failed: api_keys.tenant_id, api_keys.prefix/);
    key("k9", "t2", "sk2_AZwY");
    key("k10", "t1", null);
  });
});
