/**
 * Fields as the console's headers and forms name them, for the places that list a resource's fields
 * by the API's names (a change record's `maxQuantity 50 → 5` reads "Max 50 → 5", as the grid's column
 * says). A field without a name here is shown as the API spells it.
 */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  // A line (the grid's columns)
  variantId: "Variant",
  variantExternalId: "Variant",
  variantName: "Name",
  minQuantity: "Min",
  maxQuantity: "Max",
  recommendedQuantity: "Recommended",
  quantityIncrement: "Pack",
  poolQuantity: "Pool",
  maxPerAccount: "Per account",
  orderedQuantity: "Ordered",
  // An Operation (its form)
  code: "Code",
  externalId: "External id",
  name: "Name",
  description: "Description",
  type: "Type",
  status: "Status",
  startDate: "Start date",
  endDate: "End date",
  activateAt: "Activates at",
  deactivateAt: "Deactivates at",
  ownerIds: "Owners",
  createdAt: "Created",
  // A rule, the tenant default
  accountId: "Account",
  supplierId: "Supplier",
  storeId: "Store",
  minimum: "Minimum",
  enforcement: "Enforcement",
  // An approval
  version: "Version",
  decision: "Decision",
  comment: "Comment",
  approver: "By",
  decidedAt: "Decided at",
  // Settings, accounts, webhooks, keys
  currency: "Currency",
  required: "Approvals required",
  allowSelfApproval: "Self-approval allowed",
  retentionYears: "Kept for (years)",
  users: "Users",
  url: "URL",
  eventTypes: "Events",
  role: "Role",
  userId: "User",
  prefix: "Prefix",
  expiresAt: "Expires at",
  revokedAt: "Revoked at",
};

/** A field's name for people: "Max" for `maxQuantity`. */
export const fieldLabel = (field: string) => FIELD_LABELS[field] ?? field;

/** Every recorded field as a filter offers it: "Max (maxQuantity)", by its name for people. */
export const FIELD_CHOICES: readonly (readonly [string, string])[] = Object.entries(FIELD_LABELS)
  .filter(([field]) => field !== "variantExternalId") // a line's key, not one of its recorded fields
  .map(([field, label]) => [field, `${label} (${field})`] as const)
  .sort((a, b) => a[1].localeCompare(b[1]));

/** The API's field names a message may hold (camelCase ones: a plain word such as "status" is left as written). */
const NAMED_IN_MESSAGES = new RegExp(
  `\\b(${Object.keys(FIELD_LABELS)
    .filter((field) => /[A-Z]/.test(field))
    .join("|")})\\b`,
  "g",
);

/**
 * A message about fields (the server's bounds rules, an error item) in the console's words: "minQuantity
 * 50 is greater than maxQuantity 10" reads "Min 50 is greater than Max 10", as the grid's columns say.
 */
export const inFieldLabels = (message: string) => message.replace(NAMED_IN_MESSAGES, (field) => fieldLabel(field));
