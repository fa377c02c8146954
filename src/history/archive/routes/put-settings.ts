import { tenantPrimaryDb, writerOf } from "../../../platform/http/context";
import { defineRoute } from "../../../platform/http/routes";
import { getHistorySettings, historySettingsBody, historySettingsRepresentation, setHistorySettings } from "../retention";

export default defineRoute(
  {
    method: "put",
    path: "/v1/settings/history",
    operationId: "setHistorySettings",
    summary: "Set how long the change history is kept",
    description: "The hourly archive job removes records older than retentionYears, a whole day at a time. Recorded in the history (settings, history).",
    tag: "History",
    roles: ["OPERATOR"],
    body: historySettingsBody,
    responses: { 200: { description: "The setting as stored.", schema: historySettingsRepresentation } },
    errors: ["version_mismatch", "idempotency_key_reused"],
  },
  async function handleSetHistorySettings(c, { body }) {
    const db = tenantPrimaryDb(c);
    await setHistorySettings(writerOf(c, db), body);
    return c.json(await getHistorySettings(db, c.var.principal.tenantId));
  },
);
