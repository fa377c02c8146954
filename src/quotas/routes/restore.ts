import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { restoreRule } from "../commands";
import { toRuleRepresentation } from "../queries";
import { ruleIdParam, ruleRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/buying-policies/quotas/rules/:ruleId/restore",
    operationId: "restoreQuotaRule",
    summary: "Restore a deleted Quotas Rule",
    description:
      "Brings a deleted rule back under its id with the values it had when it was deleted (its change history keeps them). A rule of that id that exists: 409 rule_exists; its scope taken by another rule since: 409 duplicate_scope; an id that was never a rule of the tenant: 404.",
    tag: "Quotas",
    roles: ["OPERATOR"],
    params: ruleIdParam,
    responses: { 201: { description: "Restored.", schema: ruleRepresentation, headers: { Location: "URL of the rule" } } },
    errors: ["not_found", "rule_exists", "duplicate_scope", "idempotency_key_reused"],
  },
  async function handleRestoreQuotaRule(c, { params }) {
    const row = await restoreRule(writerOf(c, tenantPrimaryDb(c)), params.ruleId, c.env.HISTORY_ARCHIVE);
    c.header("Location", `/v1/buying-policies/quotas/rules/${row.id}`);
    return c.json(toRuleRepresentation(row), 201);
  },
);
