import { defineRoute } from "../../platform/http/routes";
import { getWebhook, toWebhookRepresentation } from "../queries";
import { webhookIdParam, webhookRepresentation } from "../schemas";

export default defineRoute(
  {
    operationId: "getWebhook",
    method: "get",
    path: "/v1/webhooks/:webhookId",
    summary: "Read a webhook subscription",
    tag: "Webhooks",
    roles: ["OPERATOR"],
    params: webhookIdParam,
    responses: { 200: { description: "The subscription (never its secret).", schema: webhookRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetWebhook(c, { params }) {
    return c.json(toWebhookRepresentation(await getWebhook(c.var.db, c.var.principal.tenantId, params.webhookId)));
  },
);
