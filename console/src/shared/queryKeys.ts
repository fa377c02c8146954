/**
 * Every cache key of the console, in one place. A key starts with its resource, so a write
 * invalidates everything it may have changed by a prefix (`queryKeys.rules.all`) without listing
 * the queries; an Operation's lines, attachments and history have roots of their own, so refreshing
 * its header after a save does not read 5000 lines again.
 */
export const queryKeys = {
  operations: {
    all: ["operations"] as const,
    list: (query: object) => ["operations", "list", query] as const,
    picker: (search: string) => ["operations", "picker", search] as const,
    byCode: (code: string) => ["operations", "by-code", code] as const,
    codes: (ids: readonly string[]) => ["operations", "codes", ids] as const,
  },
  operation: (operationId: string) => ["operation", operationId] as const,
  lines: {
    of: (operationId: string) => ["lines", operationId] as const,
    view: (operationId: string, view: object) => ["lines", operationId, view] as const,
  },
  /** An Operation's pools and caps: accounts' own caps on a line (a save of caps or of a plan reads them again). */
  allocations: {
    of: (operationId: string) => ["allocations", operationId] as const,
    caps: (operationId: string, variantExternalId: string) => ["allocations", operationId, "caps", variantExternalId] as const,
  },
  attachments: {
    of: (operationId: string) => ["attachments", operationId] as const,
    list: (operationId: string, query: object) => ["attachments", operationId, query] as const,
  },
  history: {
    all: ["history"] as const,
    list: (query: object) => ["history", "list", query] as const,
    ofOperation: (operationId: string, query: object) => ["history", "operation", operationId, query] as const,
    diff: (operationId: string, from: number) => ["history", "diff", operationId, from] as const,
    reverts: (operationId: string) => ["history", "reverts", operationId] as const,
  },
  rules: {
    all: ["quota-rules"] as const,
    list: (filters: object) => ["quota-rules", "list", filters] as const,
    grid: (filters: object) => ["quota-rules", "grid", filters] as const,
    ofOrder: (accountId: string, supplierId: string | null) => ["quota-rules", "of-order", accountId, supplierId] as const,
    byIds: (ids: readonly string[]) => ["quota-rules", "by-ids", ids] as const,
  },
  rule: {
    all: ["quota-rule"] as const,
    one: (ruleId: string | null) => ["quota-rule", ruleId] as const,
  },
  quotaDefault: ["quota-default"] as const,
  evaluation: {
    all: ["evaluation"] as const,
    of: (order: object | null) => ["evaluation", order] as const,
  },
  directory: {
    all: ["directory"] as const,
    list: (query: object) => ["directory", "list", query] as const,
    search: (search: string) => ["directory", "search", search] as const,
    names: (ids: readonly string[]) => ["directory", "names", ids] as const,
    email: (userId: string) => ["directory", "email", userId] as const,
  },
  keys: {
    all: ["keys"] as const,
    list: (query: object) => ["keys", "list", query] as const,
    names: ["keys", "names"] as const,
  },
  webhooks: {
    all: ["webhooks"] as const,
    list: (query: object) => ["webhooks", "list", query] as const,
    byId: ["webhooks", "by-id"] as const,
  },
  deliveries: {
    of: (webhookId: string) => ["deliveries", webhookId] as const,
    list: (webhookId: string, query: object) => ["deliveries", webhookId, query] as const,
    failing: (webhookId: string) => ["deliveries", webhookId, "failing"] as const,
  },
  displaySettings: ["settings", "display"] as const,
  approvalSettings: ["settings", "approvals"] as const,
  approvals: (operationId: string) => ["approvals", operationId] as const,
  orders: {
    of: (operationId: string) => ["orders", operationId] as const,
    list: (operationId: string, query: object) => ["orders", operationId, query] as const,
  },
  /** An Operation's figures (its totals, accounts, days, refusals, lines by what was ordered): all change with an order. */
  totals: {
    of: (operationId: string) => ["totals", operationId] as const,
    figures: (operationId: string) => ["totals", operationId, "figures"] as const,
    accounts: (operationId: string, query: object) => ["totals", operationId, "accounts", query] as const,
    daily: (operationId: string) => ["totals", operationId, "daily"] as const,
    refusals: (operationId: string) => ["totals", operationId, "refusals"] as const,
    lines: (operationId: string) => ["totals", operationId, "lines"] as const,
  },
};
