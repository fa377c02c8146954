import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { resolveLocale } from "../../platform/core/locale";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listLines, listLinesAsOf, toLineRepresentation } from "../queries";
import { LINE_CSV_COLUMNS, lineList, linePage, listLinesAsOfQuery, type ListLinesQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/lines",
    operationId: "listLines",
    summary: "List an Operation's lines",
    description:
      "Filters combine with AND. asOf=<version> (OPERATOR keys) lists the lines as they were at that version of the Operation, with the same filters, sort and pages. variantName matches a case-insensitive substring in any locale; minQuantity, maxQuantity, recommendedQuantity and quantityIncrement match exact values. Sort by variantName uses the name in the tenant's default locale (else any), lower-cased; lines without a recommendedQuantity sort before 0. ACCOUNT keys read the lines of the Operations they can see.",
    tag: "Lines",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    query: listLinesAsOfQuery,
    operatorOnlyQuery: ["asOf"],
    responses: { 200: { description: "One page of lines.", schema: linePage } },
    csvExport: { columns: LINE_CSV_COLUMNS },
    errors: ["not_found", "version_not_found", "invalid_next_token"],
  },
  async function handleListLines(c, { params, query: { asOf, ...query } }) {
    const readPage = (page: ListLinesQuery) =>
      asOf === undefined ? listLines(listContextOf(c), params.operationId, page) : listLinesAsOf(listContextOf(c), params.operationId, asOf, page);
    if (acceptsCsv(c.req.header("accept"))) {
      const { locale } = c.var.scope;
      const { tenantDefaultLocale } = c.var.principal;
      return csvListResponse({
        columns: LINE_CSV_COLUMNS,
        filename: `lines-${params.operationId}.csv`,
        readPage: (nextToken) => readPage({ ...query, limit: lineList.maxLimit, nextToken }),
        toRow: (row) => [
          row.variantExternalId,
          resolveLocale(row.variantName, locale, tenantDefaultLocale).value,
          row.minQuantity,
          row.maxQuantity,
          row.recommendedQuantity,
          row.quantityIncrement,
        ],
      });
    }
    const page = await readPage(query);
    return c.json(mapPage(page, toLineRepresentation));
  },
);
