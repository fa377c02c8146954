import { operationCoordinator } from "../../operations/coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { batchAnswer, DRY_RUN_ANSWER_HEADERS } from "../../platform/http/batch-answer";
import { dryRunQuery, operationIdParam } from "../../platform/schema/fields";
import { upsertLines } from "../commands";
import { integerCell, isCsvContentType } from "../../platform/http/csv";
import { LINE_CSV_COLUMNS, MAX_LINES_PER_CALL, putLinesBody, putLinesResponse } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/operations/:operationId/lines",
    operationId: "upsertLines",
    summary: "Upsert lines",
    description: [
      `Upserts up to ${MAX_LINES_PER_CALL} lines by variantExternalId, all or nothing. DRAFT only.`,
      "A new line needs minQuantity and maxQuantity (quantityIncrement defaults to 1); on an existing line omitted fields keep their value and the merged line is validated.",
      "minQuantity, maxQuantity and a set recommendedQuantity must be multiples of the line's quantityIncrement (its pack size).",
      "Every line that breaks a rule is reported in errors[] of 422 line_bounds_invalid (index, variantExternalId, field, code min_gt_max | recommended_out_of_bounds | missing_bounds | increment_mismatch, the last once per offending field; one entry per violated rule, ordered by index) and nothing is written.",
      "A variantExternalId repeated within one call is 400 validation_failed, with one errors[] entry (code duplicate_key) per repeat.",
      `More than ${MAX_LINES_PER_CALL} lines: 413 batch_too_large; an empty array: 400. Bumps the Operation's version and records lines.upserted.`,
      "As CSV (Content-Type: text/csv, the columns of the CSV export), variantName is one language's name (the locale header's, else the tenant default): it sets that language and keeps the others; a text equal to the one the export shows for a language the name lacks (another language's, by the fallback) adds nothing. So an exported file imports back unchanged.",
    ].join(" "),
    tag: "Lines",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: dryRunQuery,
    body: putLinesBody,
    batch: { maxItems: MAX_LINES_PER_CALL },
    csvImport: {
      columns: { allowed: LINE_CSV_COLUMNS, required: ["variantExternalId"] },
      toItem: (cells, c) => ({
        variantExternalId: cells.variantExternalId,
        ...(cells.variantName !== undefined && { variantName: { [c.var.scope.locale ?? c.var.principal.tenantDefaultLocale]: cells.variantName } }),
        ...(cells.minQuantity !== undefined && { minQuantity: integerCell(cells.minQuantity) }),
        ...(cells.maxQuantity !== undefined && { maxQuantity: integerCell(cells.maxQuantity) }),
        ...(cells.recommendedQuantity !== undefined && { recommendedQuantity: integerCell(cells.recommendedQuantity) }),
        ...(cells.quantityIncrement !== undefined && { quantityIncrement: integerCell(cells.quantityIncrement) }),
      }),
    },
    responses: {
      200: {
        description: "Lines created and updated, and the Operation's line count after the call.",
        schema: putLinesResponse,
        headers: DRY_RUN_ANSWER_HEADERS,
      },
    },
    errors: ["not_found", "operation_not_draft", "line_bounds_invalid", "batch_too_large", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleUpsertLines(c, { params, query, body }) {
    return batchAnswer(
      c,
      query.dryRun,
      await operationCoordinator(c).run(params.operationId, upsertLines, {
        lines: body,
        dryRun: query.dryRun,
        mergeNames: isCsvContentType(c.req.header("content-type")),
      }),
    );
  },
);
