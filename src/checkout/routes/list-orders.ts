import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listOrders, toOrderRepresentation } from "../queries";
import { listOrdersQuery, orderPage } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/orders",
    operationId: "listOrders",
    summary: "List an Operation's orders",
    description: "Newest first unless sort says otherwise. ACCOUNT keys see the orders of their own accounts only.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    query: listOrdersQuery,
    responses: { 200: { description: "One page.", schema: orderPage } },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListOrders(c, { params, query }) {
    const page = await listOrders(listContextOf(c), params.operationId, query);
    return c.json(mapPage(page, (item) => toOrderRepresentation(item.row)));
  },
);
