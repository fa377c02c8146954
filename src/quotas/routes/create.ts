import { writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { createRule } from "../commands";
import { toRuleRepresentation } from "../queries";
import { ruleBody, ruleRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/buying-policies/quotas/rules",
    operationId: "createQuotaRule",
    summary: "Create a Quotas Rule",
    description:
      "At least one of accountId and supplierId is set; storeId null makes the rule apply in every store. The scope (accountId, supplierId, storeId) is unique in the tenant. Evaluation in this Worker instance sees the rule at once, everywhere else within 1 s.",
    tag: "Quotas",
    roles: ["OPERATOR"],
    body: ruleBody,
    responses: { 201: { description: "Created.", schema: ruleRepresentation, headers: { Location: "URL of the new rule" } } },
    errors: ["duplicate_scope", "idempotency_key_reused"],
  },
  async function handleCreateQuotaRule(c, { body }) {
    const row = await createRule(writerOf(c), body);
    c.header("Location", `/v1/buying-policies/quotas/rules/${row.id}`);
    return c.json(toRuleRepresentation(row), 201);
  },
);
