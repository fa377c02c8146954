import { and, eq } from "drizzle-orm";
import type { Db } from "../platform/data/database";
import { inJsonList } from "../platform/data/sql";
import { ApiError } from "../platform/core/errors";
import { listPage, selectRows, type ListContext } from "../platform/data/pagination";
import { webhookDeliveries, webhooks } from "./tables";
import {
  deliveryList,
  webhookList,
  type DeliveryRepresentation,
  type ListDeliveriesQuery,
  type ListWebhooksQuery,
  type WebhookRepresentation,
} from "./schemas";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export function toWebhookRepresentation(row: WebhookRow): WebhookRepresentation {
  return { id: row.id, url: row.url, eventTypes: row.eventTypes, description: row.description, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

export function toDeliveryRepresentation(row: DeliveryRow): DeliveryRepresentation {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.responseStatus,
    lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
  };
}

/** The tenant's subscription, or 404: another tenant's id is as unknown as a made-up one. */
export async function getWebhook(db: Db, tenantId: string, webhookId: string): Promise<WebhookRow> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.id, webhookId)))
    .limit(1);
  if (!row) throw new ApiError("not_found", `Webhook ${webhookId} not found.`);
  return row;
}

export function listWebhooks({ db, secret, principal }: ListContext, query: ListWebhooksQuery) {
  return listPage({
    definition: webhookList,
    secret,
    scope: { tenant: principal.tenantId },
    query,
    filters: [eq(webhooks.tenantId, principal.tenantId)],
    run: selectRows(db, webhooks),
  });
}

export function listDeliveries({ db, secret, principal }: ListContext, webhookId: string, query: ListDeliveriesQuery) {
  return listPage({
    definition: deliveryList,
    secret,
    scope: { tenant: principal.tenantId, webhook: webhookId },
    query,
    filters: [
      eq(webhookDeliveries.tenantId, principal.tenantId),
      eq(webhookDeliveries.webhookId, webhookId),
      query.status && inJsonList(webhookDeliveries.status, query.status),
      query.eventId !== undefined ? eq(webhookDeliveries.eventId, query.eventId) : undefined,
    ],
    run: selectRows(db, webhookDeliveries),
  });
}
