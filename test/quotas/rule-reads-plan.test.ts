import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { d1RuleSource, readRulesById, readRulesByScope } from "../../src/quotas/queries";
import { callRoute, expectStatus, newTenant } from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal, type RecordedStatement } from "../helpers/recording-db";
import { routes } from "../helpers/routes";

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

/** How many rules a recorded statement returns, run again on its shard (reads pack rules as JSON arrays in a `rules` column). */
async function rulesReadBy(statement: RecordedStatement): Promise<number> {
  const { results } = await env[statement.shard!]
    .prepare(statement.sql)
    .bind(...statement.params)
    .all<{ rules?: string }>();
  return results.reduce((count, row) => count + (typeof row.rules === "string" ? (JSON.parse(row.rules) as unknown[]).length : 0), 0);
}

describe("a rule load finds a tenant too large to cache whole without reading its rules", () => {
  it("reads a large tenant's matching rules only, a small tenant whole, an empty one as empty", async () => {
    const op = await newTenant();
    const rules = Array.from({ length: 30 }, (_, i) => ({ accountId: `A${i}`, supplierId: "S1", minimum: 100 + i }));
    expectStatus(await callRoute(op, routes.upsertRules, { body: rules }), 200);
    const principal = await testPrincipal(op.tenantId);
    const target = { accountId: "A7", supplierId: "S1", storeId: null };

    // Over the size a tenant is cached whole at: no rule read but the order's.
    const large = recordingDb(principal.shard);
    const loaded = await d1RuleSource(large.db, principal.shard).load(op.tenantId, { targets: [target], wholeUpTo: 10 });
    expect(loaded.whole).toBeNull();
    expect(loaded.matching.map((rule) => rule.minimum)).toEqual([107]);
    const read = await Promise.all(large.statements.filter((statement) => /quota_rules/.test(statement.sql)).map(rulesReadBy));
    expect(read.reduce((sum, count) => sum + count, 0)).toBe(1);

    // At or under it: the whole tenant, in the same round trip.
    const small = recordingDb(principal.shard);
    expect((await d1RuleSource(small.db, principal.shard).load(op.tenantId, { targets: [target], wholeUpTo: 30 })).whole).toHaveLength(30);
    const empty = await newTenant({ shard: principal.shard });
    expect((await d1RuleSource(small.db, principal.shard).load(empty.tenantId, { targets: [target], wholeUpTo: 30 })).whole).toEqual([]);
  });
});
