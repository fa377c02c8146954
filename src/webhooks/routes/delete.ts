import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { deleteWebhook } from "../commands";
import { webhookIdParam } from "../schemas";

export default defineRoute(
  {
    operationId: "deleteWebhook",
    method: "delete",
    path: "/v1/webhooks/:webhookId",
    summary: "Delete a webhook subscription",
    description: "Stops every delivery to it, pending retries included, and deletes its delivery records.",
    tag: "Webhooks",
    roles: ["OPERATOR"],
    params: webhookIdParam,
    responses: { 204: { description: "Deleted." } },
    errors: ["not_found", "idempotency_key_reused"],
  },
  async function handleDeleteWebhook(c, { params }) {
    await deleteWebhook(writerOf(c, tenantPrimaryDb(c)), params.webhookId);
    return c.body(null, 204);
  },
);
