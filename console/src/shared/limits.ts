/**
 * The API's limits the console works within (rows per bulk PUT, items per page, ids per query), read
 * from the OpenAPI document when the console is built: the contract says them once, and a change of
 * a limit there reaches the console with its next build rather than through a copied constant.
 */
export interface ApiLimits {
  linesPerPut: number;
  linesPerPage: number;
  variantIdsPerQuery: number;
  rulesPerPut: number;
  rulesPerPage: number;
  impactChanges: number;
  impactAccountsPerPage: number;
  diffPerPage: number;
  historyPerPage: number;
  keysPerPage: number;
  /** Entries per PUT …/allocations or …/allocations/accounts (a plan's page). */
  capsPerPut: number;
  capsPerPage: number;
  capVariantIdsPerQuery: number;
}

declare const __API_LIMITS__: ApiLimits;

/** The API's limits, as the OpenAPI document states them (console/api-limits.ts reads them when the console is built). */
export const API_LIMITS: ApiLimits = __API_LIMITS__;
