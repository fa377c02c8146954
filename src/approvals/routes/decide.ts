import { operationCoordinator } from "../../operations/coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { decideOnOperation } from "../commands";
import { decisionBody, decisionRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/operations/:operationId/approvals",
    operationId: "decideOnOperation",
    summary: "Approve or reject an Operation's version",
    description:
      "`version` must be the current version, else 409 version_mismatch (with currentVersion). Deciding again on a version replaces the decision. A change that bumps the version voids the decisions before it. Records operation.approved or operation.rejected.",
    tag: "Approvals",
    roles: ["OPERATOR"],
    params: operationIdParam,
    body: decisionBody,
    responses: { 201: { description: "The decision as recorded.", schema: decisionRepresentation } },
    errors: ["not_found", "version_mismatch", "idempotency_key_reused"],
    errorStatuses: { version_mismatch: 409 },
  },
  async function handleDecideOnOperation(c, { params, body }) {
    return c.json(await operationCoordinator(c).run(params.operationId, decideOnOperation, body), 201);
  },
);
