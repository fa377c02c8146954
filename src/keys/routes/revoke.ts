import { writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { revokeKey } from "../commands";
import { keyStore } from "../queries";
import { keyIdParam } from "../schemas";
import { closeLiveConnectionsOf } from "../../live/keys";

export default defineRoute(
  {
    method: "delete",
    path: "/v1/keys/:keyId",
    operationId: "revokeKey",
    summary: "Revoke an API key",
    description:
      "From the answer on, the key answers 401 in the Worker instance that revoked it, and within 10 s everywhere (instances cache keys that long). Its live connections close at once (4001). A key may revoke itself. Revoking a revoked key answers 204 and changes nothing. The key stays listed, with revokedAt.",
    tag: "Keys",
    roles: ["OPERATOR"],
    params: keyIdParam,
    responses: { 204: { description: "Revoked." } },
    errors: ["not_found", "idempotency_key_reused"],
  },
  async function handleRevokeKey(c, { params }) {
    const control = keyStore(c.env, c.var.trace);
    await revokeKey({ control, shard: c.var.db }, writerOf(c), params.keyId);
    // Its live connections close now, wherever they are (they were opened with tickets it was given).
    c.executionCtx.waitUntil(closeLiveConnectionsOf(c.env, control, params.keyId, c.var.requestId));
    return c.body(null, 204);
  },
);
