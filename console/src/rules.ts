import type { paths, Schemas } from "@campaign-policy/client";

/** What the rules pages share: types, the list query, texts. */

export type QuotaRule = Schemas["QuotaRule"];
export type RuleSort = NonNullable<NonNullable<paths["/v1/buying-policies/quotas/rules"]["get"]["parameters"]["query"]>["sort"]>[number];
export type RuleFilters = { accountId: string; supplierId: string; storeId: string; sort: RuleSort };
export type RulePage = Schemas["QuotaRulePage"];
type UpsertResult = Schemas["QuotaRulesUpsertResult"];

export const SORTS: [RuleSort, string][] = [
  ["createdAt", "Oldest first"],
  ["-createdAt", "Newest first"],
  ["-minimum", "Highest minimum"],
  ["minimum", "Lowest minimum"],
  ["accountId", "Account"],
  ["supplierId", "Supplier"],
];
/** The API's largest page of rules. */
export const RULES_PAGE_SIZE = 500;

/** The list query of `filters` (exact matches; empty filters send nothing). */
export const ruleQuery = (filters: RuleFilters, limit: number, nextToken?: string) => ({
  limit,
  sort: [filters.sort],
  ...(filters.accountId && { accountId: filters.accountId }),
  ...(filters.supplierId && { supplierId: filters.supplierId }),
  ...(filters.storeId && { storeId: filters.storeId }),
  ...(nextToken && { nextToken }),
});

export const describeUpsert = (result: UpsertResult) => `${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged`;
export const scopeText = (value: string | null) => value ?? "any";
