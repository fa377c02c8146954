import { describe, expect, it } from "vitest";
import { placedStatements } from "../../src/totals/commands";
import { runBatch } from "../../src/platform/data/sql";
import { newTenant } from "../helpers/client";
import { queryPlan, recordingDb, testPrincipal } from "../helpers/recording-db";

describe("an order's lines add to the Operation's lines by their key", () => {
  it("one primary-key search per ordered line, never a pass over the Operation's lines", async () => {
    const op = await newTenant();
    const principal = await testPrincipal(op.tenantId);
    const { db, statements } = recordingDb(principal.shard);
    const order = {
      tenantId: op.tenantId,
      operationId: "op_plan",
      accountId: "A1",
      amount: 300,
      placedAt: "2026-03-01T00:00:00.000Z",
      lines: [
        { variantExternalId: "SKU-1", quantity: 1 },
        { variantExternalId: "SKU-2", quantity: 2 },
      ],
    };
    await runBatch(db, placedStatements(order));
    const update = statements.find((statement) => /update "operation_lines"/.test(statement.sql));
    expect(update, statements.map((statement) => statement.sql).join("\n")).toBeDefined();
    const plan = (await queryPlan(update!)).map((row) => row.detail);
    // Driven by the Operation's lines (operation_id=? alone), it read every ordered line again for each of
    // them: about 20 ms for 10 lines into 5000, seconds for an order of 5000.
    expect(
      plan.some((detail) => /SEARCH operation_lines USING PRIMARY KEY \(operation_id=\? AND variant_external_id=\?\)/.test(detail)),
      plan.join("\n"),
    ).toBe(true);
  });
});
