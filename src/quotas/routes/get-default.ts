import { defineRoute } from "../../platform/http/routes";
import { getQuotaDefault } from "../queries";
import { quotaDefaultRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/buying-policies/quotas/default",
    operationId: "getQuotaDefault",
    summary: "Read the tenant's default minimum",
    description: "The minimum that applies when no Quotas Rule matches an order; 0 (BLOCK) until set.",
    tag: "Quotas",
    roles: ["OPERATOR"],
    responses: { 200: { description: "The default.", schema: quotaDefaultRepresentation } },
    errors: [],
  },
  async function handleGetQuotaDefault(c) {
    return c.json(await getQuotaDefault(c.var.db, c.var.principal.tenantId));
  },
);
