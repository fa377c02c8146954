import { listContextOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listAccountCaps } from "../queries";
import { accountCapPage, accountCapsQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/allocations/accounts",
    operationId: "listAccountCaps",
    summary: "List accounts' own caps",
    description: "The caps set by PUT …/allocations/accounts, with what each account has ordered of the line; filters variantIds, accountIds.",
    tag: "Allocation",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: accountCapsQuery,
    responses: { 200: { description: "One page.", schema: accountCapPage } },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListAccountCaps(c, { params, query }) {
    return c.json(await listAccountCaps(listContextOf(c), params.operationId, query));
  },
);
