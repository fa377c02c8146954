import { operationCoordinator } from "../../operations/coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { dryRunQuery, operationIdParam } from "../../platform/schema/fields";
import { removeLines } from "../commands";
import { deleteLinesBody, deleteLinesResponse, MAX_LINES_PER_CALL } from "../schemas";

export default defineRoute(
  {
    method: "delete",
    path: "/v1/operations/:operationId/lines",
    operationId: "deleteLines",
    summary: "Remove lines",
    description: `Removes up to ${MAX_LINES_PER_CALL} lines by variantExternalId. DRAFT only. Keys that are not lines of the Operation are listed in notFound, not refused; a call that removes nothing changes nothing (no version bump, no event). More than ${MAX_LINES_PER_CALL}: 413 batch_too_large; an empty array: 400.`,
    tag: "Lines",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: dryRunQuery,
    body: deleteLinesBody,
    batch: { maxItems: MAX_LINES_PER_CALL },
    responses: {
      200: { description: "Lines removed, keys not found, and the line count after the call.", schema: deleteLinesResponse, headers: DRY_RUN_ANSWER_HEADERS },
    },
    errors: ["not_found", "operation_not_draft", "batch_too_large", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleDeleteLines(c, { params, query, body }) {
    return batchAnswer(c, query.dryRun, await operationCoordinator(c).run(params.operationId, removeLines, { variantExternalIds: body, dryRun: query.dryRun }));
  },
);
