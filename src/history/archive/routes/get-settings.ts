import { defineRoute } from "../../../platform/http/routes";
import { getHistorySettings, historySettingsRepresentation } from "../retention";

export default defineRoute(
  {
    method: "get",
    path: "/v1/settings/history",
    operationId: "getHistorySettings",
    summary: "Read how long the change history is kept",
    description:
      "retentionYears: how many years change records are kept (null, the default: until the tenant is deleted). hotWindowDays: how long a record stays in the tenant's database before it moves to the archive, where every history read still finds it.",
    tag: "History",
    roles: ["OPERATOR"],
    responses: { 200: { description: "The setting.", schema: historySettingsRepresentation } },
    errors: [],
  },
  async function handleGetHistorySettings(c) {
    return c.json(await getHistorySettings(c.var.db, c.var.principal.tenantId));
  },
);
