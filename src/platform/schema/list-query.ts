import * as z from "zod";
import { documentedQuery, identifierText, queryInteger, refuseUnseenCharacters } from "./fields";
import { DEFAULT_LIMIT, type ListDefinition } from "../data/pagination";

// The query a list takes, as the contract states it: its page (limit, nextToken, sort) and its
// comma-list filters. The list engine that runs the query is pagination.ts.

/** Query fields shared by every list: limit (up to the list's maxLimit), nextToken, and sort (over the list's sortable fields). */
export function pageQueryShape(definition: ListDefinition) {
  const fields = Object.keys(definition.sortable);
  const sortPattern = new RegExp(`^-?(${fields.join("|")})(,-?(${fields.join("|")}))*$`);
  return {
    limit: queryInteger(1, definition.maxLimit, DEFAULT_LIMIT).describe(`Page size, 1–${definition.maxLimit}.`),
    nextToken: z.string().min(1).max(2000).optional().describe("Opaque token from the previous page."),
    sort: z
      .string()
      .regex(sortPattern, `sort takes a comma list of ${fields.join(", ")}, each optionally prefixed by -`)
      .meta(commaListDocument({ type: "string", enum: fields.flatMap((field) => [field, `-${field}`]) }))
      .optional()
      .describe(`Comma list of ${fields.join(", ")}; "-" prefix for descending. Default ${definition.defaultSort}.`),
  };
}

/** A comma list as the OpenAPI document shows it: an array a generated client sends as `name=a,b`. */
function commaListDocument(items: Record<string, unknown>, maxItems?: number) {
  return documentedQuery({ schema: { type: "array", items, minItems: 1, ...(maxItems !== undefined && { maxItems }) }, style: "form", explode: false });
}

const distinctItems = (value: string) => [
  ...new Set(
    value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ),
];

/** Splits a comma-list query value into its distinct non-empty items: ids, each checked as every id is (identifierText). */
export const commaList = (description: string, maxItems = 500) =>
  z
    .string()
    .superRefine(refuseUnseenCharacters)
    .transform(distinctItems)
    .pipe(z.array(identifierText(200)).min(1).max(maxItems))
    .meta(commaListDocument({ type: "string", maxLength: 200 }, maxItems))
    .optional()
    .describe(description);

export function commaEnumList<T extends string>(values: readonly [T, ...T[]], description: string) {
  return z
    .string()
    .transform(distinctItems)
    .pipe(z.array(z.enum(values)).min(1))
    .meta(commaListDocument({ type: "string", enum: values }))
    .optional()
    .describe(description);
}
