import * as z from "zod";
import { eitherBody, externalKey, keyedBatch, pathId, quantity } from "../platform/schema/fields";

/** Lines per comparison request. */
export const MAX_COMPARE_LINES = 10_000;

const compareLine = z.strictObject({ variantExternalId: externalKey, quantity });

const compareLinesBody = z
  .strictObject({
    lines: keyedBatch(compareLine, { field: "variantExternalId", keyOf: (line) => line.variantExternalId, what: "line" }).describe(
      `1–${MAX_COMPARE_LINES} lines, each variantExternalId once.`,
    ),
    accountId: externalKey
      .optional()
      .describe("The buying account: its caps are checked too (allocation_exceeded); without it, only the lines' pools. An ACCOUNT key: one of its own."),
  })
  .meta({ id: "ComparisonOfLines" });

const compareOrderBody = z.strictObject({ orderId: pathId("A placed order of this Operation.") }).meta({ id: "ComparisonOfOrder" });

export const compareBody = eitherBody("orderId", compareOrderBody, compareLinesBody)
  .describe("Either { lines } to compare as sent, or { orderId } to compare a placed order.")
  .meta({
    id: "ComparisonRequest",
    examples: [
      {
        lines: [
          { variantExternalId: "SKU-1001-M", quantity: 30 },
          { variantExternalId: "SKU-9999", quantity: 2 },
        ],
      },
    ],
  });

const issueCode = z.enum(["below_min", "above_max", "not_in_operation", "missing_required", "increment_mismatch", "allocation_exceeded"]);

export const compareResponse = z
  .object({
    ok: z.boolean().describe("true when issues is empty."),
    summary: z.object({
      checked: z.number().int().describe("Lines in the order."),
      inBounds: z.number().int(),
      belowMin: z.number().int(),
      aboveMax: z.number().int(),
      notInOperation: z.number().int(),
      missingRequired: z.number().int().describe("Operation lines with minQuantity > 0 the order leaves out."),
      incrementMismatch: z
        .number()
        .int()
        .describe("Lines within their bounds whose quantity is not a multiple of the line's quantityIncrement (also counted in inBounds)."),
      allocationExceeded: z
        .number()
        .int()
        .describe("Lines (sent as lines) asking more than is left of their pool or of the account's cap (also counted in inBounds)."),
    }),
    issues: z
      .array(
        z.object({
          variantExternalId: z.string(),
          code: issueCode,
          quantity: z.number().int().nullable().describe("null for missing_required."),
          minQuantity: z.number().int().nullable().describe("null for not_in_operation."),
          maxQuantity: z.number().int().nullable().describe("null for not_in_operation."),
          quantityIncrement: z.number().int().min(1).optional().describe("The line's pack size; on increment_mismatch issues only."),
          poolRemaining: z.number().int().nullable().optional().describe("On allocation_exceeded: what is left of the pool (null: unlimited)."),
          accountRemaining: z.number().int().nullable().optional().describe("On allocation_exceeded: what is left of the account's cap (null: none)."),
          nearestValid: z.number().int().nullable().optional().describe("On allocation_exceeded: the largest valid quantity within what is left."),
        }),
      )
      .describe("Only the discrepancies: order lines by position, then missing_required lines by variantExternalId."),
  })
  .meta({
    id: "Comparison",
    examples: [
      {
        ok: false,
        summary: { checked: 2, inBounds: 0, belowMin: 0, aboveMax: 1, notInOperation: 1, missingRequired: 1, incrementMismatch: 0, allocationExceeded: 0 },
        issues: [
          { variantExternalId: "SKU-1001-M", code: "above_max", quantity: 30, minQuantity: 0, maxQuantity: 24 },
          { variantExternalId: "SKU-9999", code: "not_in_operation", quantity: 2, minQuantity: null, maxQuantity: null },
          { variantExternalId: "SKU-3100-U", code: "missing_required", quantity: null, minQuantity: 2, maxQuantity: 10 },
        ],
      },
    ],
  });
