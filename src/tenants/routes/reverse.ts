import { defineRoute } from "../../platform/http/routes";
import { reverseTenantMove } from "../commands";
import { moveIdParam, tenantMoveRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/tenant/moves/:moveId/reverse",
    operationId: "reverseTenantMove",
    summary: "Move the tenant back",
    description:
      "Starts a move back to the old database of a SWITCHED move, whose old copy is kept: only the writes made since the switch are copied (`reverseOf` names the move, which turns REVERSED). Once the copy is dropped: 409.",
    tag: "Tenant",
    roles: ["OPERATOR"],
    params: moveIdParam,
    responses: {
      202: { description: "The move back started.", schema: tenantMoveRepresentation, headers: { Location: "URL of the move back" } },
    },
    errors: ["not_found", "invalid_transition", "idempotency_key_reused"],
  },
  async function handleReverseTenantMove(c, { params }) {
    const move = await reverseTenantMove(c, params.moveId);
    c.header("Location", `/v1/tenant/moves/${move.id}`);
    return c.json(move, 202);
  },
);
