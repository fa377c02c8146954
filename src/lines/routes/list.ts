import { listContextOf, mapPage } from "../../platform/pagination";
import { defineRoute } from "../../platform/routes";
import { listEnvelope, operationIdParam } from "../../platform/fields";
import { listLines, toLineRepresentation } from "../queries";
import { lineRepresentation, listLinesQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/lines",
    summary: "List an Operation's lines",
    description:
      "Filters combine with AND. variantName matches a case-insensitive substring in any locale; minQuantity, maxQuantity and recommendedQuantity match exact values. Sort by variantName uses the name in the tenant's default locale (else any), lower-cased; lines without a recommendedQuantity sort before 0. ACCOUNT keys read the lines of the Operations they can see.",
    tag: "Lines",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    query: listLinesQuery,
    responses: { 200: { description: "One page of lines.", schema: listEnvelope(lineRepresentation) } },
    errors: ["not_found", "invalid_next_token"],
  },
  async (c, { params, query }) => {
    const page = await listLines(listContextOf(c), params.operationId, query);
    return c.json(mapPage(page, toLineRepresentation));
  },
);
