import { defineRoute } from "../../platform/http/routes";
import { placeCart } from "../place";
import { cartBody, cartRepresentation, MAX_ORDER_LINES } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/carts",
    operationId: "createCart",
    summary: "Create a cart",
    description:
      "Links a cart to an ACTIVE Operation that is open now. A PRIVATE Operation needs the account attached; every line must be a line of the Operation with its quantity within [minQuantity, maxQuantity] and a multiple of the line's quantityIncrement (else an errors[] entry with code increment_mismatch, quantityIncrement and nearestValid: [below, above], either null when there is none; never rounded). storeId defaults to svc-store. ACCOUNT keys create carts only for their own accounts.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    body: cartBody,
    batch: { maxItems: MAX_ORDER_LINES, field: "lines" },
    headers: ["svc-store"],
    responses: { 201: { description: "Created and linked.", schema: cartRepresentation, headers: { Location: "URL of the new cart" } } },
    errors: [
      "batch_too_large",
      "not_found",
      "operation_not_open",
      "account_not_attached",
      "order_lines_invalid",
      "account_not_permitted",
      "idempotency_key_reused",
    ],
  },
  async function handleCreateCart(c, { body }) {
    const cart = await placeCart(c, body);
    c.header("Location", `/v1/carts/${cart.id}`);
    return c.json(cart, 201);
  },
);
