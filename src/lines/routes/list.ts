import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { resolveLocale } from "../../platform/core/locale";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listLines, listLinesAsOf, toLineRepresentation } from "../queries";
import {
  LINE_CSV_COLUMNS,
  lineList,
  linePage,
  listLinesAsOfQuery,
  ORDERED_FIELDS,
  ORDERED_FILTERS,
  type LineRepresentation,
  type ListLinesQuery,
} from "../schemas";
import { validationError } from "../../platform/schema/validation";

/** A past version has no order figures: asOf with their filters or sort is 400, never a guess. */
function refuseOrderedFiguresAsOf(query: ListLinesQuery): void {
  const filters = ORDERED_FILTERS.filter((name) => query[name] !== undefined);
  const sorts = (query.sort ?? "").split(",").filter((key) => (ORDERED_FIELDS as readonly string[]).includes(key.replace(/^-/, "")));
  if (!filters.length && !sorts.length) return;
  throw validationError(
    [...filters.map((name) => `query.${name}`), ...(sorts.length ? ["query.sort"] : [])].map((field) => ({
      field,
      code: "not_with_as_of",
      message: "a past version's lines have no orderedQuantity or orderCount: filter and sort by them without asOf",
    })),
  );
}

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/lines",
    operationId: "listLines",
    summary: "List an Operation's lines",
    description:
      "Filters combine with AND. asOf=<version> (OPERATOR keys) lists the lines as they were at that version of the Operation, with the same filters, sort and pages. variantName matches a case-insensitive substring in any locale; minQuantity, maxQuantity, recommendedQuantity and quantityIncrement match exact values; orderedQuantity and orderCount (kept as orders are placed and cancelled) match exact values or, as orderedQuantity[gte] and orderedQuantity[lte], bounds (not with asOf). Sort by variantName uses the name in the tenant's default locale (else any), lower-cased; lines without a recommendedQuantity sort before 0. ACCOUNT keys read the lines of the Operations they can see.",
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
    if (asOf !== undefined) refuseOrderedFiguresAsOf(query);
    const readPage = (page: ListLinesQuery): Promise<{ items: LineRepresentation[]; nextToken: string | null }> =>
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
