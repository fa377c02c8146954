import { defineRoute } from "../../platform/http/routes";
import { abortTenantMove } from "../commands";
import { moveIdParam, tenantMoveRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/tenant/moves/:moveId/abort",
    operationId: "abortTenantMove",
    summary: "Abort a move of the tenant",
    description:
      "Stops a move that has not switched: the copy is deleted, the tenant stays whole and writable where it was (ABORTING, then ABORTED). After the switch: 409, reverse it instead.",
    tag: "Tenant",
    roles: ["OPERATOR"],
    params: moveIdParam,
    responses: { 202: { description: "The abort started.", schema: tenantMoveRepresentation } },
    errors: ["not_found", "invalid_transition", "idempotency_key_reused"],
  },
  async function handleAbortTenantMove(c, { params }) {
    return c.json(await abortTenantMove(c, params.moveId), 202);
  },
);
