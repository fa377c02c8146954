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
      "Takes back a move that has switched (SWITCHED), while its old copy is kept: a new move back to the old database starts (`reverseOf` names this one, which turns REVERSED), copying only the writes made since the switch, with the same ≤ 2 s write fence. Once the old copy is dropped (DROPPING, COMPLETED), move the tenant with a new move instead (409 `invalid_transition`).",
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
