import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { listOperations, toOperationRepresentation } from "../queries";
import { listOperationsQuery, operationPage } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations",
    operationId: "listOperations",
    summary: "List Operations",
    description:
      "Filters combine with AND; comma lists match any of their values. ACCOUNT keys see PUBLIC Operations and PRIVATE ones attached to one of their accounts.",
    tag: "Operations",
    roles: ["OPERATOR", "ACCOUNT"],
    query: listOperationsQuery,
    responses: { 200: { description: "One page.", schema: operationPage } },
    errors: ["invalid_next_token"],
  },
  async function handleListOperations(c, { query }) {
    const page = await listOperations(listContextOf(c), query);
    return c.json(mapPage(page, (item) => toOperationRepresentation(item.row)));
  },
);
