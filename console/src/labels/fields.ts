import { RECORDED_LINE_FIELDS, RECORDED_OPERATION_FIELDS } from "@campaign-policy/common/recorded-fields";
import { hasMessage, t } from "../shared/i18n";

/**
 * Fields as the console's headers and forms name them, for the places that list a resource's fields
 * by the API's names (a change record's `maxQuantity 50 → 5` reads "Max 50 → 5", as the grid's column
 * says). A field without a name here is shown as the API spells it.
 */
export const LABELLED_FIELDS = [
  // A line (the grid's columns)
  ...RECORDED_LINE_FIELDS,
  "variantExternalId",
  "poolQuantity",
  "maxPerAccount",
  "orderedQuantity",
  // An Operation (its form)
  ...RECORDED_OPERATION_FIELDS,
  // A rule, the tenant default
  "accountId",
  "supplierId",
  "storeId",
  "minimum",
  "enforcement",
  // An approval
  "version",
  "decision",
  "comment",
  "approver",
  "decidedAt",
  // Settings, accounts, webhooks, keys
  "currency",
  "required",
  "allowSelfApproval",
  "retentionYears",
  "users",
  "url",
  "eventTypes",
  "role",
  "userId",
  "prefix",
  "expiresAt",
  "revokedAt",
] as const;

/** A field's name for people, in the console's language: "Max" for `maxQuantity` (the API's name when it has none). */
export function fieldLabel(field: string): string {
  const key = `field.${field}`;
  return hasMessage(key) ? t(key) : field;
}

/** Every recorded field as a filter offers it: "Max (maxQuantity)", by its name for people. */
export const fieldChoices = (): readonly (readonly [string, string])[] =>
  LABELLED_FIELDS.filter((field) => field !== "variantExternalId") // a line's key, not one of its recorded fields
    .map((field) => [field, `${fieldLabel(field)} (${field})`] as const)
    .sort((a, b) => a[1].localeCompare(b[1]));

/** The API's field names a message may hold (camelCase ones: a plain word such as "status" is left as written). */
const NAMED_IN_MESSAGES = new RegExp(`\\b(${LABELLED_FIELDS.filter((field) => /[A-Z]/.test(field)).join("|")})\\b`, "g");

/**
 * A message about fields (the server's bounds rules, an error item) in the console's words: "minQuantity
 * 50 is greater than maxQuantity 10" reads "Min 50 is greater than Max 10", as the grid's columns say.
 */
export const inFieldLabels = (message: string) => message.replace(NAMED_IN_MESSAGES, (field) => fieldLabel(field));
