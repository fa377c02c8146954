import { operationCoordinator } from "../../operations/coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { cancelOrder } from "../commands";
import { findVisibleOrder, toOrderRepresentation } from "../queries";
import { cancelOrderBody, orderIdParam, orderRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/orders/:orderId/cancel",
    operationId: "cancelOrder",
    summary: "Cancel an order",
    description:
      "Through the Operation's serialized path: the order becomes CANCELLED (cancelledAt, cancelReason, cancelledBy), its figures leave every total (lines' orderedQuantity and orderCount, the Operation's, its account's), a change record and an order.cancelled event are written. It stays linked: the Operation still cannot be deleted. A cancelled order answers 200 as it is (nothing written). ACCOUNT keys cancel orders of their own accounts only, while the Operation is ACTIVE and open (else 409 operation_not_open); an order of another tenant or account: 404.",
    tag: "Carts and orders",
    roles: ["OPERATOR", "ACCOUNT"],
    params: orderIdParam,
    body: cancelOrderBody,
    responses: { 200: { description: "The order, cancelled.", schema: orderRepresentation } },
    errors: ["not_found", "operation_not_open", "idempotency_key_reused"],
  },
  async function handleCancelOrder(c, { params, body }) {
    const order = await findVisibleOrder(c.var.db, c.var.principal, params.orderId);
    const cancelled = await operationCoordinator(c).run(order.operationId, cancelOrder, { orderId: order.id, reason: body.reason ?? null });
    return c.json(toOrderRepresentation(cancelled));
  },
);
