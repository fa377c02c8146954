import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { updateWebhook } from "../commands";
import { toWebhookRepresentation } from "../queries";
import { updateWebhookBody, webhookIdParam, webhookRepresentation } from "../schemas";

export default defineRoute(
  {
    operationId: "updateWebhook",
    method: "patch",
    path: "/v1/webhooks/:webhookId",
    summary: "Change a webhook subscription",
    description:
      "JSON Merge Patch of url, eventTypes and description. Events committed from the answer on are matched against the new eventTypes and sent to the new url; deliveries already created keep their attempts but go to the new url.",
    tag: "Webhooks",
    roles: ["OPERATOR"],
    params: webhookIdParam,
    body: updateWebhookBody,
    responses: { 200: { description: "The changed subscription.", schema: webhookRepresentation } },
    errors: ["not_found", "idempotency_key_reused"],
  },
  async function handleUpdateWebhook(c, { params, body }) {
    const row = await updateWebhook(writerOf(c, tenantPrimaryDb(c)), params.webhookId, body, c.env.WEBHOOKS_ALLOW_LOCAL === "on");
    return c.json(toWebhookRepresentation(row));
  },
);
