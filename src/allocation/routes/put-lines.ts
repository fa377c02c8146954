import { operationCoordinator } from "../../operations/coordinator/runner";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { defineRoute } from "../../platform/http/routes";
import { dryRunQuery, operationIdParam } from "../../platform/schema/fields";
import { setAllocations } from "../commands";
import { allocationsBody, allocationsResponse, MAX_ALLOCATIONS_PER_CALL } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/operations/:operationId/allocations",
    operationId: "setAllocations",
    summary: "Set lines' pools and caps per account",
    description: `Up to ${MAX_ALLOCATIONS_PER_CALL} lines, all or nothing, in any status (ACTIVE included: supply changes while buyers order): poolQuantity (units all buyers together may order; null: unlimited) and maxPerAccount (what one account may order in all; null: none); an omitted field keeps its value. A pool or cap below what is already ordered: 409 allocation_below_ordered with the lines; a variant that is not a line: 422 unknown_variants. One version, an allocation.updated event, change records (resource type allocation). Orders never exceed what is left (409 allocation_exceeded).`,
    tag: "Allocation",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: dryRunQuery,
    headers: ["If-Match"],
    body: allocationsBody,
    batch: { maxItems: MAX_ALLOCATIONS_PER_CALL },
    responses: { 200: { description: "Lines changed and left as they were.", schema: allocationsResponse, headers: DRY_RUN_ANSWER_HEADERS } },
    errors: ["not_found", "unknown_variants", "allocation_below_ordered", "batch_too_large", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleSetAllocations(c, { params, query, body }) {
    return batchAnswer(
      c,
      query.dryRun,
      await operationCoordinator(c).run(params.operationId, setAllocations, { entries: body, ifMatch: c.req.header("if-match"), dryRun: query.dryRun }),
    );
  },
);
