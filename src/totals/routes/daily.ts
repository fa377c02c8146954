import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { readDailyTotals } from "../queries";
import { dailyTotalsQuery, dailyTotalsRepresentation, MAX_DAYS } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/operations/:operationId/totals/daily",
    operationId: "getDailyTotals",
    summary: "Read an Operation's totals per day",
    description: `Per UTC day from \`from\` to \`to\` (both included; default the 30 days ending today, at most ${MAX_DAYS}): orders placed that day and their amount (cancelled since or not), cancellations made that day and their amount, refusals by reason. Every day of the span is listed, days without any as zeros.`,
    tag: "Totals",
    roles: ["OPERATOR"],
    params: operationIdParam,
    query: dailyTotalsQuery,
    responses: { 200: { description: "One item per day.", schema: dailyTotalsRepresentation } },
    errors: ["not_found"],
  },
  async function handleGetDailyTotals(c, { params, query }) {
    return c.json(await readDailyTotals(c.var.db, c.var.principal, params.operationId, query));
  },
);
