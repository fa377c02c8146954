import { ApiError } from "../../platform/core/errors";
import { defineRoute } from "../../platform/http/routes";
import { keyStore, findKey, toKeyRepresentation } from "../queries";
import { keyIdParam, keyRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/keys/:keyId",
    operationId: "getKey",
    summary: "Read an API key",
    tag: "Keys",
    roles: ["OPERATOR"],
    params: keyIdParam,
    responses: { 200: { description: "The key (never the key itself).", schema: keyRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetKey(c, { params }) {
    const row = await findKey(keyStore(c.env, c.var.trace), c.var.principal.tenantId, params.keyId);
    if (!row) throw new ApiError("not_found", `Key ${params.keyId} not found.`);
    return c.json(toKeyRepresentation(row));
  },
);
