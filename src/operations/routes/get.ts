import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { getVisibleOperation, toOperationRepresentation } from "../queries";
import { operationRepresentation } from "../schemas";
import { setETag } from "./etag";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId",
    operationId: "getOperation",
    summary: "Read an Operation",
    tag: "Operations",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    responses: { 200: { description: "The Operation.", schema: operationRepresentation, headers: { ETag: "Its version" } } },
    errors: ["not_found"],
  },
  async function handleGetOperation(c, { params }) {
    const row = await getVisibleOperation(c.var.db, c.var.principal, params.operationId);
    setETag(c, row.version);
    return c.json(toOperationRepresentation(row));
  },
);
