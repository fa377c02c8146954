import * as z from "zod";
import { toOperationRepresentation } from "../../operations/queries";
import { operationRepresentation } from "../../operations/schemas";
import { defineRoute } from "../../platform/http/routes";
import { pathId, queryInteger } from "../../platform/schema/fields";
import { operationVersion } from "../versions";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/versions/:version",
    operationId: "getOperationVersion",
    summary: "Read an Operation as it was at a version",
    description:
      "The Operation as it was at that version (its fields, status, schedule, lineCount and accountCount then; updatedAt: when the version was made), computed from its change history. Its lines and accounts then: GET …/lines?asOf=<version> and …/accounts?asOf=<version>. A deleted Operation's versions stay readable. A version its history does not cover (never existed, or older than the history): 404 version_not_found.",
    tag: "History",
    roles: ["OPERATOR"],
    params: z.strictObject({
      operationId: pathId("The Operation's id."),
      version: queryInteger(1, Number.MAX_SAFE_INTEGER).describe("A version of the Operation (its ETag)."),
    }),
    responses: { 200: { description: "The Operation at that version.", schema: operationRepresentation } },
    errors: ["not_found", "version_not_found"],
  },
  async function handleGetOperationVersion(c, { params }) {
    const then = await operationVersion({ db: c.var.db, archive: c.env.HISTORY_ARCHIVE }, c.var.principal.tenantId, params.operationId, params.version);
    return c.json(toOperationRepresentation(then.row));
  },
);
