import { defineRoute } from "../../platform/http/routes";
import { placeOrder } from "../place";
import { MAX_ORDER_LINES, orderBody, orderRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/orders",
    operationId: "createOrder",
    summary: "Place an order",
    description:
      "From { cartId } (a cart is ordered once) or directly from a cart body. Same checks as a cart, then quota evaluation per supplier: the lines of each supplierId form one order (lines without one form an order only Account-only rules and the default match), amount = Σ quantity × unitPrice, storeId from the body (or the cart), else svc-store. Any order below a BLOCK minimum: 422 quota_min_not_met with results[] (as evaluate returns them) and orders[] (what was evaluated, same positions); nothing is created and an order.blocked event is recorded. Below a WARN minimum only: the order is placed (201) and carries warnings[] (the results that fell short), recorded in its order.created event too.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    body: orderBody,
    batch: { maxItems: MAX_ORDER_LINES, field: "lines" },
    headers: ["svc-store"],
    responses: { 201: { description: "Placed and linked.", schema: orderRepresentation, headers: { Location: "URL of the new order" } } },
    errors: [
      "batch_too_large",
      "not_found",
      "operation_not_open",
      "cart_already_ordered",
      "account_not_attached",
      "order_lines_invalid",
      "quota_min_not_met",
      "allocation_exceeded",
      "account_not_permitted",
      "idempotency_key_reused",
    ],
  },
  async function handleCreateOrder(c, { body }) {
    const order = await placeOrder(c, body);
    c.header("Location", `/v1/orders/${order.id}`);
    return c.json(order, 201);
  },
);
