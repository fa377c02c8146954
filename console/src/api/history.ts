import type { ApiClient, Schemas } from "@campaign-policy/client";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { useSession } from "../shared/context";
import { API_LIMITS } from "../shared/limits";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, csvAnswer, type QueryOf, type SortOf } from "../shared/session";

/** Change history: the tenant's records and an Operation's, its versions compared. */

export type ChangeRecord = Schemas["ChangeRecord"];
type HistoryQuery = QueryOf<"/v1/history">;
export type ResourceType = NonNullable<HistoryQuery["resourceType"]>;

export interface ChangeFilters {
  kind: string;
  resource: string;
  operationId: string;
  field: string;
  actorKeyId: string;
  from: string;
  to: string;
  sort: string;
}

/** The history query of `filters`; the dates are whole days (from its first second to its last). */
const historyQuery = (filters: ChangeFilters): HistoryQuery => ({
  sort: [filters.sort as SortOf<"/v1/history">],
  ...(filters.kind && { resourceType: filters.kind as ResourceType }),
  ...(filters.resource.trim() && { resourceId: filters.resource.trim() }),
  ...(filters.operationId && { operationId: filters.operationId }),
  ...(filters.field.trim() && { field: filters.field.trim() }),
  ...(filters.actorKeyId && { actorKeyId: filters.actorKeyId }),
  ...(filters.from && { from: `${filters.from}T00:00:00Z` }),
  ...(filters.to && { to: `${filters.to}T23:59:59.999Z` }),
});

/** The tenant's change records, newest first (or oldest), by the filters. */
export function useHistoryList(filters: ChangeFilters, enabled = true) {
  const { api } = useSession();
  return usePagedQuery<ChangeRecord>(
    queryKeys.history.list(filters),
    async (nextToken) =>
      (await answer(api.GET("/v1/history", { params: { query: { ...historyQuery(filters), limit: 100, ...(nextToken && { nextToken }) } } })))
        .data as Schemas["ChangeRecordPage"],
    { enabled },
  );
}

/** Every record of the filters as CSV (one row per changed field), as the API exports them. */
export const exportHistoryCsv = async (api: ApiClient, filters: ChangeFilters) =>
  (await answer(api.GET("/v1/history", { params: { query: historyQuery(filters) }, ...csvAnswer }))).data as unknown as string;

export type OperationDiff = Schemas["OperationDiff"];
export type DiffItem = OperationDiff["items"][number];

export interface OperationHistoryFilters {
  variant: string;
  kind: string;
}

/** An Operation's change records, newest first (the API's largest pages: a change of 5000 lines is 10 of them): its own, its lines' (one variant's), its attachments'. */
export function useOperationHistory(operationId: string, filters: OperationHistoryFilters) {
  const { api } = useSession();
  const { variant, kind } = filters;
  return usePagedQuery<ChangeRecord>(
    queryKeys.history.ofOperation(operationId, filters),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/operations/{operationId}/history", {
            params: {
              path: { operationId },
              query: {
                limit: API_LIMITS.historyPerPage,
                ...(variant && { variantExternalId: variant }),
                ...(kind && { resourceType: kind as "operation" | "line" | "attachment" }),
                ...(nextToken && { nextToken }),
              },
            },
          }),
        )
      ).data as Schemas["ChangeRecordPage"],
  );
}

/**
 * The difference between version `from` and the current one, a page after another (the first
 * rows show as soon as the first page is in): the Operation's fields and accounts on the first
 * page, the lines on every page.
 */
export function useDiffWithCurrent(operationId: string, from: number | null) {
  const { api } = useSession();
  const diff = useInfiniteQuery({
    queryKey: queryKeys.history.diff(operationId, from ?? 0),
    enabled: from !== null,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await answer(
          api.GET("/v1/operations/{operationId}/diff", {
            params: { path: { operationId }, query: { from: from!, limit: API_LIMITS.diffPerPage, ...(pageParam && { nextToken: pageParam }) } },
          }),
        )
      ).data,
    getNextPageParam: (page) => page.nextToken ?? undefined,
    staleTime: Infinity,
  });
  useEffect(() => {
    if (diff.hasNextPage && !diff.isFetchingNextPage && !diff.error) void diff.fetchNextPage();
  }, [diff.hasNextPage, diff.isFetchingNextPage, diff.error, diff.fetchNextPage]);
  return diff;
}

/** An Operation's operation.reverted events (which version each revert went back to). */
export function useOperationReverts(operationId: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.history.reverts(operationId),
    queryFn: async () => {
      const events: Schemas["Event"][] = [];
      for await (const event of api.paginate("/v1/events", { query: { operationId, types: ["operation.reverted"], limit: 500 } })) events.push(event);
      return events;
    },
  });
}
