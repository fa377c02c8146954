import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { listWebhooks, toWebhookRepresentation } from "../queries";
import { listWebhooksQuery, webhookPage } from "../schemas";

export default defineRoute(
  {
    operationId: "listWebhooks",
    method: "get",
    path: "/v1/webhooks",
    summary: "List webhook subscriptions",
    description: "The tenant's subscriptions, oldest first by default. Never shows a secret.",
    tag: "Webhooks",
    roles: ["OPERATOR"],
    query: listWebhooksQuery,
    responses: { 200: { description: "One page.", schema: webhookPage } },
    errors: ["invalid_next_token"],
  },
  async function handleListWebhooks(c, { query }) {
    const page = await listWebhooks(listContextOf(c), query);
    return c.json(mapPage(page, ({ row }) => toWebhookRepresentation(row)));
  },
);
