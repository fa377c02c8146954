import { defineRoute } from "../../../platform/http/routes";
import { getHistorySettings, historySettingsRepresentation } from "../retention";

export default defineRoute(
  {
    method: "get",
    path: "/v1/settings/history",
    operationId: "getHistorySettings",
    summary: "Read how long the change history is kept",
    description: "How long change records are kept, and when they move to the archive.",
    tag: "History",
    roles: ["OPERATOR"],
    responses: { 200: { description: "The setting.", schema: historySettingsRepresentation } },
    errors: [],
  },
  async function handleGetHistorySettings(c) {
    return c.json(await getHistorySettings(c.var.db, c.var.principal.tenantId));
  },
);
