import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callRoute, expectStatus, newTenant, uniqueId } from "../helpers/client";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

describe("migration 0006 (per-locale folded names)", () => {
  it("backfills name_folded for Operations written before it, so the locale filter finds them", async () => {
    const op = await newTenant();
    const id = `op_${uniqueId("legacy").replace(/[^A-Za-z0-9]/g, "")}`;
    const now = new Date().toISOString();
    const db = await tenantDb(op.tenantId);
    await db
      .prepare(
        `insert into operations (id, tenant_id, code, name, name_search, name_sort, type, status, start_date, end_date, created_at, updated_at)
       values (?, ?, 'LEGACY', '{"en":"Legacy Sale","FR":"Soldes ANCIENNES"}', 'legacy sale', 'legacy sale', 'PUBLIC', 'DRAFT',
               '2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z', ?, ?)`,
      )
      .bind(id, op.tenantId, now, now)
      .run();
    const migration = env.TEST_TENANT_MIGRATIONS.find((m) => m.name.startsWith("0006_"));
    expect(migration).toBeTruthy();
    const backfill = migration!.queries.find((q) => /^\s*UPDATE operations SET name_folded/i.test(q));
    expect(backfill).toBeTruthy();
    // The migration's own statement, on this Operation's row only: the runtime is shared with other files,
    // whose tenants may be mid-move (their fences refuse any write to their rows).
    await db
      .prepare(`${backfill!.trim().replace(/;$/, "")} WHERE id = ?`)
      .bind(id)
      .run();

    const row = await db.prepare("select name_folded from operations where id = ?").bind(id).first<{ name_folded: string }>();
    expect(JSON.parse(row!.name_folded)).toEqual({ en: "legacy sale", fr: "soldes anciennes" });
    const found = expectStatus(await callRoute(op, routes.listOperations, { query: { name: "anciennes", locale: "fr" } }), 200);
    expect(found.items.map((o) => o.id)).toEqual([id]);
  });
});
