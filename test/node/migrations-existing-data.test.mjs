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
const migrationsIn = (dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();
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
    const rowsBefore = Object.fromEntries(
      ["tenants", "operations", "operation_lines", "quota_rules", "orders"].map((table) => [table, db.prepare(`select * from ${table}`).all()]),
    );

    for (const name of after) db.exec(readFileSync(join(migrationsDir, name), "utf8"));

    for (const [table, rows] of Object.entries(rowsBefore)) {
      const now = db.prepare(`select * from ${table}`).all();
      assert.equal(now.length, rows.length, table);
      // Every value the row had is unchanged.
      for (const [i, row] of rows.entries()) assert.deepEqual(Object.fromEntries(Object.keys(row).map((key) => [key, now[i][key]])), { ...row }, table);
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
    const [before, after] = migrationsIn(dir).reduce(
      ([older, newer], name) => (name < "0002_" ? [[...older, name], newer] : [older, [...newer, name]]),
      [[], []],
    );
    assert.ok(after[0]?.startsWith("0002_"), `expected 0002, found ${after.join(", ")}`);
    const db = new DatabaseSync(":memory:");
    for (const name of before) db.exec(readFileSync(join(dir, name), "utf8"));

    for (const tenant of ["t1", "t2"]) insertRow(db, "tenant_directory", { tenant_id: tenant, shard: "SHARD_1" });
    const key = (id, tenant, prefix) =>
      insertRow(db, "api_keys", {
        id,
        tenant_id: tenant,
        role: "OPERATOR",
        key_hash: `hash-${id}`,
        prefix,
        name: `name of ${id}`,
        created_at: "2026-03-01T10:00:00.000Z",
      });
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

describe("tenant migration 0016 (quota order facts) on existing data", () => {
  const FACTS = "0016_";
  const migrateUpTo = (db, below) => {
    for (const name of migrations.filter((name) => name < below)) db.exec(readFileSync(join(migrationsDir, name), "utf8"));
  };
  const migrateFrom = (db, from) => {
    for (const name of migrations.filter((name) => name >= from)) db.exec(readFileSync(join(migrationsDir, name), "utf8"));
  };

  it("turns the orders placed and refused before it into facts: one per supplier, as placing them evaluated them", () => {
    const db = new DatabaseSync(":memory:");
    migrateUpTo(db, FACTS);
    insertRow(db, "tenants", { id: "t1" });
    insertRow(db, "operations", { id: "op1", tenant_id: "t1", code: "OLD", type: "PUBLIC", status: "ACTIVE" });
    const line = (quantity, unitPrice, supplierId) => ({ variantExternalId: "SKU-1", quantity, unitPrice, ...(supplierId !== undefined && { supplierId }) });
    insertRow(db, "orders", {
      id: "ord_1",
      tenant_id: "t1",
      operation_id: "op1",
      account_id: "A1",
      store_id: "st_1",
      created_at: "2026-01-02T03:04:05.678Z",
      lines: JSON.stringify([line(2, 300, "S1"), line(1, 500, null), line(1, 50, "S1"), line(3, 7)]),
    });
    insertRow(db, "orders", {
      id: "ord_2",
      tenant_id: "t1",
      operation_id: "op1",
      account_id: "A2",
      store_id: null,
      created_at: "2026-01-03T00:00:00.000Z",
      lines: JSON.stringify([line(1, 100, "S2")]),
    });
    // Lines that are not JSON (no code writes them) are left out, not a failed migration.
    insertRow(db, "orders", { id: "ord_3", tenant_id: "t1", operation_id: "op1", account_id: "A3", lines: "not json" });
    const blocked = {
      accountId: "A1",
      cartId: null,
      storeId: null,
      orders: [
        { accountId: "A1", supplierId: "S2", storeId: null, amount: 900 },
        { accountId: "A1", supplierId: null, storeId: null, amount: 40 },
      ],
      results: [],
    };
    insertRow(db, "events", { id: "evt_1", tenant_id: "t1", type: "order.blocked", at: "2026-01-04T00:00:00.000Z", data: JSON.stringify(blocked) });
    insertRow(db, "events", {
      id: "evt_2",
      tenant_id: "t1",
      type: "order.created",
      at: "2026-01-05T00:00:00.000Z",
      data: JSON.stringify({ orderId: "ord_2", orders: [{ accountId: "A9", amount: 1 }] }),
    });
    insertRow(db, "events", { id: "evt_3", tenant_id: "t1", type: "order.blocked", at: "2026-01-06T00:00:00.000Z", data: "not json" });

    migrateFrom(db, FACTS);

    const facts = db
      .prepare("select tenant_id, account_id, supplier_id, store_id, record_id, at, amount from quota_order_facts order by record_id, supplier_id")
      .all()
      .map((row) => ({ ...row }));
    assert.deepEqual(
      facts,
      [
        { tenant_id: "t1", account_id: "A1", supplier_id: "S2", store_id: "", record_id: "evt_1", at: "2026-01-04T00:00:00.000Z", amount: 900 },
        { tenant_id: "t1", account_id: "A1", supplier_id: "", store_id: "", record_id: "evt_1", at: "2026-01-04T00:00:00.000Z", amount: 40 },
        { tenant_id: "t1", account_id: "A1", supplier_id: "", store_id: "st_1", record_id: "ord_1", at: "2026-01-02T03:04:05.678Z", amount: 521 },
        { tenant_id: "t1", account_id: "A1", supplier_id: "S1", store_id: "st_1", record_id: "ord_1", at: "2026-01-02T03:04:05.678Z", amount: 650 },
        { tenant_id: "t1", account_id: "A2", supplier_id: "S2", store_id: "", record_id: "ord_2", at: "2026-01-03T00:00:00.000Z", amount: 100 },
      ].sort((a, b) => (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : a.supplier_id < b.supplier_id ? -1 : 1)),
    );
    assert.equal(typeof facts[0].amount, "number");
    // The orders' lines as the totals read them (0027): one row per variant of an order, its lines summed;
    // an order whose lines are not JSON has none.
    assert.deepEqual(
      db
        .prepare("select order_id, variant_external_id, quantity from order_lines order by order_id")
        .all()
        .map((row) => ({ ...row })),
      [
        { order_id: "ord_1", variant_external_id: "SKU-1", quantity: 7 },
        { order_id: "ord_2", variant_external_id: "SKU-1", quantity: 1 },
      ],
    );
    assert.deepEqual({ ...db.prepare("select quota_refusals from operation_totals where operation_id = 'op1'").get() }, { quota_refusals: 0 });
  });

  it("fences the facts of a moving tenant like its other rows", () => {
    const db = new DatabaseSync(":memory:");
    migrateUpTo(db, "9999");
    db.prepare("insert into tenant_fences (tenant_id, state, since) values ('t1', 'MOVING', '2026-01-01T00:00:00Z')").run();
    assert.throws(
      () =>
        db
          .prepare(
            "insert into quota_order_facts (tenant_id, account_id, supplier_id, store_id, record_id, at, amount) values ('t1', 'A1', '', '', 'ord_1', '2026-01-01T00:00:00.000Z', 1)",
          )
          .run(),
      /tenant_moving/,
    );
  });
});
