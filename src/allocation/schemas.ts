import { sql } from "drizzle-orm";
import * as z from "zod";
import { operationAccountCaps } from "../operations/tables";
import type { ListDefinition } from "../platform/data/pagination";
import { externalKey, keyedBatch, listEnvelope, MAX_QUANTITY, pathId, quantity } from "../platform/schema/fields";
import { commaList, pageQueryShape } from "../platform/schema/list-query";

/** Entries per allocation write, as lines per PUT. */
export const MAX_ALLOCATIONS_PER_CALL = 5000;

const lineAllocation = z.strictObject({
  variantExternalId: externalKey.describe("The line."),
  poolQuantity: quantity.nullable().optional().describe("Units all buyers together may order in this Operation; null: unlimited; omitted: kept."),
  maxPerAccount: z
    .number()
    .int()
    .min(1)
    .max(MAX_QUANTITY)
    .nullable()
    .optional()
    .describe("Units one account may order in all, over its PLACED orders; null: no cap; omitted: kept."),
});
export type LineAllocationInput = z.output<typeof lineAllocation>;

export const allocationsBody = keyedBatch(lineAllocation, { field: "variantExternalId", keyOf: (entry) => entry.variantExternalId, what: "line" })
  .describe(`Up to ${MAX_ALLOCATIONS_PER_CALL} lines, each once.`)
  .meta({
    id: "AllocationsWrite",
    examples: [
      [
        { variantExternalId: "SKU-JACKET-M", poolQuantity: 2000, maxPerAccount: 100 },
        { variantExternalId: "SKU-JACKET-L", poolQuantity: null },
      ],
    ],
  });

export const allocationsResponse = z
  .object({
    updated: z.number().int().describe("Lines whose pool or cap changed."),
    unchanged: z.number().int().describe("Lines sent with the values they have."),
  })
  .meta({ id: "AllocationsResult", examples: [{ updated: 1, unchanged: 1 }] });

const accountCap = z.strictObject({
  variantExternalId: externalKey.describe("The line."),
  accountId: externalKey.describe("The account (in the directory)."),
  maxQuantity: quantity.nullable().describe("What this account may order of the line in all, instead of its maxPerAccount; null removes it."),
});
export type AccountCapInput = z.output<typeof accountCap>;

/** An account cap's key in a batch and in history: the line and the account. */
export const capKeyOf = (entry: { variantExternalId: string; accountId: string }) => JSON.stringify([entry.variantExternalId, entry.accountId]);

export const accountCapsBody = keyedBatch(accountCap, { field: "accountId", keyOf: capKeyOf, what: "cap" })
  .describe(`Up to ${MAX_ALLOCATIONS_PER_CALL} caps, each (variantExternalId, accountId) once.`)
  .meta({
    id: "AccountCapsWrite",
    examples: [
      [
        { variantExternalId: "SKU-JACKET-M", accountId: "A-100", maxQuantity: 500 },
        { variantExternalId: "SKU-JACKET-M", accountId: "A-300", maxQuantity: null },
      ],
    ],
  });

export const accountCapsResponse = z
  .object({
    set: z.number().int().describe("Caps made or changed."),
    removed: z.number().int().describe("Caps removed (maxQuantity null)."),
    unchanged: z.number().int().describe("Sent as they are (or a removal of a cap there was not)."),
  })
  .meta({ id: "AccountCapsResult", examples: [{ set: 1, removed: 1, unchanged: 0 }] });

export const accountCapList: ListDefinition = {
  name: "account-caps",
  sortable: { variantExternalId: operationAccountCaps.variantExternalId, accountId: operationAccountCaps.accountId },
  id: sql`${operationAccountCaps.variantExternalId} || char(31) || ${operationAccountCaps.accountId}`,
  defaultSort: "variantExternalId",
  maxLimit: 1000,
};

export const accountCapsQuery = z.strictObject({
  ...pageQueryShape(accountCapList),
  variantIds: commaList("Comma list of variantExternalIds.", 1000),
  accountIds: commaList("Comma list of account ids."),
});
export type AccountCapsQuery = z.output<typeof accountCapsQuery>;

export const accountCapRepresentation = z
  .object({
    variantExternalId: z.string(),
    accountId: z.string(),
    maxQuantity: z.number().int(),
    orderedQuantity: z.number().int().describe("What the account has ordered of the line over its PLACED orders."),
    updatedAt: z.string(),
  })
  .meta({
    id: "AccountCap",
    examples: [{ variantExternalId: "SKU-JACKET-M", accountId: "A-100", maxQuantity: 500, orderedQuantity: 120, updatedAt: "2026-03-02T08:00:00.000Z" }],
  });
export const accountCapPage = listEnvelope(accountCapRepresentation).meta({ id: "AccountCapPage" });

/** The most a plan answers per page: a page is a body for PUT …/allocations/accounts. */
export const MAX_PLAN_PAGE = MAX_ALLOCATIONS_PER_CALL;

export const planBody = z
  .strictObject({
    variantExternalIds: z.array(externalKey).min(1).max(MAX_ALLOCATIONS_PER_CALL).optional().describe("The lines to plan (default: every line with a pool)."),
    method: z.enum(["equal", "proportional"]).describe("equal shares, or in proportion to basis."),
    basis: z
      .union([
        z.strictObject({ operationId: pathId("An earlier Operation: each account's weight is what it ordered of the same variant there.") }),
        z.strictObject({
          weights: z
            .record(externalKey, z.number().min(0).max(Number.MAX_SAFE_INTEGER))
            .describe("accountId → weight (≥ 0); the accounts planned for are these."),
        }),
      ])
      .optional()
      .describe("Whose shares, and in what proportion. Without it: the attached accounts (PRIVATE), equal shares."),
    limit: z.number().int().min(1).max(MAX_PLAN_PAGE).optional().describe(`Caps per page, 1–${MAX_PLAN_PAGE} (default ${MAX_PLAN_PAGE}).`),
    nextToken: z.string().min(1).max(2000).optional().describe("From the page before, with the same body otherwise."),
  })
  .meta({
    id: "AllocationPlanRequest",
    examples: [
      { method: "proportional", basis: { operationId: "op_01JQ3V8K2M5N7P9R1T3W5Y7Z9B" } },
      { method: "equal", variantExternalIds: ["SKU-JACKET-M"] },
    ],
  });
export type PlanBody = z.output<typeof planBody>;

export const planResponse = z
  .object({
    items: z
      .array(z.object({ variantExternalId: z.string(), accountId: z.string(), maxQuantity: z.number().int() }))
      .describe("A body for PUT …/allocations/accounts."),
    nextToken: z.string().nullable(),
  })
  .meta({
    id: "AllocationPlan",
    examples: [
      {
        items: [
          { variantExternalId: "SKU-JACKET-M", accountId: "A-100", maxQuantity: 1200 },
          { variantExternalId: "SKU-JACKET-M", accountId: "A-300", maxQuantity: 800 },
        ],
        nextToken: null,
      },
    ],
  });
