import { listLines } from "../../lines/queries";
import { frontLineList, frontLinesQuery } from "../../lines/schemas";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { buyersOf, findFrontOperation } from "../queries";
import { readAvailability } from "../../allocation/queries";
import { frontLinePage, presentationOf, toFrontLine } from "../representation";

export default defineRoute(
  {
    method: "get",
    path: "/v1/front/operations/:operationId/lines",
    operationId: "listFrontLines",
    summary: "List an open Operation's lines (front)",
    description:
      "404 unless the Operation is ACTIVE, open now and one the caller may order from; same filters, sort and pagination as GET /v1/operations/{operationId}/lines but the order figures (what other buyers ordered), variantName as a plain string.",
    tag: "Front",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    query: frontLinesQuery,
    headers: ["locale", "svc-store-view"],
    responses: { 200: { description: "One page.", schema: frontLinePage } },
    errors: ["not_found", "invalid_next_token", "account_not_permitted"],
  },
  async function handleListFrontLines(c, { params, query: { accountId, ...query } }) {
    const db = c.var.db;
    const principal = c.var.principal;
    // Read side by side, answered in order: an Operation not found (404) before an account not one's own (403).
    const reading = buyersOf(db, principal, accountId);
    reading.catch(() => {});
    await findFrontOperation(db, principal, params.operationId);
    const buyers = await reading;
    const page = await listLines(listContextOf(c), params.operationId, query, frontLineList);
    const available = await readAvailability(
      db,
      params.operationId,
      buyers,
      page.items.map((line) => line.variantExternalId),
    );
    const presentation = presentationOf(principal, c.var.scope);
    return c.json(mapPage(page, (line) => toFrontLine(line, presentation, buyers.length ? (available.get(line.variantExternalId) ?? 0) : undefined)));
  },
);
