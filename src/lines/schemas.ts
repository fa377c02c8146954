import * as z from "zod";
import { localizedText } from "../platform/core/locale";
import { commaList, pageQueryShape } from "../platform/schema/list-query";
import type { ListDefinition } from "../platform/data/pagination";
import { boundedText, externalKey, keyedBatch, listEnvelope, MAX_QUANTITY, quantity, quantityIncrement, queryInteger } from "../platform/schema/fields";
import { operationLines } from "../operations/tables";
import { deprecatedAlias } from "../platform/http/deprecation";
import { asOfQuery } from "../history/schemas";

export const lineList: ListDefinition = {
  name: "lines",
  sortable: {
    variantExternalId: operationLines.variantExternalId,
    variantName: operationLines.variantNameSort,
    minQuantity: operationLines.minQuantity,
    maxQuantity: operationLines.maxQuantity,
    recommendedQuantity: operationLines.recommendedKey,
    quantityIncrement: operationLines.quantityIncrement,
    orderedQuantity: operationLines.orderedQuantity,
    orderCount: operationLines.orderCount,
  },
  id: operationLines.variantExternalId,
  defaultSort: "variantExternalId",
  maxLimit: 1000,
};

/** Lines and variant ids per PUT/DELETE call. */
export const MAX_LINES_PER_CALL = 5000;

const lineInput = z.strictObject({
  variantExternalId: externalKey.describe("The line's key within its Operation."),
  variantId: externalKey.nullable().optional().describe("Omitted: kept (null for a new line); null clears it."),
  variantName: localizedText.optional().describe("Replaces the whole map when given; omitted: kept ({} for a new line)."),
  minQuantity: quantity.optional().describe("Required for a new line; omitted on an existing line: kept."),
  maxQuantity: quantity.optional().describe("Required for a new line; omitted on an existing line: kept."),
  recommendedQuantity: quantity.nullable().optional().describe("Within [minQuantity, maxQuantity]; null clears it; omitted: kept."),
  quantityIncrement: quantityIncrement
    .optional()
    .describe("The pack size: minQuantity, maxQuantity and recommendedQuantity must be multiples of it. Omitted: kept (1 for a new line)."),
});
export type LineInput = z.output<typeof lineInput>;

