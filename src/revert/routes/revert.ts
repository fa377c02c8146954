import * as z from "zod";
import { operationCoordinator } from "../../operations/coordinator/runner";
import { toOperationRepresentation } from "../../operations/queries";
import { operationRepresentation } from "../../operations/schemas";
import { setETag } from "../../operations/routes/etag";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { defineRoute } from "../../platform/http/routes";
import { dryRunQuery, operationIdParam } from "../../platform/schema/fields";
import { revertOperation } from "../commands";

const revertBody = z
  .strictObject({ toVersion: z.number().int().min(1).describe("The version to go back to (its history must cover it).") })
  .meta({ id: "RevertRequest", examples: [{ toVersion: 5 }] });

const revertCounts = z
  .object({
    fields: z.number().int().describe("The Operation's fields it changes back (not its status or schedule)."),
    linesUpserted: z.number().int().describe("Lines it brings back or sets back."),
    linesRemoved: z.number().int().describe("Lines added since, which it removes."),
    accountsAttached: z.number().int(),
    accountsDetached: z.number().int(),
  })
  .meta({ id: "RevertCounts" });

const revertResult = operationRepresentation
  .extend({ reverted: revertCounts.describe("What the revert changed (on a dry run: would change).") })
  .meta({ id: "RevertResult" });

export default defineRoute(
  {
    method: "post",
    path: "/v1/operations/:operationId/revert",
    operationId: "revertOperation",
    summary: "Revert an Operation to a version",
    description:
      "Makes the Operation's fields (not its status or schedule), lines and attachments what they were at toVersion, as one new version, through the same serialized path as any batch edit: If-Match is honoured, dryRun=true answers what it would change and changes nothing. DRAFT only (409 operation_not_draft). It writes change records like any edit and an operation.reverted event { fromVersion, toVersion }. A version the history does not cover: 404 version_not_found; a code another Operation took since: 409 duplicate_code.",
    tag: "History",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: dryRunQuery,
    body: revertBody,
    headers: ["If-Match"],
    responses: {
      200: {
        description: "The Operation after the revert, and what it changed.",
        schema: revertResult,
        headers: { ...DRY_RUN_ANSWER_HEADERS, ETag: "Its new version" },
      },
    },
    errors: ["not_found", "version_not_found", "operation_not_draft", "version_mismatch", "duplicate_code", "idempotency_key_reused"],
  },
  async function handleRevertOperation(c, { params, query, body }) {
    const { operation, counts } = await operationCoordinator(c).run(params.operationId, revertOperation, {
      toVersion: body.toVersion,
      ifMatch: c.req.header("if-match"),
      dryRun: query.dryRun,
    });
    if (!query.dryRun) setETag(c, operation.version);
    return batchAnswer(c, query.dryRun, { ...toOperationRepresentation(operation), reverted: counts });
  },
);
