import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/platform/core/principal";
import { listOperations } from "../../src/operations/queries";
import { listOperationsQuery } from "../../src/operations/schemas";
import { createOperation, newTenant, uniqueId } from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal, type PlanRow } from "../helpers/recording-db";

const SECRET = "plan-test-secret";

// Tables a list of Operations reads; a plain "SCAN <table>" (no index) of any of them is a full scan.
const LIST_TABLES = ["operations", "operation_owners", "operation_accounts", "account_users"];

function fullScans(plan: PlanRow[]): string[] {
  return plan.map((row) => row.detail).filter((detail) => LIST_TABLES.some((table) => new RegExp(`^SCAN ${table}( AS \\w+)?$`).test(detail.trim())));
}

async function planOf(principal: Principal, rawQuery: Record<string, string>) {
  const { db, statements } = recordingDb(principal.shard);
  const query = listOperationsQuery.parse(rawQuery);
  const first = await listOperations({ db, archive: env.HISTORY_ARCHIVE, secret: SECRET, principal }, query);
  // Run the second page too: the keyset condition must keep using the index.
  if (first.nextToken) await listOperations({ db, archive: env.HISTORY_ARCHIVE, secret: SECRET, principal }, { ...query, nextToken: first.nextToken });
  const selects = statements.filter((s) => /^\s*select/i.test(s.sql) && /"operations"/.test(s.sql));
  expect(selects.length).toBeGreaterThan(0);
  return Promise.all(selects.map(async (s) => ({ sql: s.sql, plan: await queryPlan(s) })));
}

const SORTS = [
  "name",
  "-name",
  "code",
  "-code",
  "startDate",
  "-startDate",
  "endDate",
  "-endDate",
  "createdAt",
  "-createdAt",
  "status",
  "-status",
  "status,-startDate",
  "-endDate,name",
];

const FILTERS: Record<string, string>[] = [
  {},
  { status: "DRAFT,ACTIVE" },
  { status: "ACTIVE" },
  { ids: "op_a,op_b" },
  { ids: "C1,C2", idType: "code" },
  { ids: "X1", idType: "externalId" },
  { operationId: "op_a" },
  { name: "spring" },
  { name: "spring", locale: "fr" },
  { type: "PUBLIC" },
  { startDateFrom: "2027-01-01T00:00:00Z", startDateTo: "2027-12-31T00:00:00Z" },
  { endDateFrom: "2027-01-01T00:00:00Z", endDateTo: "2027-12-31T00:00:00Z" },
  { ownerIds: "u1,u2" },
  { status: "DRAFT", type: "PRIVATE", ownerIds: "u1", name: "x", startDateFrom: "2027-01-01T00:00:00Z" },
];

describe("EXPLAIN QUERY PLAN of the Operation list", () => {
  it("has a detector that does see a full scan", async () => {
    const plan = await queryPlan({ sql: "select id from operations where name_search like ?", params: ["%x%"] });
    expect(fullScans(plan)).toEqual(["SCAN operations"]);
    const indexed = await queryPlan({ sql: "select id from operations where tenant_id = ? order by created_at", params: ["t"] });
    expect(fullScans(indexed)).toEqual([]);
  });

  it("never scans a table without an index, for every filter, sort and role", async () => {
    const op = await newTenant();
    for (let i = 0; i < 4; i++) await createOperation(op, { type: i % 2 ? "PUBLIC" : "PRIVATE", ownerIds: ["u1"] });
    const operator = await testPrincipal(op.tenantId);
    const account = await testPrincipal(op.tenantId, "ACCOUNT", uniqueId("u"));
    const failures: string[] = [];
    for (const principal of [operator, account]) {
      const extraFilters: Record<string, string>[] = [{}, { status: "ACTIVE" }, { name: "a", locale: "en" }];
      const combinations: [Record<string, string>, string | undefined][] = [
        ...FILTERS.flatMap((filter) => [undefined, "name", "-startDate,code"].map((sort) => [filter, sort] as [Record<string, string>, string | undefined])),
        ...SORTS.flatMap((sort) => extraFilters.map((filter) => [filter, sort] as [Record<string, string>, string | undefined])),
      ];
      for (const [filter, sort] of combinations) {
        const query: Record<string, string> = { ...filter, limit: "2", ...(sort && { sort }) };
        for (const { sql, plan } of await planOf(principal, query)) {
          const scans = fullScans(plan);
          if (scans.length) {
            failures.push(`${principal.role} ${JSON.stringify(query)}: ${scans.join("; ")}\n  ${sql}\n  ${plan.map((p) => p.detail).join(" | ")}`);
          }
        }
      }
    }
    expect(failures, failures.slice(0, 5).join("\n")).toEqual([]);
  });

  it("serves the default order and each indexed sort from an index, without a temporary sort", async () => {
    const op = await newTenant();
    const operator = await testPrincipal(op.tenantId);
    for (const [query, index] of [
      [{}, /USING INDEX operations_created\b/],
      [{ sort: "createdAt" }, /USING INDEX operations_created\b/],
      [{ sort: "name" }, /USING INDEX operations_name_sort\b/],
      [{ sort: "-startDate" }, /USING INDEX operations_start\b/],
      [{ sort: "endDate" }, /USING INDEX operations_end\b/],
      [{ sort: "status" }, /USING INDEX operations_status_sort\b/],
      [{ status: "ACTIVE" }, /USING INDEX operations_(status_)?created\b/],
      [{ type: "PUBLIC" }, /USING INDEX operations_type\b/],
    ] as [Record<string, string>, RegExp][]) {
      const [{ plan }] = await planOf(operator, { ...query, limit: "10" });
      const details = plan.map((p) => p.detail).join(" | ");
      expect(details, JSON.stringify(query)).toMatch(index);
      expect(details, JSON.stringify(query)).not.toMatch(/TEMP B-TREE/);
    }
  });
});
