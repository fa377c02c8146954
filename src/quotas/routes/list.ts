import { defineRoute } from "../../platform/http/routes";
import { listRules, toRuleRepresentation } from "../queries";
import { listRulesQuery, quotaRulePage, RULE_CSV_COLUMNS, ruleList } from "../schemas";
import { acceptsCsv, csvListResponse } from "../../platform/http/csv";
import { listContextOf } from "../../platform/http/context";

export default defineRoute(
  {
    method: "get",
    path: "/v1/buying-policies/quotas/rules",
    operationId: "listQuotaRules",
    summary: "List Quotas Rules",
    description:
      "Filters combine with AND; each matches its scope key exactly (a rule whose key is null never matches a filter on that key). Default order createdAt; sorting on accountId or supplierId puts rules without that key first.",
    tag: "Quotas",
    roles: ["OPERATOR"],
    query: listRulesQuery,
    responses: { 200: { description: "One page.", schema: quotaRulePage } },
    csvExport: { columns: RULE_CSV_COLUMNS },
    errors: ["invalid_next_token"],
  },
  async function handleListQuotaRules(c, { query }) {
    if (acceptsCsv(c.req.header("accept"))) {
      return csvListResponse({
        columns: RULE_CSV_COLUMNS,
        filename: "quota-rules.csv",
        readPage: (nextToken) => listRules(listContextOf(c), { ...query, limit: ruleList.maxLimit, nextToken }),
        toRow: ({ row }) => [row.id, row.accountId, row.supplierId, row.storeId, row.minimum, row.enforcement],
      });
    }
    const page = await listRules(listContextOf(c), query);
    return c.json({ items: page.items.map((item) => toRuleRepresentation(item.row)), nextToken: page.nextToken });
  },
);
