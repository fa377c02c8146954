import type { Schemas } from "@campaign-policy/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, type SortOf } from "../shared/session";

/** Webhook subscriptions and their deliveries. */

export type Webhook = Schemas["Webhook"];
export type Delivery = Schemas["Delivery"];
export type DeliveryStatus = Delivery["status"];

export function useWebhookList(sort: string) {
  const { api } = useSession();
  return usePagedQuery(
    queryKeys.webhooks.list({ sort }),
    async (nextToken) =>
      (await answer(api.GET("/v1/webhooks", { params: { query: { limit: 100, sort: [sort as SortOf<"/v1/webhooks">], ...(nextToken && { nextToken }) } } })))
        .data,
  );
}

/** Every subscription by id (a tenant has at most 20: one page), to name a webhook by its URL where the API answers its id. */
export function useWebhooksById() {
  const { api, session } = useSession();
  return useQuery({
    queryKey: queryKeys.webhooks.byId,
    enabled: session.role === "OPERATOR",
    staleTime: 60_000,
    queryFn: async () => new Map((await answer(api.GET("/v1/webhooks", { params: { query: { limit: 100 } } }))).data.items.map((hook) => [hook.id, hook])),
  });
}

/** How often an open deliveries list asks again (attempts happen in the background). */
const DELIVERIES_REFRESH_MS = 3000;

export function useDeliveryList(webhookId: string, status: string) {
  const { api } = useSession();
  return usePagedQuery(
    queryKeys.deliveries.list(webhookId, { status }),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/webhooks/{webhookId}/deliveries", {
            params: { path: { webhookId }, query: { limit: 100, ...(status && { status: [status as DeliveryStatus] }), ...(nextToken && { nextToken }) } },
          }),
        )
      ).data,
    { refetchInterval: DELIVERIES_REFRESH_MS },
  );
}

export function useDeleteWebhook(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (webhook: Webhook) => answer(api.DELETE("/v1/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id } } })),
    onSuccess: () => {
      onDone();
      return queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all });
    },
  });
}

export interface WebhookFields {
  url: string;
  eventTypes: string[];
  description: string | null;
}

/** Subscribes (no webhook given: answers the signing secret, shown once) or changes a subscription. */
export function useSaveWebhook(webhook: Webhook | undefined, onDone: (secret?: string) => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ url, eventTypes, description }: WebhookFields) => {
      if (!webhook)
        return (await answer(api.POST("/v1/webhooks", { body: { url, ...(eventTypes.length && { eventTypes }), ...(description && { description }) } }))).data
          .secret;
      await answer(api.PATCH("/v1/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id } }, body: { url, eventTypes, description } }));
      return undefined;
    },
    onSuccess: (secret) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all });
      onDone(secret);
    },
  });
}

/** Sends a delivered or failed delivery again; the deliveries list shows it pending, then its outcome. */
export function useRedeliver(webhookId: string) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (delivery: Delivery) =>
      (await answer(api.POST("/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", { params: { path: { webhookId, deliveryId: delivery.id } } }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.deliveries.of(webhookId) }),
  });
}

/**
 * A subscription's failing deliveries (for its row in the list): the ones that failed after every
 * attempt, and the pending ones whose last attempt failed (retried for a day and more before they fail).
 */
export function useFailingDeliveries(webhookId: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.deliveries.failing(webhookId),
    refetchInterval: 10_000,
    queryFn: async () =>
      (await answer(api.GET("/v1/webhooks/{webhookId}/deliveries", { params: { path: { webhookId }, query: { limit: 100, status: ["failed", "pending"] } } })))
        .data,
    select: (page) => ({
      failing: page.items.filter((delivery) => delivery.status === "failed" || delivery.lastError !== null),
      more: page.nextToken !== null,
    }),
  });
}
