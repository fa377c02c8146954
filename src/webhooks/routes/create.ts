import { writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { createWebhook } from "../commands";
import { toWebhookRepresentation } from "../queries";
import { createdWebhookRepresentation, createWebhookBody } from "../schemas";

export default defineRoute(
  {
    operationId: "createWebhook",
    method: "post",
    path: "/v1/webhooks",
    summary: "Subscribe to events",
    description:
      'Every event of a matching type is POSTed to `url` as its JSON representation (as GET /v1/events lists it), with headers svc-webhook-id, svc-event-id and svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>. Verify the signature over the raw body and reject old timestamps. A 2xx within 10 s is a delivery; anything else is retried 7 more times over 32.6 hours (1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 12 h), then the delivery is failed. Delivery is at least once: dedupe on svc-event-id. The answer shows the signing `secret` once; no later answer does, nor a replay with the same Idempotency-Key (it answers the same 201 without `secret` and with a Warning: the secret is not stored anywhere to be shown again).',
    tag: "Webhooks",
    roles: ["OPERATOR"],
    body: createWebhookBody,
    responses: { 201: { description: "Subscribed.", schema: createdWebhookRepresentation, headers: { Location: "URL of the new subscription" } } },
    errors: ["too_many_webhooks", "idempotency_key_reused"],
    shownOnce: {
      fields: ["secret"],
      warning: (answer) => `The signing secret was shown once, in the first answer; delete webhook ${answer.id} and subscribe again if it was lost.`,
    },
  },
  async function handleCreateWebhook(c, { body }) {
    const row = await createWebhook(writerOf(c), body, c.env.WEBHOOKS_ALLOW_LOCAL === "on");
    c.header("Location", `/v1/webhooks/${row.id}`);
    c.header("Cache-Control", "no-store");
    return c.json({ ...toWebhookRepresentation(row), secret: row.secret }, 201);
  },
);
