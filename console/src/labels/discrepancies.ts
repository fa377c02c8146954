import { hasMessage, t } from "../shared/i18n";

/** An order check's discrepancy codes (the API's `above_max`…), as the report's counts name them. */
export const DISCREPANCY_CODES = ["below_min", "above_max", "not_in_operation", "missing_required", "increment_mismatch", "allocation_exceeded"] as const;

export type DiscrepancyCode = (typeof DISCREPANCY_CODES)[number];

/** A discrepancy code in words; a code this console does not know yet reads as its words ("over_budget" → "over budget"). */
export function discrepancyWords(code: string): string {
  const key = `discrepancy.${code}`;
  return hasMessage(key) ? t(key) : code.replaceAll("_", " ");
}
