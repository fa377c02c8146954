import { describe, expect, it } from "vitest";
import { factPages } from "../../src/quotas/order-facts";
import { newTenant } from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal } from "../helpers/recording-db";

describe("an impact reads the window's facts by keyset pages on the table's own order", () => {
  it("a range of the primary key from the cursor, in its order: no scan of the tenant, no sort of its facts", async () => {
    const op = await newTenant();
    const principal = await testPrincipal(op.tenantId);
    const { db, statements } = recordingDb(principal.shard);
    for await (const page of factPages(db, op.tenantId, { from: "2026-01-01T00:00:00.000Z", to: "2026-12-31T23:59:59.999Z" }, 100)) expect(page).toEqual([]);
    const [read] = statements.filter((s) => /quota_order_facts/.test(s.sql));
    const plan = (
      await queryPlan({ ...read, params: [op.tenantId, "A1", "S1", "", "ord_1", "2026-01-01T00:00:00.000Z", "2026-12-31T23:59:59.999Z", 100] })
    ).map((row) => row.detail);
    expect(
      plan.some((detail) =>
        /SEARCH quota_order_facts USING PRIMARY KEY \(tenant_id=\? AND \(account_id,supplier_id,store_id,record_id\)>\(\?,\?,\?,\?\)\)/.test(detail),
      ),
      plan.join("\n"),
    ).toBe(true);
    expect(
      plan.filter((detail) => /^SCAN quota_order_facts/.test(detail)),
      plan.join("\n"),
    ).toEqual([]);
    // Nothing is sorted: the page comes in the key's own order, and is folded per key in that order.
    expect(
      plan.filter((detail) => /TEMP B-TREE/.test(detail)),
      plan.join("\n"),
    ).toEqual([]);
  });
});
