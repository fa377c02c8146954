import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { getWebhook, listDeliveries, toDeliveryRepresentation } from "../queries";
import { deliveryPage, listDeliveriesQuery, webhookIdParam } from "../schemas";

export default defineRoute(
  {
    operationId: "listWebhookDeliveries",
    method: "get",
    path: "/v1/webhooks/:webhookId/deliveries",
    summary: "List a subscription's deliveries",
    description: "One record per event sent to the subscription, newest first by default, with its attempts and the last answer.",
    tag: "Webhooks",
    roles: ["OPERATOR"],
    params: webhookIdParam,
    query: listDeliveriesQuery,
    responses: { 200: { description: "One page.", schema: deliveryPage } },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListWebhookDeliveries(c, { params, query }) {
    const context = listContextOf(c);
    await getWebhook(context.db, context.principal.tenantId, params.webhookId);
    const page = await listDeliveries(context, params.webhookId, query);
    return c.json(mapPage(page, ({ row }) => toDeliveryRepresentation(row)));
  },
);
