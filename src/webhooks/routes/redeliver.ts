import { tenantPrimaryDb } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { redeliver } from "../commands";
import { toDeliveryRepresentation } from "../queries";
import { deliveryIdParam, deliveryRepresentation } from "../schemas";

export default defineRoute(
  {
    operationId: "redeliverWebhookDelivery",
    method: "post",
    path: "/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    summary: "Send a delivery again",
    description:
      "A delivered or failed delivery becomes pending with a new round of attempts (attempts from 0, the retry delays from the first); its first attempt follows at once, with the same svc-event-id (receivers dedupe on it). A pending delivery is already being attempted: 409 delivery_pending. Writes no change record: no subscription changes.",
    tag: "Webhooks",
    roles: ["OPERATOR"],
    params: deliveryIdParam,
    responses: { 200: { description: "The delivery, pending again.", schema: deliveryRepresentation } },
    errors: ["not_found", "delivery_pending", "idempotency_key_reused"],
  },
  async function handleRedeliver(c, { params }) {
    const { tenantId, shard } = c.var.principal;
    const row = await redeliver(
      { db: tenantPrimaryDb(c), tenantId, shard, queue: c.env.WEBHOOK_QUEUE, requestId: c.var.requestId },
      params.webhookId,
      params.deliveryId,
    );
    return c.json(toDeliveryRepresentation(row));
  },
);
