import type { ApiClient, Schemas } from "@campaign-policy/client";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { QuotaOrder } from "@campaign-policy/common/rule-index";
import { useSession } from "../shared/context";
import { API_LIMITS } from "../shared/limits";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, csvAnswer, csvBody, type SortOf } from "../shared/session";
import { t } from "../shared/i18n";

/** The quota rules, the tenant default and evaluations as the console reads and writes them: every call of the API about them. */

export type QuotaRule = Schemas["QuotaRule"];
export type QuotaDefault = Schemas["QuotaDefault"];
export type RuleSort = SortOf<"/v1/buying-policies/quotas/rules">;
export type RuleFilters = { accountId: string; supplierId: string; storeId: string; sort: RuleSort };
export type RulePage = Schemas["QuotaRulePage"];
export type RuleWrite = Schemas["QuotaRuleWrite"];
export type UpsertCounts = Schemas["QuotaRulesUpsertResult"];

export const ruleSorts = (): [RuleSort, string][] => [
  ["createdAt", t("orders.sort.oldest")],
  ["-createdAt", t("ops.sort.newest")],
  ["-minimum", t("rules.sort.highest")],
  ["minimum", t("rules.sort.lowest")],
  ["accountId", t("field.accountId")],
  ["supplierId", t("field.supplierId")],
];

/** The list query of `filters` (exact matches; empty filters send nothing). */
const ruleQuery = (filters: RuleFilters, limit: number, nextToken?: string) => ({
  limit,
  sort: [filters.sort],
  ...(filters.accountId && { accountId: filters.accountId }),
  ...(filters.supplierId && { supplierId: filters.supplierId }),
  ...(filters.storeId && { storeId: filters.storeId }),
  ...(nextToken && { nextToken }),
});

const fetchRules = async (api: ApiClient, query: ReturnType<typeof ruleQuery> | { accountId: string } | { supplierId: string }) =>
  (await answer(api.GET("/v1/buying-policies/quotas/rules", { params: { query } }))).data as RulePage;

export const describeUpsert = (result: UpsertCounts) => t("rules.upsertCounts", { ...result });

export function useRuleList(filters: RuleFilters) {
  const { api } = useSession();
  return usePagedQuery(queryKeys.rules.list(filters), (nextToken) => fetchRules(api, ruleQuery(filters, 50, nextToken)));
}

/** Every rule of the filters, the API's largest page after another (the grid). */
export function useAllRules(filters: RuleFilters) {
  const { api } = useSession();
  const rules = useInfiniteQuery({
    queryKey: queryKeys.rules.grid(filters),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => fetchRules(api, ruleQuery(filters, API_LIMITS.rulesPerPage, pageParam)),
    getNextPageParam: (page) => page.nextToken ?? undefined,
    staleTime: Infinity,
  });
  useEffect(() => {
    if (rules.hasNextPage && !rules.isFetchingNextPage && !rules.error) void rules.fetchNextPage();
  }, [rules.hasNextPage, rules.isFetchingNextPage, rules.error, rules.fetchNextPage]);
  return rules;
}

/** Every rule that can concern the order: those of its account and those of its supplier (the list filters match exactly). */
export function useRulesOfOrder(order: QuotaOrder | null) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.rules.ofOrder(order?.accountId ?? "", order?.supplierId ?? null),
    enabled: order !== null,
    queryFn: async () => {
      const readAll = async (filter: { accountId: string } | { supplierId: string }) => {
        const rules: QuotaRule[] = [];
        for await (const rule of api.paginate("/v1/buying-policies/quotas/rules", { query: { ...filter, limit: API_LIMITS.rulesPerPage } })) rules.push(rule);
        return rules;
      };
      const [ofAccount, ofSupplier] = await Promise.all([
        readAll({ accountId: order!.accountId }),
        order!.supplierId ? readAll({ supplierId: order!.supplierId }) : [],
      ]);
      return [...new Map([...ofAccount, ...ofSupplier].map((rule) => [rule.id, rule])).values()];
    },
  });
}

export const fetchRule = async (api: ApiClient, ruleId: string) =>
  (await answer(api.GET("/v1/buying-policies/quotas/rules/{ruleId}", { params: { path: { ruleId } } }))).data;

/** A rule; `forForm`: read afresh on each opening, as the form starts from what the server holds now. */
export function useRule(ruleId: string | null, { forForm = false } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.rule.one(ruleId),
    enabled: ruleId !== null,
    ...(forForm && { gcTime: 0, refetchOnMount: "always" as const }),
    queryFn: () => fetchRule(api, ruleId!),
  });
}

/** After a rule write: every list of rules and each evaluation read again (and each rule's form, `withForms`, when the write was elsewhere). */
export function useRulesChanged() {
  const queryClient = useQueryClient();
  return ({ withForms = false } = {}) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.rules.all }),
      queryClient.invalidateQueries({ queryKey: queryKeys.evaluation.all }),
      withForms && queryClient.invalidateQueries({ queryKey: queryKeys.rule.all }),
    ]);
}

