import { defineRoute } from "../../platform/http/routes";
import { findVisibleCart, toCartRepresentation } from "../queries";
import { cartIdParam, cartRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/carts/:cartId",
    operationId: "getCart",
    summary: "Read a cart",
    description: "ACCOUNT keys read the carts of their own accounts only.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    params: cartIdParam,
    responses: { 200: { description: "The cart.", schema: cartRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetCart(c, { params }) {
    return c.json(toCartRepresentation(await findVisibleCart(c.var.db, c.var.principal, params.cartId)));
  },
);
