import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { listLines } from "../../src/lines/queries";
import { listLinesQuery } from "../../src/lines/schemas";
import type { Principal } from "../../src/platform/core/principal";
import { D1LimitExceeded, guardD1Limits } from "../../src/platform/data/database";
import { type Caller, callRoute, collectPages, createOperation, expectStatus, newTenant, readOperation } from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal } from "../helpers/recording-db";
import { makeLines, putLines } from "./fixtures";
import { routes } from "../helpers/routes";

describe("D1 per-statement limits", () => {
  it("the guard is on in tests and refuses a statement over 100 parameters or 100 KB of SQL", async () => {
    expect(env.D1_LIMITS_GUARD).toBe("on");
    const guarded = guardD1Limits(env.SHARD_1);
    const select = (n: number) => `select ${Array.from({ length: n }, () => "?").join(", ")}`;
    const values = (n: number) => Array.from({ length: n }, (_, i) => i);

    expect(() => guarded.prepare(select(101)).bind(...values(101))).toThrow(D1LimitExceeded);
    expect(() => guarded.prepare(`select 1 /* ${"x".repeat(100_001)} */`)).toThrow(D1LimitExceeded);
    // At the limit the statement runs.
    const row = await guarded
      .prepare(select(100))
      .bind(...values(100))
      .raw();
    expect(row[0]).toHaveLength(100);
  });

  it("a 5000-line PUT, its re-PUT and a 5000-key DELETE stay within the limits", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    // Long names push the rows past one JSON parameter's budget, so the upsert runs as several chunks.
    const longName = (i: number) => ({ en: `Shirt ${i} ${"e".repeat(300)}`, fr: `Chemise ${i} ${"f".repeat(300)}` });
    const lines = makeLines(5000, (i) => ({ variantName: longName(i) }));
    expect(JSON.stringify(lines).length).toBeGreaterThan(3_000_000);
    expect(await putLines(op, operation.id, lines)).toEqual({ created: 5000, updated: 0, lineCount: 5000 });
    expect(
      await putLines(
        op,
        operation.id,
        makeLines(5000, (i) => ({ maxQuantity: 30, variantName: longName(i) })),
      ),
    ).toEqual({
      created: 0,
      updated: 5000,
      lineCount: 5000,
    });
    const { items } = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 1000, maxQuantity: 30 } });
    expect(items.length).toBe(5000);
    expect(items[4999].variantName.fr).toBe(longName(4999).fr);
    const removed = expectStatus(
      await callRoute(op, routes.deleteLines, { params: { operationId: operation.id }, body: lines.map((line) => line.variantExternalId) }),
      200,
    );
    expect(removed).toEqual({ removed: 5000, notFound: [], lineCount: 0 });
    expect((await readOperation(op, operation.id)).lineCount).toBe(0);
  });
});

describe("line list query plans", () => {
  let op: Caller;
  let operationId: string;
  let principal: Principal;

  beforeAll(async () => {
    op = await newTenant();
    operationId = (await createOperation(op)).id;
    await putLines(op, operationId, makeLines(300));
    principal = await testPrincipal(op.tenantId);
  });

  /** The plan of the page query the API runs for these query parameters (page 1, and page 2 with its token). */
  async function plans(query: Record<string, string>) {
    const { db, statements } = recordingDb(principal.shard);
    const parsed = listLinesQuery.parse({ limit: "20", ...query });
    const first = await listLines({ db, archive: env.HISTORY_ARCHIVE, secret: env.PAGINATION_SECRET, principal }, operationId, parsed);
    if (first.nextToken)
      await listLines({ db, archive: env.HISTORY_ARCHIVE, secret: env.PAGINATION_SECRET, principal }, operationId, { ...parsed, nextToken: first.nextToken });
    const pageQueries = statements.filter((s) => s.sql.includes('from "operation_lines"'));
    expect(pageQueries.length).toBe(first.nextToken ? 2 : 1);
    return Promise.all(pageQueries.map(async (statement) => (await queryPlan(statement)).map((row) => row.detail).join("\n")));
  }

  const cases: [Record<string, string>, RegExp][] = [
    [{}, /SEARCH operation_lines USING PRIMARY KEY \(operation_id=\?/],
    [{ sort: "-variantExternalId" }, /SEARCH operation_lines USING PRIMARY KEY \(operation_id=\?/],
    [{ sort: "variantName" }, /SEARCH operation_lines USING INDEX operation_lines_name_sort \(operation_id=\?/],
    [{ sort: "-variantName" }, /SEARCH operation_lines USING INDEX operation_lines_name_sort \(operation_id=\?/],
    [{ sort: "minQuantity" }, /SEARCH operation_lines USING INDEX operation_lines_min \(operation_id=\?/],
    [{ sort: "maxQuantity" }, /SEARCH operation_lines USING INDEX operation_lines_max \(operation_id=\?/],
    [{ sort: "-maxQuantity" }, /SEARCH operation_lines USING INDEX operation_lines_max \(operation_id=\?/],
    [{ sort: "recommendedQuantity" }, /SEARCH operation_lines USING INDEX operation_lines_recommended \(operation_id=\?/],
    [{ minQuantity: "1" }, /SEARCH operation_lines USING INDEX operation_lines_min \(operation_id=\? AND min_quantity=\?/],
    [{ maxQuantity: "12" }, /SEARCH operation_lines USING INDEX operation_lines_max \(operation_id=\? AND max_quantity=\?/],
    [{ recommendedQuantity: "5" }, /SEARCH operation_lines USING INDEX operation_lines_recommended \(operation_id=\? AND recommended_key=\?/],
    [{ sort: "quantityIncrement" }, /SEARCH operation_lines USING INDEX operation_lines_increment \(operation_id=\?/],
    [{ quantityIncrement: "6" }, /SEARCH operation_lines USING INDEX operation_lines_increment \(operation_id=\? AND quantity_increment=\?/],
    [{ minQuantity: "1", sort: "-variantExternalId" }, /SEARCH operation_lines USING INDEX operation_lines_min \(operation_id=\? AND min_quantity=\?/],
    [
      { recommendedQuantity: "5", sort: "recommendedQuantity" },
      /SEARCH operation_lines USING INDEX operation_lines_recommended \(operation_id=\? AND recommended_key=\?/,
    ],
    [{ variantName: "shirt" }, /SEARCH operation_lines USING PRIMARY KEY \(operation_id=\?/],
    [{ variantName: "shirt", sort: "variantName" }, /SEARCH operation_lines USING INDEX operation_lines_name_sort \(operation_id=\?/],
    [{ variantIds: "SKU-00001,SKU-00002" }, /SEARCH operation_lines USING PRIMARY KEY \(operation_id=\? AND variant_external_id=\?\)/],
  ];

  for (const [query, expected] of cases) {
    it(`uses an operation_lines index for ${JSON.stringify(query)} without sorting in memory`, async () => {
      for (const plan of await plans(query)) {
        expect(plan).toMatch(expected);
        expect(plan).not.toMatch(/SCAN operation_lines/);
        if (!query.variantIds) expect(plan).not.toMatch(/TEMP B-TREE/);
      }
    });
  }
});
