import { defineRoute } from "../../platform/http/routes";
import { startTenantMove } from "../commands";
import { startTenantMoveBody, tenantMoveRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/tenant/moves",
    operationId: "startTenantMove",
    summary: "Move the tenant to another database",
    description:
      "OPERATOR keys (the platform's staff), own tenant only. Runs inside the service while the tenant is served: writes get 503 `tenant_moving` (`Retry-After: 1`) only at the switch, ≤ 2 s (docs/tenants-and-shards.md).",
    tag: "Tenant",
    roles: ["OPERATOR"],
    body: startTenantMoveBody,
    responses: {
      202: { description: "The move started.", schema: tenantMoveRepresentation, headers: { Location: "URL of the move" } },
    },
    errors: ["move_in_progress", "invalid_transition", "idempotency_key_reused"],
  },
  async function handleStartTenantMove(c, { body }) {
    const move = await startTenantMove(c, body);
    c.header("Location", `/v1/tenant/moves/${move.id}`);
    return c.json(move, 202);
  },
);
