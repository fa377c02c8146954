import { defineRoute } from "../../platform/http/routes";
import { startTenantMove } from "../commands";
import { startTenantMoveBody, tenantMoveRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/tenant/moves",
    operationId: "startTenantMove",
    summary: "Move the tenant to another database",
    description: [
      "Starts moving the caller's tenant to another shard (D1 database) and answers at once: the move runs inside the service, step by step, and survives a restart of it. Follow it with `GET /v1/tenant/moves/{moveId}` (`npm run tenant:move` does, and prints its progress).",
      "",
      "The tenant keeps being served all along. Its rows are copied in chunks while reads and writes go on; the writes made meanwhile are recorded by the old database, in each write's own transaction, and applied to the copy until it has caught up; every row is then compared on both databases. Only the last catch-up and the switch refuse writes: 503 `tenant_moving` with `Retry-After: 1`, for at most 2 s (a cutover that would take longer is lifted and tried again, and a catch-up that does not converge within 2 minutes fails the move). Reads are never refused. A write retried with its `Idempotency-Key` takes effect once.",
      "",
      "A move that fails or is aborted before the switch leaves the tenant whole on its old database. After the switch the old copy is kept for `keepSourceMinutes` (60 by default), during which `POST /v1/tenant/moves/{moveId}/reverse` moves the tenant back by catching up on the writes made since.",
      "",
      "Who may: OPERATOR keys, which are the platform's staff. A move only ever concerns the key's own tenant (no path or body names another), like every other route; an ACCOUNT key answers 403.",
    ].join("\n"),
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
