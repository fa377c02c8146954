import { defineRoute } from "../../platform/http/routes";
import { findTenantMove } from "../commands";
import { moveIdParam, tenantMoveRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/tenant/moves/:moveId",
    operationId: "getTenantMove",
    summary: "Read a move of the tenant",
    description:
      "Where the move stands: its status, its progress (rows copied, writes caught up, rows compared) and its write fence. Cheap enough to poll every second.",
    tag: "Tenant",
    roles: ["OPERATOR"],
    params: moveIdParam,
    responses: { 200: { description: "The move.", schema: tenantMoveRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetTenantMove(c, { params }) {
    return c.json(await findTenantMove(c, params.moveId));
  },
);
