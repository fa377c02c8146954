import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { exhaustedEvents, setAllocations } from "../../src/allocation/commands";
import { fitsAllocation } from "../../src/allocation/queries";
import type { CommandContext } from "../../src/operations/coordinator/protocol";
import { runBatch } from "../../src/platform/data/sql";
import { newTenant, type Caller } from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal, type RecordedStatement } from "../helpers/recording-db";
import { setUpOperation } from "../helpers/setup";

/*
 * Allocation's statements join a JSON list of lines with the Operation's lines. Driven by the
 * Operation's lines (operation_id=? alone) SQLite reads the whole list again for each of them: about
 * 20 ms of SQLite for a 10-line order into 5000 lines, seconds for a PUT of 5000 lines. Driven by the
 * list, each line is one primary-key search.
 */
const BY_KEY = /SEARCH operation_lines USING PRIMARY KEY \(operation_id=\? AND variant_external_id=\?\)/;
const BY_OPERATION = /SEARCH operation_lines USING (COVERING INDEX \w+|PRIMARY KEY) \(operation_id=\?\)/;

async function expectLinesByKey(statement: RecordedStatement | undefined, all: RecordedStatement[]) {
  expect(statement, all.map((recorded) => recorded.sql).join("\n")).toBeDefined();
  const plan = (await queryPlan(statement!)).map((row) => row.detail);
  expect(plan.some((detail) => BY_KEY.test(detail)) && !plan.some((detail) => BY_OPERATION.test(detail)), plan.join("\n")).toBe(true);
}

async function commandContext(op: Caller, operationId: string) {
  const principal = await testPrincipal(op.tenantId);
  const recording = recordingDb(principal.shard);
  const ctx: CommandContext = {
    db: recording.db,
    archive: env.HISTORY_ARCHIVE,
    principal,
    operationId,
    author: { actor: "key:k", keyId: null, requestId: null, reason: null },
  };
  return { ctx, statements: recording.statements };
}

const LINES = [
  { variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 10 },
  { variantExternalId: "SKU-2", minQuantity: 0, maxQuantity: 10 },
];

describe("allocation finds an Operation's lines by their key", () => {
  it("an order's guard: one primary-key search per ordered line", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const { ctx, statements } = await commandContext(op, operation.id);
    await ctx.db.all(sql`select 1 where ${fitsAllocation(operation.id, "A1", [{ variantExternalId: "SKU-1", quantity: 1 }])}`);
    await expectLinesByKey(
      statements.find((statement) => /operation_lines/.test(statement.sql)),
      statements,
    );
  });

  it("an order's allocation.exhausted events: one primary-key search per ordered line", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const { ctx, statements } = await commandContext(op, operation.id);
    await runBatch(
      ctx.db,
      exhaustedEvents(ctx, { id: "ord_plan", placedAt: "2026-03-01T00:00:00.000Z", lines: [{ variantExternalId: "SKU-1", quantity: 1 }] }),
    );
    await expectLinesByKey(
      statements.find((statement) => /allocation\.exhausted/.test(statement.sql)),
      statements,
    );
  });

  it("PUT …/allocations: one primary-key search per line it sets", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const { ctx, statements } = await commandContext(op, operation.id);
    await setAllocations.run(ctx, { entries: [{ variantExternalId: "SKU-1", poolQuantity: 5 }], dryRun: false });
    await expectLinesByKey(
      statements.find((statement) => /update "operation_lines"/.test(statement.sql)),
      statements,
    );
  });
});
