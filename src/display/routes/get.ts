import { defineRoute } from "../../platform/http/routes";
import { displaySettingsRepresentation } from "../schemas";
import { getDisplaySettings } from "../settings";

export default defineRoute(
  {
    method: "get",
    path: "/v1/settings/display",
    operationId: "getDisplaySettings",
    summary: "Read how the tenant's data is shown",
    tag: "Settings",
    roles: ["OPERATOR", "ACCOUNT"],
    responses: { 200: { description: "The setting.", schema: displaySettingsRepresentation } },
    errors: [],
  },
  async function handleGetDisplaySettings(c) {
    return c.json(await getDisplaySettings(c.var.db, c.var.principal.tenantId));
  },
);
