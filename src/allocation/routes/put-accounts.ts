import { operationCoordinator } from "../../operations/coordinator/runner";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { defineRoute } from "../../platform/http/routes";
import { dryRunQuery, operationIdParam } from "../../platform/schema/fields";
import { setAccountCaps } from "../commands";
import { accountCapsBody, accountCapsResponse, MAX_ALLOCATIONS_PER_CALL } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/operations/:operationId/allocations/accounts",
    operationId: "setAccountCaps",
    summary: "Set accounts' own caps on lines",
    description: `Up to ${MAX_ALLOCATIONS_PER_CALL} (variantExternalId, accountId, maxQuantity), all or nothing, in any status: the account may order that much of the line in all, instead of the line's maxPerAccount (a key account gets 500 where others get 100); maxQuantity null removes its own cap. A cap above the pool is allowed but never lets the pool be exceeded. Below what the account already ordered: 409 allocation_below_ordered; a variant that is not a line: 422 unknown_variants; an account outside the directory: 422 unknown_accounts. One version, an allocation.updated event, change records (resource type account_cap).`,
    tag: "Allocation",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: dryRunQuery,
    headers: ["If-Match"],
    body: accountCapsBody,
    batch: { maxItems: MAX_ALLOCATIONS_PER_CALL },
    responses: { 200: { description: "Caps set, removed and left as they were.", schema: accountCapsResponse, headers: DRY_RUN_ANSWER_HEADERS } },
    errors: ["not_found", "unknown_variants", "unknown_accounts", "allocation_below_ordered", "batch_too_large", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleSetAccountCaps(c, { params, query, body }) {
    return batchAnswer(
      c,
      query.dryRun,
      await operationCoordinator(c).run(params.operationId, setAccountCaps, { entries: body, ifMatch: c.req.header("if-match"), dryRun: query.dryRun }),
    );
  },
);
