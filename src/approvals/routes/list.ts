import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listDecisions, toDecisionRepresentation } from "../queries";
import { decisionPage, listDecisionsQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/approvals",
    operationId: "listApprovalDecisions",
    summary: "List an Operation's approval decisions",
    description: "Newest first; voided decisions too (valid: false).",
    tag: "Approvals",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: listDecisionsQuery,
    responses: { 200: { description: "One page of decisions.", schema: decisionPage } },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListApprovalDecisions(c, { params, query }) {
    const page = await listDecisions(listContextOf(c), params.operationId, query);
    return c.json(mapPage(page, (item) => toDecisionRepresentation(item.row, Boolean(item.valid))));
  },
);
