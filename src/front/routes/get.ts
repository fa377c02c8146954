import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { findFrontOperation } from "../queries";
import { frontOperationRepresentation, presentationOf, toFrontOperation } from "../representation";

export default defineRoute(
  {
    method: "get",
    path: "/v1/front/operations/:operationId",
    operationId: "getFrontOperation",
    summary: "Read an open Operation (front)",
    description: "404 unless the Operation is ACTIVE, open now and one the caller may order from.",
    tag: "Front",
    roles: ["OPERATOR", "ACCOUNT"],
    params: operationIdParam,
    headers: ["locale", "svc-store-view"],
    responses: { 200: { description: "The Operation.", schema: frontOperationRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetFrontOperation(c, { params }) {
    const principal = c.var.principal;
    const row = await findFrontOperation(c.var.db, principal, params.operationId);
    return c.json(toFrontOperation(row, presentationOf(principal, c.var.scope)));
  },
);
