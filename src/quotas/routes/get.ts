import { ApiError } from "../../platform/core/errors";
import { defineRoute } from "../../platform/http/routes";
import { findRule, toRuleRepresentation } from "../queries";
import { ruleIdParam, ruleRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/buying-policies/quotas/rules/:ruleId",
    operationId: "getQuotaRule",
    summary: "Read a Quotas Rule",
    tag: "Quotas",
    roles: ["OPERATOR"],
    params: ruleIdParam,
    responses: { 200: { description: "The rule.", schema: ruleRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetQuotaRule(c, { params }) {
    const row = await findRule(c.var.db, c.var.principal.tenantId, params.ruleId);
    if (!row) throw new ApiError("not_found", `Quotas Rule ${params.ruleId} not found.`);
    return c.json(toRuleRepresentation(row));
  },
);
