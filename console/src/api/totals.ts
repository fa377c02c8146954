import type { Schemas } from "@campaign-policy/client";
import { useQuery } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer } from "../shared/session";

/** An Operation's figures while it runs: its totals, its accounts' and days', its refusals, its lines by what was ordered. */

export type OperationTotals = Schemas["OperationTotals"];
export type AccountTotals = Schemas["AccountTotals"];
export type DailyTotals = Schemas["DailyTotals"];
export type BlockedEvent = Schemas["Event"];
export type Line = Schemas["Line"];

export function useOperationTotals(operationId: string, { enabled = true } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.totals.figures(operationId),
    enabled,
    queryFn: async () => (await answer(api.GET("/v1/operations/{operationId}/totals", { params: { path: { operationId } } }))).data,
  });
}

/** The accounts without a PLACED order (attached ones that have not ordered, those refused or cancelled only): the buyers to chase. */
export function useAccountsNotOrdered(operationId: string) {
  const { api } = useSession();
  return usePagedQuery<AccountTotals>(
    queryKeys.totals.accounts(operationId, { ordered: false }),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/operations/{operationId}/totals/accounts", {
            params: { path: { operationId }, query: { ordered: "false", limit: 100, ...(nextToken && { nextToken }) } },
          }),
        )
      ).data as Schemas["AccountTotalsPage"],
  );
}

/** Orders, cancellations and refusals per UTC day, the last 30 days. */
export function useDailyTotals(operationId: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.totals.daily(operationId),
    queryFn: async () => (await answer(api.GET("/v1/operations/{operationId}/totals/daily", { params: { path: { operationId } } }))).data,
  });
}

/** The Operation's order.blocked events, newest first: each a placement refused below a minimum. */
export function useRefusals(operationId: string) {
  const { api } = useSession();
  return usePagedQuery<BlockedEvent>(
    queryKeys.totals.refusals(operationId),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/events", { params: { query: { operationId, types: ["order.blocked"], sort: ["-id"], limit: 20, ...(nextToken && { nextToken }) } } }),
        )
      ).data as Schemas["EventPage"],
  );
}

/** The lines least ordered first (the API's `orderedQuantity` sort), a page at a time: where the ones below their recommended quantity stand. */
export function useLinesByOrdered(operationId: string) {
  const { api } = useSession();
  return usePagedQuery<Line>(
    queryKeys.totals.lines(operationId),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/operations/{operationId}/lines", {
            params: { path: { operationId }, query: { sort: ["orderedQuantity", "variantExternalId"], limit: 50, ...(nextToken && { nextToken }) } },
          }),
        )
      ).data as Schemas["LinePage"],
  );
}
