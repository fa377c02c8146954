import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { dryRunQuery } from "../../platform/schema/fields";
import { defineRoute } from "../../platform/http/routes";
import { deleteRules } from "../commands";
import { deleteRulesBody, deleteRulesResponse, MAX_RULES_PER_CALL } from "../schemas";

export default defineRoute(
  {
    method: "delete",
    path: "/v1/buying-policies/quotas/rules",
    operationId: "deleteQuotaRules",
    summary: "Delete Quotas Rules in bulk",
    description: `Deletes up to ${MAX_RULES_PER_CALL} of the tenant's rules by id, all or nothing; ids that are not rules of the tenant are listed in notFound, not refused. One rules.deleted event and one rule-index version bump (none when nothing is deleted).`,
    tag: "Quotas",
    roles: ["OPERATOR"],
    query: dryRunQuery,
    body: deleteRulesBody,
    batch: { maxItems: MAX_RULES_PER_CALL },
    responses: {
      200: { description: "How many were deleted, and the ids that were not rules.", schema: deleteRulesResponse, headers: DRY_RUN_ANSWER_HEADERS },
    },
    errors: ["batch_too_large", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleDeleteQuotaRules(c, { query, body }) {
    return batchAnswer(c, query.dryRun, await deleteRules(writerOf(c, tenantPrimaryDb(c)), body, { dryRun: query.dryRun }));
  },
);
