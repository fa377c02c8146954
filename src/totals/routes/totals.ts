import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { readOperationTotals } from "../queries";
import { operationTotalsRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/totals",
    operationId: "getOperationTotals",
    summary: "Read an Operation's totals",
    description:
      "What the campaign has done so far: PLACED orders and their amount, cancellations, the accounts that ordered, refused placements by reason, and its lines' figures (ordered at all, below their recommendedQuantity, pool used up). Kept in the batch of every order, cancellation and refusal: reading them never scans the orders.",
    tag: "Totals",
    roles: ["OPERATOR"],
    params: operationIdParam,
    responses: { 200: { description: "The totals.", schema: operationTotalsRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetOperationTotals(c, { params }) {
    return c.json(await readOperationTotals(c.var.db, c.var.principal, params.operationId));
  },
);
