import * as z from "zod";
import { listEnvelope, pathId } from "../platform/schema/fields";
import { commaEnumList, pageQueryShape } from "../platform/schema/list-query";
import type { ListDefinition } from "../platform/data/pagination";
import { webhookDeliveries, webhooks } from "./tables";
import { isEventTypePattern } from "./event-patterns";

/** Subscriptions per tenant: each event is one delivery per matching subscription. */
export const MAX_WEBHOOKS_PER_TENANT = 20;

export const webhookList: ListDefinition = {
  name: "webhooks",
  sortable: { createdAt: webhooks.createdAt },
  id: webhooks.id,
  defaultSort: "createdAt",
  maxLimit: 100,
};

export const deliveryList: ListDefinition = {
  name: "webhook_deliveries",
  sortable: { createdAt: webhookDeliveries.createdAt },
  id: webhookDeliveries.id,
  defaultSort: "-createdAt",
  maxLimit: 500,
};

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

const webhookUrl = z
  .string()
  .min(1)
  .max(2048)
  .describe(
    "Where events are POSTed: https:// to a public host. Private, loopback and link-local addresses are refused (400 validation_failed), except http(s)://127.0.0.1 and http(s)://localhost on an instance run with WEBHOOKS_ALLOW_LOCAL=on (the local default).",
  );

const eventTypes = z
  .array(z.string().min(1).max(100).refine(isEventTypePattern, "must be an event type (order.created), a prefix ending in * (operation.*) or *"))
  .min(1)
  .max(50)
  .refine((patterns) => new Set(patterns).size === patterns.length, "must not repeat a pattern")
  .describe('Event types to deliver: exact ("order.created") or a prefix ending in * ("operation.*"); "*" is every type.');

const description = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .regex(/^[^\p{Cc}]*$/u, "must not contain control characters");

export const createWebhookBody = z
  .strictObject({
    url: webhookUrl,
    eventTypes: eventTypes.optional().describe('Default ["*"]: every event type.'),
    description: description.optional(),
  })
  .meta({
    id: "WebhookCreate",
    examples: [{ url: "https://erp.example.com/hooks/campaigns", eventTypes: ["operation.*", "order.created"], description: "ERP sync" }],
  });
export type CreateWebhookBody = z.output<typeof createWebhookBody>;

export const updateWebhookBody = z
  .strictObject({
    url: webhookUrl.optional(),
    eventTypes: eventTypes.optional(),
    description: description.nullable().optional().describe("null removes it."),
  })
  .meta({ id: "WebhookPatch", examples: [{ eventTypes: ["order.*"], description: null }] });
export type UpdateWebhookBody = z.output<typeof updateWebhookBody>;

export const webhookIdParam = z.strictObject({ webhookId: pathId("The subscription's id (wh_…).") });
export const deliveryIdParam = z.strictObject({ webhookId: webhookIdParam.shape.webhookId, deliveryId: pathId("The delivery's id (dlv_…).") });

export const listWebhooksQuery = z.strictObject(pageQueryShape(webhookList));
export type ListWebhooksQuery = z.output<typeof listWebhooksQuery>;

export const listDeliveriesQuery = z.strictObject({
  ...pageQueryShape(deliveryList),
  status: commaEnumList(DELIVERY_STATUSES, "Comma list of delivery statuses."),
  eventId: pathId("Only the delivery of this event.").optional(),
});
export type ListDeliveriesQuery = z.output<typeof listDeliveriesQuery>;

const WEBHOOK_EXAMPLE = {
  id: "wh_01JQ5F2A4C6E8G0J2K4N6Q8S0T",
  url: "https://erp.example.com/hooks/campaigns",
  eventTypes: ["operation.*", "order.created"],
  description: "ERP sync",
  createdAt: "2026-03-01T08:00:00.000Z",
  updatedAt: "2026-03-01T08:00:00.000Z",
};

export const webhookRepresentation = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    description: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Webhook", examples: [WEBHOOK_EXAMPLE] });
export type WebhookRepresentation = z.infer<typeof webhookRepresentation>;

export const createdWebhookRepresentation = webhookRepresentation
  .extend({
    // Required, as in the first answer: /v1 promised it before replays stopped showing it, and a
    // field of an answer may not become optional inside /v1 (docs/versioning.md).
    secret: z
      .string()
      .describe(
        'The signing secret, shown in this answer only: it is absent from an Idempotency-Key replay (which carries a Warning instead). Each delivery carries svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>.',
      ),
  })
  .meta({ id: "WebhookWithSecret", examples: [{ ...WEBHOOK_EXAMPLE, secret: "whsec_Q2hhbmdlIG1lIHRvIGEgcmVhbCBzZWNyZXQgcGxlYXNl" }] });

export const webhookPage = listEnvelope(webhookRepresentation).meta({ id: "WebhookPage" });

export const deliveryRepresentation = z
  .object({
    id: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES).describe("pending: not yet answered with a 2xx, attempts remain; delivered; failed: every attempt failed."),
    attempts: z.number().int(),
    responseStatus: z.number().int().nullable().describe("The HTTP status of the last attempt (null: no answer, e.g. a timeout)."),
    lastError: z.string().nullable().describe("Why the last attempt failed, when it did."),
    lastAttemptAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable().describe("When the next attempt is due (pending only)."),
    createdAt: z.string(),
  })
  .meta({
    id: "Delivery",
    examples: [
      {
        id: "dlv_01JQ5F3B5D7F9H1K3M5P7R9T1V",
        eventId: "evt_01JQ5D9E1F3G5H7J9K1M3N5P7Q",
        eventType: "order.created",
        status: "pending",
        attempts: 2,
        responseStatus: 503,
        lastError: "answered 503",
        lastAttemptAt: "2026-03-01T09:01:00.000Z",
        nextAttemptAt: "2026-03-01T09:06:00.000Z",
        createdAt: "2026-03-01T09:00:00.000Z",
      },
    ],
  });

export const deliveryPage = listEnvelope(deliveryRepresentation).meta({ id: "DeliveryPage" });
export type DeliveryRepresentation = z.infer<typeof deliveryRepresentation>;
