import { operationCoordinator } from "../coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { patchOperation } from "../commands";
import { operationRepresentation, patchOperationBody } from "../schemas";
import { setETag } from "./etag";

export default defineRoute(
  {
    method: "patch",
    path: "/v1/operations/:operationId",
    operationId: "updateOperation",
    summary: "Change an Operation",
    description:
      "JSON Merge Patch. name, description, code, externalId, startDate, endDate and ownerIds change in any state; type only in DRAFT. Changing dates of an ACTIVE Operation answers with a Warning header. A patch that changes nothing answers 200 with the current version and records no event.",
    tag: "Operations",
    roles: ["OPERATOR"],
    params: operationIdParam,
    body: patchOperationBody,
    headers: ["If-Match"],
    responses: {
      200: {
        description: "The changed Operation.",
        schema: operationRepresentation,
        headers: { ETag: "Its new version", Warning: '199 - "dates changed on an ACTIVE operation" when that happened' },
      },
    },
    errors: ["not_found", "operation_not_draft", "duplicate_code", "version_mismatch", "idempotency_key_reused"],
  },
  async function handleUpdateOperation(c, { params, body }) {
    const result = await operationCoordinator(c).run(params.operationId, patchOperation, {
      patch: body,
      ifMatch: c.req.header("if-match"),
    });
    if (result.datesChangedWhileActive) c.header("Warning", '199 - "dates changed on an ACTIVE operation"');
    setETag(c, result.operation.version);
    return c.json(result.operation);
  },
);
