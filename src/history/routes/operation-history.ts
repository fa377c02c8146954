import { findOperation } from "../../operations/aggregate";
import { ApiError } from "../../platform/core/errors";
import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { HISTORY_CSV_COLUMNS, historyCsvRows } from "../csv";
import { listHistory, operationHasHistory, toChangeRecordRepresentation, type HistoryFilters } from "../queries";
import { historyList, historyPage, operationHistoryQuery, type OperationHistoryQuery } from "../schemas";

/** The Operation's records as the tenant's history filters them: its own, its lines' (one, by variantExternalId), its attachments'. */
function filtersOf(operationId: string, { variantExternalId, ...query }: OperationHistoryQuery): HistoryFilters {
  return { ...query, operationId, ...(variantExternalId !== undefined && { resourceType: "line", resourceId: variantExternalId }) };
}

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/history",
    operationId: "listOperationHistory",
    summary: "Read an Operation's change history",
    description:
      "The change records of one Operation, its lines, its attachments and its approvals, newest first (as GET /v1/history with operationId). An Operation deleted since keeps its history here. Each record names the version the change made (an approval makes none). variantExternalId narrows to one line's records.",
    tag: "History",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: operationHistoryQuery,
    responses: { 200: { description: "One page of change records.", schema: historyPage } },
    csvExport: { columns: HISTORY_CSV_COLUMNS },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListOperationHistory(c, { params, query }) {
    const { tenantId } = c.var.principal;
    const [now, before] = await Promise.all([
      findOperation(c.var.db, tenantId, params.operationId),
      operationHasHistory(c.var.db, tenantId, params.operationId),
    ]);
    if (!now && !before) {
      throw new ApiError("not_found", `Operation ${params.operationId} not found.`);
    }
    const filters = filtersOf(params.operationId, query);
    if (acceptsCsv(c.req.header("accept"))) {
      return csvListResponse({
        columns: HISTORY_CSV_COLUMNS,
        filename: `history-${params.operationId}.csv`,
        readPage: (nextToken) => listHistory(listContextOf(c), { ...filters, limit: historyList.maxLimit, nextToken }),
        toRows: (row) => historyCsvRows(toChangeRecordRepresentation(row)),
      });
    }
    return c.json(mapPage(await listHistory(listContextOf(c), filters), toChangeRecordRepresentation));
  },
);
