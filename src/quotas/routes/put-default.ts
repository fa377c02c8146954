import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { setQuotaDefault } from "../commands";
import { quotaDefaultBody, quotaDefaultRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/buying-policies/quotas/default",
    operationId: "setQuotaDefault",
    summary: "Set the tenant's default minimum",
    description: "enforcement omitted: BLOCK. Evaluation in this Worker instance sees the new default at once, everywhere else within 1 s.",
    tag: "Quotas",
    roles: ["OPERATOR"],
    body: quotaDefaultBody,
    responses: { 200: { description: "The default as stored.", schema: quotaDefaultRepresentation } },
    errors: ["idempotency_key_reused"],
  },
  async function handleSetQuotaDefault(c, { body }) {
    await setQuotaDefault(writerOf(c, tenantPrimaryDb(c)), body);
    return c.json({ minimum: body.minimum, enforcement: body.enforcement });
  },
);
