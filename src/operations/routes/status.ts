import { operationCoordinator } from "../coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { changeStatus } from "../commands";
import { operationRepresentation, statusChangeBody } from "../schemas";
import { setETag } from "./etag";

export default defineRoute(
  {
    method: "post",
    path: "/v1/operations/:operationId/status",
    operationId: "changeOperationStatus",
    summary: "Change an Operation's status",
    description:
      "Allowed: DRAFT→ACTIVE, ACTIVE→INACTIVE, INACTIVE→ACTIVE, DRAFT→INACTIVE, ACTIVE/INACTIVE→DRAFT while no cart or order is linked. Every transition into ACTIVE needs at least one line. Anything else (including a change to the current status) is 409 invalid_transition.",
    tag: "Operations",
    roles: ["OPERATOR"],
    params: operationIdParam,
    body: statusChangeBody,
    headers: ["If-Match"],
    responses: { 200: { description: "The Operation in its new status.", schema: operationRepresentation, headers: { ETag: "Its new version" } } },
    errors: ["not_found", "invalid_transition", "approval_required", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleChangeOperationStatus(c, { params, body }) {
    const operation = await operationCoordinator(c).run(params.operationId, changeStatus, {
      status: body.status,
      ifMatch: c.req.header("if-match"),
    });
    setETag(c, operation.version);
    return c.json(operation);
  },
);
