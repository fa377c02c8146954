import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { planAllocation } from "../plan";
import { planBody, planResponse } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/operations/:operationId/allocations/plan",
    operationId: "planAllocation",
    summary: "Propose accounts' caps that split each pool",
    description:
      "Changes nothing. Each line's pool (every line with one, or those named) is split among accounts: the attached ones in equal shares (PRIVATE), or those of basis — in proportion to what each ordered of the same variant in an earlier Operation, or to the weights given (equal shares among them with method equal). Each account first keeps what it already ordered; the rest of the pool is shared in whole packs (quantityIncrement), largest remainders first, so the caps never add up to more than the pool. Each page is a valid body for PUT …/allocations/accounts; send the same body with nextToken for the next.",
    tag: "Allocation",
    roles: ["OPERATOR"],
    writes: false,
    params: operationIdParam,
    body: planBody,
    responses: { 200: { description: "One page of caps.", schema: planResponse } },
    errors: ["not_found", "unknown_variants", "invalid_next_token"],
  },
  async function handlePlanAllocation(c, { params, body }) {
    return c.json(await planAllocation(c, params.operationId, body));
  },
);
