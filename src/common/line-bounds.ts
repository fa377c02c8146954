import { resolveLocale } from "./locale";

/** A name in several languages, by locale (the API's LocalizedText). */
type Names = Record<string, string>;

/** A line as stored, the fields a PUT may change. */
export interface StoredLine {
  variantExternalId: string;
  variantId: string | null;
  variantName: Names;
  minQuantity: number;
  maxQuantity: number;
  recommendedQuantity: number | null;
  quantityIncrement: number;
}

/** A line as a PUT sends it (the API's LineInput): omitted fields keep the stored value. */
export interface LineFields {
  variantExternalId: string;
  variantId?: string | null;
  variantName?: Names;
  minQuantity?: number;
  maxQuantity?: number;
  recommendedQuantity?: number | null;
  quantityIncrement?: number;
}

export type BoundsErrorCode = "min_gt_max" | "recommended_out_of_bounds" | "missing_bounds" | "increment_mismatch";

/** A violated rule, as an item of the API's problem `errors[]`. */
export interface BoundsError {
  index: number;
  variantExternalId: string;
  field: string;
  code: BoundsErrorCode;
  message: string;
  [extra: string]: unknown;
}

export interface MergeOutcome {
  lines: StoredLine[];
  created: number;
  updated: number;
  /** One entry per violated rule, in input order; empty when the whole batch may be written. */
  errors: BoundsError[];
}

/**
 * A spreadsheet's name (one language's text) over the stored name: it sets that language and keeps
 * the others. A text the export showed for a language the name lacks (another's, by the fallback of
 * `tenantDefault`) is what was read, not typed: it adds nothing, so an exported file imports back unchanged.
 */
function mergeName(stored: Names | undefined, input: Names, tenantDefault: string): Names {
  const merged = { ...stored };
  for (const [locale, text] of Object.entries(input)) {
    const absent = !Object.keys(merged).some((key) => key.toLowerCase() === locale.toLowerCase());
    if (absent && stored && resolveLocale(stored, locale, tenantDefault).value === text) continue;
    merged[locale] = text;
  }
  return merged;
}

/**
 * Merges each input over the stored line of the same key (omitted fields keep their value) and
 * validates the merged line: a new line needs both bounds, min ≤ max, recommended within them, and
 * every set quantity a multiple of the pack size (1 for a new line sent without one). `mergeNames`:
 * the names are a spreadsheet's, one language each (mergeName).
 */
export function mergeLines(
  inputs: readonly LineFields[],
  existing: Map<string, StoredLine>,
  options: { mergeNames?: { tenantDefault: string } } = {},
): MergeOutcome {
  const lines: StoredLine[] = [];
  const errors: BoundsError[] = [];
  let created = 0;
  inputs.forEach((input, index) => {
    const stored = existing.get(input.variantExternalId);
    if (!stored) created++;
    const minQuantity = input.minQuantity ?? stored?.minQuantity;
    const maxQuantity = input.maxQuantity ?? stored?.maxQuantity;
    const recommendedQuantity = input.recommendedQuantity === undefined ? (stored?.recommendedQuantity ?? null) : input.recommendedQuantity;
    const quantityIncrement = input.quantityIncrement ?? stored?.quantityIncrement ?? 1;
    const report = (code: BoundsErrorCode, field: string, message: string, extra: Record<string, unknown> = {}) =>
      errors.push({ index, variantExternalId: input.variantExternalId, field, code, message, ...extra });

    const missing = [minQuantity === undefined && "minQuantity", maxQuantity === undefined && "maxQuantity"].filter((field): field is string => Boolean(field));
    if (missing.length) {
      report("missing_bounds", missing[0], `a new line needs ${missing.join(" and ")}`, { missing });
    }
    if (minQuantity !== undefined && maxQuantity !== undefined && minQuantity > maxQuantity) {
      report("min_gt_max", "maxQuantity", `minQuantity ${minQuantity} is greater than maxQuantity ${maxQuantity}`);
    }
    if (
      recommendedQuantity !== null &&
      ((minQuantity !== undefined && recommendedQuantity < minQuantity) || (maxQuantity !== undefined && recommendedQuantity > maxQuantity))
    ) {
      report(
        "recommended_out_of_bounds",
        "recommendedQuantity",
        `recommendedQuantity ${recommendedQuantity} is outside [${minQuantity ?? "?"}, ${maxQuantity ?? "?"}]`,
      );
    }
    // Every quantity is a multiple of 1, the pack size of most lines: they skip the check (5000-line PUTs).
    if (quantityIncrement !== 1) {
      const quantities: [string, number | null | undefined][] = [
        ["minQuantity", minQuantity],
        ["maxQuantity", maxQuantity],
        ["recommendedQuantity", recommendedQuantity],
      ];
      for (const [field, value] of quantities) {
        if (value !== null && value !== undefined && value % quantityIncrement !== 0) {
          report("increment_mismatch", field, `${field} ${value} is not a multiple of quantityIncrement ${quantityIncrement}`, { quantityIncrement });
        }
      }
    }
    if (errors.length) return; // nothing will be written; skip building rows
    lines.push({
      variantExternalId: input.variantExternalId,
      variantId: input.variantId === undefined ? (stored?.variantId ?? null) : input.variantId,
      variantName:
        options.mergeNames && input.variantName
          ? mergeName(stored?.variantName, input.variantName, options.mergeNames.tenantDefault)
          : (input.variantName ?? stored?.variantName ?? {}),
      minQuantity: minQuantity!,
      maxQuantity: maxQuantity!,
      recommendedQuantity,
      quantityIncrement,
    });
  });
  return { lines: errors.length ? [] : lines, created, updated: inputs.length - created, errors };
}
