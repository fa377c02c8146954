import { listOperations } from "../../operations/queries";
import { listOperationsQuery } from "../../operations/schemas";
import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { openNow } from "../queries";
import { frontOperationPage, presentationOf, toFrontOperation } from "../representation";

export default defineRoute(
  {
    method: "get",
    path: "/v1/front/operations",
    operationId: "listFrontOperations",
    summary: "List the Operations open now (front)",
    description:
      "The Operations that are ACTIVE and whose dates include now, and for an ACCOUNT key only those it may order from; same filters, sort and pagination as GET /v1/operations. Localized fields are plain strings in the locale header's language (fallback: base language, the tenant's default locale, any).",
    tag: "Front",
    roles: ["OPERATOR", "ACCOUNT"],
    query: listOperationsQuery,
    headers: ["locale", "svc-store-view"],
    responses: { 200: { description: "One page.", schema: frontOperationPage } },
    errors: ["invalid_next_token"],
  },
  async function handleListFrontOperations(c, { query }) {
    const principal = c.var.principal;
    const page = await listOperations(listContextOf(c), query, { name: "front", filters: openNow() });
    const presentation = presentationOf(principal, c.var.scope);
    return c.json(mapPage(page, (item) => toFrontOperation(item.row, presentation)));
  },
);
