import { listContextOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { listAccountTotals } from "../queries";
import { accountTotalsPage, accountTotalsQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/totals/accounts",
    operationId: "listAccountTotals",
    summary: "List an Operation's accounts with their totals",
    description:
      "Every account that ordered, was refused, or is attached (PRIVATE), with its PLACED orders, their amount, its cancellations, when it last ordered and its refusals by reason. ordered=false lists the accounts without a PLACED order: the buyers to chase. Sort by accountId (default), orders or amount.",
    tag: "Totals",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: accountTotalsQuery,
    responses: { 200: { description: "One page.", schema: accountTotalsPage } },
    errors: ["not_found", "invalid_next_token"],
  },
  async function handleListAccountTotals(c, { params, query }) {
    return c.json(await listAccountTotals(listContextOf(c), params.operationId, query));
  },
);
