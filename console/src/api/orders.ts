import type { ApiClient, Schemas } from "@campaign-policy/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, csvAnswer, type QueryOf, type SortOf } from "../shared/session";

/** An Operation's orders: the list with its filters, its CSV, and cancelling one. */

export type Order = Schemas["Order"];
export type OrderStatus = Order["status"];
export type OrderSort = SortOf<"/v1/operations/{operationId}/orders">;
type OrderQuery = QueryOf<"/v1/operations/{operationId}/orders">;

export interface OrderFilters {
  status: string;
  account: string;
  /** Whole UTC days (YYYY-MM-DD), both included. */
  from: string;
  to: string;
  variant: string;
  sort: string;
}

const orderQuery = (filters: OrderFilters): OrderQuery => ({
  sort: [filters.sort as OrderSort],
  ...(filters.status && { status: [filters.status as OrderStatus] }),
  ...(filters.account.trim() && { accountIds: [filters.account.trim()] }),
  ...(filters.from && { from: `${filters.from}T00:00:00Z` }),
  ...(filters.to && { to: `${filters.to}T23:59:59Z` }),
  ...(filters.variant.trim() && { variantExternalId: filters.variant.trim() }),
});

export function useOrderList(operationId: string, filters: OrderFilters) {
  const { api } = useSession();
  return usePagedQuery<Order>(
    queryKeys.orders.list(operationId, filters),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/operations/{operationId}/orders", {
            params: { path: { operationId }, query: { ...orderQuery(filters), limit: 100, ...(nextToken && { nextToken }) } },
          }),
        )
      ).data as Schemas["OrderPage"],
  );
}

/** Every order of the filters as CSV, as the API exports them (one row per order, amounts in minor units). */
export const exportOrdersCsv = async (api: ApiClient, operationId: string, filters: OrderFilters) =>
  (await answer(api.GET("/v1/operations/{operationId}/orders", { params: { path: { operationId }, query: orderQuery(filters) }, ...csvAnswer })))
    .data as unknown as string;

/** Cancels an order with its reason: the orders, the Operation's figures and its lines' ordered quantities read again. */
export function useCancelOrder(operationId: string, onDone: (order: Order) => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ order, reason }: { order: Order; reason: string }) =>
      (await answer(api.POST("/v1/orders/{orderId}/cancel", { params: { path: { orderId: order.id } }, body: reason.trim() ? { reason: reason.trim() } : {} })))
        .data,
    onSuccess: (order) => {
      for (const queryKey of [
        queryKeys.orders.of(operationId),
        queryKeys.totals.of(operationId),
        queryKeys.lines.of(operationId),
        queryKeys.operation(operationId),
      ])
        void queryClient.invalidateQueries({ queryKey });
      onDone(order);
    },
  });
}
