import { operationCoordinator } from "../coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { deleteOperation } from "../commands";

export default defineRoute(
  {
    method: "delete",
    path: "/v1/operations/:operationId",
    operationId: "deleteOperation",
    summary: "Delete an Operation",
    description: "Deletes the Operation with its lines and attachments. Refused while a cart or order is linked: set it INACTIVE instead.",
    tag: "Operations",
    roles: ["OPERATOR"],
    params: operationIdParam,
    headers: ["If-Match"],
    responses: { 204: { description: "Deleted." } },
    errors: ["not_found", "operation_has_links", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleDeleteOperation(c, { params }) {
    await operationCoordinator(c).run(params.operationId, deleteOperation, { ifMatch: c.req.header("if-match") });
    return c.body(null, 204);
  },
);
