import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { updateRule } from "../commands";
import { toRuleRepresentation } from "../queries";
import { ruleBody, ruleIdParam, ruleRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/buying-policies/quotas/rules/:ruleId",
    operationId: "replaceQuotaRule",
    summary: "Replace a Quotas Rule",
    description:
      "Takes the full representation minus id and timestamps: a scope key left out becomes null. Moving the rule onto the scope of another rule answers 409 duplicate_scope.",
    tag: "Quotas",
    roles: ["OPERATOR"],
    params: ruleIdParam,
    body: ruleBody,
    responses: { 200: { description: "The rule as stored.", schema: ruleRepresentation } },
    errors: ["not_found", "duplicate_scope", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleReplaceQuotaRule(c, { params, body }) {
    const row = await updateRule(writerOf(c, tenantPrimaryDb(c)), params.ruleId, body);
    return c.json(toRuleRepresentation(row));
  },
);
