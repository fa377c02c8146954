import { defineRoute } from "../../platform/http/routes";
import { findVisibleOrder, toOrderRepresentation } from "../queries";
import { orderIdParam, orderRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/orders/:orderId",
    operationId: "getOrder",
    summary: "Read an order",
    description: "ACCOUNT keys read the orders of their own accounts only.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    params: orderIdParam,
    responses: { 200: { description: "The order.", schema: orderRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetOrder(c, { params }) {
    return c.json(toOrderRepresentation(await findVisibleOrder(c.var.db, c.var.principal, params.orderId)));
  },
);
