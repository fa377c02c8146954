import type { ApiClient, Schemas } from "@campaign-policy/client";
import { useQuery } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { API_LIMITS } from "../shared/limits";
import { queryKeys } from "../shared/queryKeys";
import { answer } from "../shared/session";

/** An Operation's pools and caps as the console reads and writes them: the lines' allocations, accounts' own caps, a plan of caps. */

export type LineAllocation = Schemas["AllocationsWrite"][number];
export type AccountCap = Schemas["AccountCap"];
export type CapWrite = Schemas["AccountCapsWrite"][number];
export type PlanRequest = Omit<Schemas["AllocationPlanRequest"], "limit" | "nextToken">;
export type PlannedCap = Schemas["AllocationPlan"]["items"][number];
export type AllocationCounts = { updated: number; unchanged: number };
export type CapCounts = { set: number; removed: number; unchanged: number };

const path = (operationId: string) => ({ path: { operationId } });

/** PUT …/allocations: pools and caps per account of lines (an omitted field keeps its value), checked against `ifMatch`. */
export async function putAllocations(
  api: ApiClient,
  operationId: string,
  entries: LineAllocation[],
  dryRun: boolean,
  ifMatch: string,
): Promise<AllocationCounts> {
  const { data } = await answer(
    api.PUT("/v1/operations/{operationId}/allocations", {
      params: { ...path(operationId), query: { dryRun }, header: { "If-Match": ifMatch } },
      body: entries,
    }),
  );
  return { updated: data.updated, unchanged: data.unchanged };
}

/** PUT …/allocations/accounts: accounts' own caps on lines (maxQuantity null removes one), checked against `ifMatch`. */
export async function putAccountCaps(api: ApiClient, operationId: string, entries: CapWrite[], dryRun: boolean, ifMatch: string): Promise<CapCounts> {
  const { data } = await answer(
    api.PUT("/v1/operations/{operationId}/allocations/accounts", {
      params: { ...path(operationId), query: { dryRun }, header: { "If-Match": ifMatch } },
      body: entries,
    }),
  );
  return { set: data.set, removed: data.removed, unchanged: data.unchanged };
}

/** Every account's own cap on the lines `variantIds`, with what each ordered of it: every page, the variants a query's worth at a time. */
export async function fetchAccountCaps(api: ApiClient, operationId: string, variantIds: readonly string[]): Promise<AccountCap[]> {
  const caps: AccountCap[] = [];
  for (let offset = 0; offset < variantIds.length; offset += API_LIMITS.capVariantIdsPerQuery) {
    const chunk = variantIds.slice(offset, offset + API_LIMITS.capVariantIdsPerQuery);
    let nextToken: string | undefined;
    do {
      const query = { variantIds: chunk, limit: API_LIMITS.capsPerPage, ...(nextToken && { nextToken }) };
      const { data } = await answer(api.GET("/v1/operations/{operationId}/allocations/accounts", { params: { ...path(operationId), query } }));
      caps.push(...data.items);
      nextToken = data.nextToken ?? undefined;
    } while (nextToken);
  }
  return caps;
}

/** The accounts' own caps on one line (none asked without a line). */
export function useLineCaps(operationId: string, variantExternalId: string | null) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.allocations.caps(operationId, variantExternalId ?? ""),
    enabled: variantExternalId !== null,
    queryFn: () => fetchAccountCaps(api, operationId, [variantExternalId!]),
  });
}

/** A whole plan (POST …/allocations/plan, its pages one after another): it changes nothing. `onPage` says how many caps are in so far. */
export async function fetchPlan(api: ApiClient, operationId: string, request: PlanRequest, onPage?: (caps: number) => void): Promise<PlannedCap[]> {
  const caps: PlannedCap[] = [];
  let nextToken: string | undefined;
  do {
    const body = { ...request, limit: API_LIMITS.capsPerPut, ...(nextToken && { nextToken }) };
    const { data } = await answer(api.POST("/v1/operations/{operationId}/allocations/plan", { params: path(operationId), body }));
    caps.push(...data.items);
    onPage?.(caps.length);
    nextToken = data.nextToken ?? undefined;
  } while (nextToken);
  return caps;
}
