import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { resolveLocale } from "../../platform/core/locale";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listLines, toLineRepresentation } from "../queries";
import { LINE_CSV_COLUMNS, lineList, linePage, listLinesQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/lines",
    operationId: "listLines",
    summary: "List an Operation's lines",
    description:
      "Filters combine with AND. variantName matches a case-insensitive substring in any locale; minQuantity, maxQuantity, recommendedQuantity and quantityIncrement match exact values. Sort by variantName uses the name in the tenant's default locale (else any), lower-cased; lines without a recommendedQuantity sort before 0. ACCOUNT keys read the lines of the Operations they can see.",
    tag: "Lines",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    query: listLinesQuery,
    responses: { 200: { description: "One page of lines.", schema: linePage } },
    csvExport: { columns: LINE_CSV_COLUMNS },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListLines(c, { params, query }) {
    if (acceptsCsv(c.req.header("accept"))) {
      const { locale } = c.var.scope;
      const { tenantDefaultLocale } = c.var.principal;
      return csvListResponse({
        columns: LINE_CSV_COLUMNS,
        filename: `lines-${params.operationId}.csv`,
        readPage: (nextToken) => listLines(listContextOf(c), params.operationId, { ...query, limit: lineList.maxLimit, nextToken }),
        toRow: (row) => [row.variantExternalId, resolveLocale(row.variantName, locale, tenantDefaultLocale).value, row.minQuantity, row.maxQuantity, row.recommendedQuantity, row.quantityIncrement],
      });
    }
    const page = await listLines(listContextOf(c), params.operationId, query);
    return c.json(mapPage(page, toLineRepresentation));
  },
);