/** The columns of a lines CSV, exported and imported alike (variantName in one language: the locale header's, else the tenant default). */
export const LINE_CSV_COLUMNS = ["variantExternalId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const;

export const putLinesBody = keyedBatch(lineInput, {
  field: "variantExternalId",
  keyOf: (line) => line.variantExternalId,
  max: MAX_LINES_PER_CALL,
  what: "line",
})
  .describe(
    `Up to ${MAX_LINES_PER_CALL} lines, upserted by variantExternalId. A variantExternalId may appear once per call (a repeat is 400 validation_failed naming each repeated index).`,
  )
  .meta({
    id: "LinesUpsert",
    examples: [
      [
        {
          variantExternalId: "SKU-1001-M",
          variantId: "v-88120",
          variantName: { en: "Linen shirt, M", fr: "Chemise en lin, M" },
          minQuantity: 0,
          maxQuantity: 24,
          recommendedQuantity: 6,
        },
        { variantExternalId: "SKU-1001-L", maxQuantity: 12 },
        { variantExternalId: "SKU-2040-U", minQuantity: 6, maxQuantity: 48, quantityIncrement: 6 },
      ],
    ],
  });

export const deleteLinesBody = z
  .array(externalKey)
  .min(1, "send at least one variantExternalId")
  .max(MAX_LINES_PER_CALL)
  .describe(`Up to ${MAX_LINES_PER_CALL} variantExternalIds; repeats count once.`)
  .meta({ id: "LinesDelete", examples: [["SKU-1001-M", "SKU-1001-XL"]] });

const exactQuantity = (description: string) => queryInteger(0, MAX_QUANTITY).optional().describe(description);

export const listLinesQuery = z.strictObject({
  ...pageQueryShape(lineList),
  variantIds: commaList("Comma list of variantExternalIds.", 1000),
  variantExternalId: deprecatedAlias(commaList("Alias of variantIds.", 1000), { since: "2026-11-23", use: "variantIds" }),
  variantName: boundedText(200).optional().describe("Case-insensitive substring of the variant name in any locale."),
  minQuantity: exactQuantity("Lines whose minQuantity equals this."),
  maxQuantity: exactQuantity("Lines whose maxQuantity equals this."),
  recommendedQuantity: exactQuantity("Lines whose recommendedQuantity equals this."),
  quantityIncrement: queryInteger(1, MAX_QUANTITY).optional().describe("Lines whose quantityIncrement (pack size) equals this."),
  ...orderedFilters("orderedQuantity", "ordered quantity (over PLACED orders)"),
  ...orderedFilters("orderCount", "number of PLACED orders carrying it"),
});
export type ListLinesQuery = z.output<typeof listLinesQuery>;

/** The figures a line's orders give it, which a version of its past does not have. */
export const ORDERED_FIELDS = ["orderedQuantity", "orderCount"] as const;
export type OrderedField = (typeof ORDERED_FIELDS)[number];
export const ORDERED_FILTERS = ORDERED_FIELDS.flatMap((field) => [field, `${field}[gte]`, `${field}[lte]`] as const);

/** A figure's exact, at-least and at-most filters: `orderedQuantity=0`, `orderedQuantity[gte]=10`. */
function orderedFilters<F extends OrderedField>(field: F, what: string) {
  const bound = () => queryInteger(0, Number.MAX_SAFE_INTEGER).optional();
  return {
    [field]: bound().describe(`Lines whose ${what} equals this.`),
    [`${field}[gte]`]: bound().describe(`Lines whose ${what} is at least this.`),
    [`${field}[lte]`]: bound().describe(`Lines whose ${what} is at most this.`),
  } as Record<F | `${F}[gte]` | `${F}[lte]`, ReturnType<typeof bound>>;
}

export const listLinesAsOfQuery = listLinesQuery.extend({ asOf: asOfQuery });

/**
 * What a storefront pages lines by: the same list without the order figures, which say what other
 * buyers ordered (a buyer neither sees, filters nor sorts by them).
 */
export const frontLineList: ListDefinition = {
  ...lineList,
  name: "front-lines",
  sortable: Object.fromEntries(Object.entries(lineList.sortable).filter(([field]) => !(ORDERED_FIELDS as readonly string[]).includes(field))),
};
export const frontLinesQuery = listLinesQuery
  .omit(Object.fromEntries(ORDERED_FILTERS.map((name) => [name, true])) as Record<(typeof ORDERED_FILTERS)[number], true>)
  .extend({
    ...pageQueryShape(frontLineList),
    accountId: externalKey.optional().describe("The account availableToYou is for (an ACCOUNT key: one of its own; default the best placed of them)."),
  });
export type FrontLinesQuery = z.output<typeof frontLinesQuery>;

/** The example of the OpenAPI document, which the front representation shows localized. */
export const LINE_EXAMPLE = {
  variantExternalId: "SKU-1001-M",
  variantId: "v-88120",
  variantName: { en: "Linen shirt, M", fr: "Chemise en lin, M" },
  minQuantity: 0,
  maxQuantity: 24,
  recommendedQuantity: 6,
  quantityIncrement: 2,
  updatedAt: "2026-02-20T10:05:00Z",
} as const;

export const lineRepresentation = z
  .object({
    variantExternalId: z.string(),
    variantId: z.string().nullable(),
    variantName: z.record(z.string(), z.string()),
    minQuantity: z.number().int(),
    maxQuantity: z.number().int(),
    recommendedQuantity: z.number().int().nullable(),
    quantityIncrement: z.number().int().min(1).describe("The pack size: quantities are ordered in multiples of it."),
    orderedQuantity: z
      .number()
      .int()
      .optional()
      .describe("The sum of its quantity over the Operation's PLACED orders, kept as orders are placed and cancelled (absent from asOf lists)."),
    orderCount: z.number().int().optional().describe("How many PLACED orders carry it (absent from asOf lists)."),
    poolQuantity: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe("Units all buyers together may order (null: unlimited; absent from asOf lists). Set by PUT …/allocations."),
    maxPerAccount: z.number().int().nullable().optional().describe("What one account may order in all (null: no cap; absent from asOf lists)."),
    poolRemaining: z.number().int().nullable().optional().describe("poolQuantity − orderedQuantity (null: unlimited; absent from asOf lists)."),
    updatedAt: z.string().describe("When its own fields last changed (orders do not change it)."),
  })
  .meta({ id: "Line", examples: [{ ...LINE_EXAMPLE, orderedQuantity: 36, orderCount: 5, poolQuantity: 200, maxPerAccount: 24, poolRemaining: 164 }] });
export type LineRepresentation = z.infer<typeof lineRepresentation>;

export const linePage = listEnvelope(lineRepresentation).meta({ id: "LinePage" });

export const putLinesResponse = z
  .object({ created: z.number().int(), updated: z.number().int(), lineCount: z.number().int() })
  .meta({ id: "LinesUpsertResult", examples: [{ created: 1, updated: 1, lineCount: 121 }] });
export const deleteLinesResponse = z
  .object({
    removed: z.number().int(),
    notFound: z.array(z.string()),
    lineCount: z.number().int(),
  })
  .meta({ id: "LinesDeleteResult", examples: [{ removed: 1, notFound: ["SKU-1001-XL"], lineCount: 120 }] });
