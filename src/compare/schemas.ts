import { z } from "zod";
import { eitherBody, externalKey, keyedBatch, pathId, quantity } from "../platform/fields";

/** Lines per comparison request. */
export const MAX_COMPARE_LINES = 10_000;

const compareLine = z.strictObject({ variantExternalId: externalKey, quantity });

const compareLinesBody = z.strictObject({
  lines: keyedBatch(compareLine, { field: "variantExternalId", keyOf: (line) => line.variantExternalId, what: "line" }).describe(`1–${MAX_COMPARE_LINES} lines, each variantExternalId once.`),
});

export const compareBody = eitherBody("orderId", z.strictObject({ orderId: pathId("A placed order of this Operation.") }), compareLinesBody).describe(
  "Either { lines } to compare as sent, or { orderId } to compare a placed order.",
);

const issueCode = z.enum(["below_min", "above_max", "not_in_operation", "missing_required"]);

export const compareResponse = z.object({
  ok: z.boolean().describe("true when issues is empty."),
  summary: z.object({
    checked: z.number().int().describe("Lines in the order."),
    inBounds: z.number().int(),
    belowMin: z.number().int(),
    aboveMax: z.number().int(),
    notInOperation: z.number().int(),
    missingRequired: z.number().int().describe("Operation lines with minQuantity > 0 the order leaves out."),
  }),
  issues: z
    .array(
      z.object({
        variantExternalId: z.string(),
        code: issueCode,
        quantity: z.number().int().nullable().describe("null for missing_required."),
        minQuantity: z.number().int().nullable().describe("null for not_in_operation."),
        maxQuantity: z.number().int().nullable().describe("null for not_in_operation."),
      }),
    )
    .describe("Only the discrepancies: order lines by position, then missing_required lines by variantExternalId."),
});
