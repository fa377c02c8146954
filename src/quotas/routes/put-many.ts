import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { dryRunQuery } from "../../platform/schema/fields";
import { defineRoute } from "../../platform/http/routes";
import { upsertRules } from "../commands";
import { integerCell } from "../../platform/http/csv";
import { MAX_RULES_PER_CALL, RULE_CSV_COLUMNS, upsertRulesBody, upsertRulesResponse } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/buying-policies/quotas/rules",
    operationId: "upsertQuotaRules",
    summary: "Upsert Quotas Rules in bulk",
    description: [
      `Upserts up to ${MAX_RULES_PER_CALL} rules by scope (accountId, supplierId, storeId), all or nothing: a new scope creates a rule, a known one takes the minimum and enforcement sent (enforcement omitted: BLOCK).`,
      "Answers how many were created, updated and unchanged. One rules.upserted event and one rule-index version bump for the whole call (none when nothing changes); evaluation in this Worker instance sees the rules at once, everywhere else within 1 s.",
      `A scope repeated within one call is 400 validation_failed (code duplicate_key, one entry per repeat). More than ${MAX_RULES_PER_CALL}: 413 batch_too_large.`,
    ].join(" "),
    tag: "Quotas",
    roles: ["OPERATOR"],
    query: dryRunQuery,
    body: upsertRulesBody,
    batch: { maxItems: MAX_RULES_PER_CALL },
    csvImport: {
      columns: { allowed: RULE_CSV_COLUMNS, required: ["minimum"] },
      toItem: (cells) => ({
        accountId: cells.accountId ?? null,
        supplierId: cells.supplierId ?? null,
        storeId: cells.storeId ?? null,
        minimum: integerCell(cells.minimum),
        ...(cells.enforcement !== undefined && { enforcement: cells.enforcement }),
      }),
    },
    responses: { 200: { description: "What the call created, updated and left unchanged.", schema: upsertRulesResponse, headers: DRY_RUN_ANSWER_HEADERS } },
    errors: ["batch_too_large", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleUpsertQuotaRules(c, { query, body }) {
    return batchAnswer(c, query.dryRun, await upsertRules(writerOf(c, tenantPrimaryDb(c)), body, { dryRun: query.dryRun }));
  },
);
