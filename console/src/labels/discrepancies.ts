/** An order check's discrepancy codes (the API's `above_max`…) in words, as the report's counts name them. */
export const DISCREPANCY_WORDS = {
  below_min: "Below minimum",
  above_max: "Above maximum",
  not_in_operation: "Not in the Operation",
  missing_required: "Required, missing",
  increment_mismatch: "Not a pack multiple",
  allocation_exceeded: "More than is left",
} as const;

export type DiscrepancyCode = keyof typeof DISCREPANCY_WORDS;

/** A discrepancy code in words; a code this console does not know yet reads as its words ("over_budget" → "over budget"). */
export const discrepancyWords = (code: string) => DISCREPANCY_WORDS[code as DiscrepancyCode] ?? code.replaceAll("_", " ");