/** Creates a rule (none given) or replaces one. */
export function useSaveRule(
  rule: QuotaRule | null,
  handlers: { onMutate: () => void; onSuccess: (stored: QuotaRule) => void; onError: (error: unknown) => void },
) {
  const { api } = useSession();
  const changed = useRulesChanged();
  return useMutation({
    mutationFn: async (body: RuleWrite) =>
      rule
        ? (await answer(api.PUT("/v1/buying-policies/quotas/rules/{ruleId}", { params: { path: { ruleId: rule.id } }, body }))).data
        : (await answer(api.POST("/v1/buying-policies/quotas/rules", { body }))).data,
    ...handlers,
    onSuccess: (stored) => {
      void changed();
      handlers.onSuccess(stored);
    },
  });
}

export function useDeleteRule(rule: QuotaRule | null, handlers: { onMutate: () => void; onSuccess: () => void; onError: (error: unknown) => void }) {
  const { api } = useSession();
  const changed = useRulesChanged();
  return useMutation({
    mutationFn: async () => answer(api.DELETE("/v1/buying-policies/quotas/rules/{ruleId}", { params: { path: { ruleId: rule!.id } } })),
    ...handlers,
    onSuccess: () => {
      void changed();
      handlers.onSuccess();
    },
  });
}

/** Saves the minimums of some rules, one PUT each (the simulator's "what if"). */
export async function saveMinimums(api: ApiClient, rules: QuotaRule[], minimums: Map<string, number>) {
  for (const rule of rules) {
    const minimum = minimums.get(rule.id);
    if (minimum === undefined) continue;
    const body = { accountId: rule.accountId, supplierId: rule.supplierId, storeId: rule.storeId, minimum, enforcement: rule.enforcement };
    await answer(api.PUT("/v1/buying-policies/quotas/rules/{ruleId}", { params: { path: { ruleId: rule.id } }, body }));
  }
}

export const putRules = async (api: ApiClient, rules: RuleWrite[], dryRun: boolean): Promise<UpsertCounts> =>
  (await answer(api.PUT("/v1/buying-policies/quotas/rules", { params: { query: { dryRun } }, body: rules }))).data;

export const importRulesCsv = async (api: ApiClient, text: string, dryRun: boolean) =>
  (await answer(api.PUT("/v1/buying-policies/quotas/rules", { params: { query: { dryRun } }, ...csvBody(text) }))).data;

export const exportRulesCsv = async (api: ApiClient, filters: RuleFilters) =>
  (await answer(api.GET("/v1/buying-policies/quotas/rules", { params: { query: ruleQuery(filters, API_LIMITS.rulesPerPage) }, ...csvAnswer })))
    .data as unknown as string;

export function useQuotaDefault() {
  const { api } = useSession();
  return useQuery({ queryKey: queryKeys.quotaDefault, queryFn: async () => (await answer(api.GET("/v1/buying-policies/quotas/default"))).data });
}

export function useSaveQuotaDefault(handlers: { onMutate: () => void; onSuccess: () => void; onError: (error: unknown) => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: Schemas["QuotaDefaultWrite"]) => (await answer(api.PUT("/v1/buying-policies/quotas/default", { body }))).data,
    ...handlers,
    onSuccess: (stored) => {
      queryClient.setQueryData(queryKeys.quotaDefault, stored);
      void queryClient.invalidateQueries({ queryKey: queryKeys.evaluation.all });
      handlers.onSuccess();
    },
  });
}

/** The API's explained answer for one order. */
export function useEvaluation(order: QuotaOrder | null) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.evaluation.of(order),
    enabled: order !== null,
    queryFn: async () =>
      (await answer(api.POST("/v1/buying-policies/quotas/evaluate", { params: { query: { explain: true } }, body: { orders: [order!] } }))).data.results[0],
  });
}

export type ImpactRequest = Schemas["QuotaImpactRequest"];
export type Impact = Schemas["QuotaImpact"];
export type ImpactAccount = Schemas["QuotaImpactAccount"];

/** What a rule change would do to the orders of the last 90 days: one page of the accounts it changes. Changes nothing. */
export const fetchImpact = async (api: ApiClient, request: ImpactRequest, nextToken?: string) =>
  (
    await answer(
      api.POST("/v1/buying-policies/quotas/impact", {
        params: { query: { limit: API_LIMITS.impactAccountsPerPage, ...(nextToken && { nextToken }) } },
        body: request,
      }),
    )
  ).data;

/** Brings a deleted rule back, with its id and last values. */
export function useRestoreRule(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ruleId: string) => (await answer(api.POST("/v1/buying-policies/quotas/rules/{ruleId}/restore", { params: { path: { ruleId } } }))).data,
    onSuccess: () => {
      onDone();
      for (const queryKey of [queryKeys.history.all, queryKeys.rules.all, queryKeys.rule.all, queryKeys.evaluation.all])
        void queryClient.invalidateQueries({ queryKey });
    },
  });
}
