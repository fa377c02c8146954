import { describe, expect, it } from "vitest";
import { d1RuleSource, readRulesById, readRulesByScope } from "../../src/quotas/queries";
import { newTenant } from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal } from "../helpers/recording-db";

/** Steps of a plan that walk quota_rules without an index key: their cost would grow with the tenant. */
function scansOfRules(plan: { detail: string }[]): string[] {
  return plan
    .map((row) => row.detail)
    .filter((detail) => /^SCAN (quota_rules|r)\b/.test(detail.trim()) || /quota_rules\w* \(tenant_id=\?\)$/.test(detail.trim()));
}

describe("the rule reads of evaluation and bulk writes look rules up by index, never by the tenant's whole range", () => {
  it("reads by scope, by id, by level key, and a small tenant's first rules", async () => {
    const op = await newTenant();
    const principal = await testPrincipal(op.tenantId);
    const { db, statements } = recordingDb(principal.shard);
    await readRulesByScope(db, op.tenantId, [
      ["A1", "S1", null],
      [null, "S1", "st"],
    ]);
    await readRulesById(db, op.tenantId, ["qr_1", "qr_2"]);
    const source = d1RuleSource(db, principal.shard);
    await source.load(op.tenantId, { targets: [{ accountId: "A1", supplierId: "S1", storeId: "st" }], wholeUpTo: null });
    await source.loadGroups(op.tenantId, [{ accountId: "A1", supplierId: "S1", storeId: null }]);
    const reads = statements.filter((s) => /quota_rules/.test(s.sql) && /json_each/.test(s.sql));
    expect(reads.length).toBe(4);
    for (const statement of reads) {
      const plan = await queryPlan(statement);
      expect(scansOfRules(plan), `${statement.sql}\n${JSON.stringify(plan)}`).toEqual([]);
      expect(
        plan.some((row) => /SEARCH (r|quota_rules) USING INDEX (quota_rules_scope|sqlite_autoindex_quota_rules_1) \(/.test(row.detail)),
        JSON.stringify(plan),
      ).toBe(true);
    }
  });
});
