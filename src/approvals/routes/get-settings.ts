import { defineRoute } from "../../platform/http/routes";
import { getApprovalSettings } from "../queries";
import { approvalSettingsRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/settings/approvals",
    operationId: "getApprovalSettings",
    summary: "Read the tenant's approval setting",
    tag: "Approvals",
    roles: ["OPERATOR"],
    responses: { 200: { description: "The setting.", schema: approvalSettingsRepresentation } },
    errors: [],
  },
  async function handleGetApprovalSettings(c) {
    return c.json(await getApprovalSettings(c.var.db, c.var.principal.tenantId));
  },
);
