import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { deleteRule } from "../commands";
import { ruleIdParam } from "../schemas";

export default defineRoute(
  {
    method: "delete",
    path: "/v1/buying-policies/quotas/rules/:ruleId",
    operationId: "deleteQuotaRule",
    summary: "Delete a Quotas Rule",
    tag: "Quotas",
    roles: ["OPERATOR"],
    params: ruleIdParam,
    responses: { 204: { description: "Deleted." } },
    errors: ["not_found", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleDeleteQuotaRule(c, { params }) {
    await deleteRule(writerOf(c, tenantPrimaryDb(c)), params.ruleId);
    return c.body(null, 204);
  },
);
