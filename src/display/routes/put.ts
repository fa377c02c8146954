import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { displaySettingsBody, displaySettingsRepresentation } from "../schemas";
import { setDisplaySettings } from "../settings";

export default defineRoute(
  {
    method: "put",
    path: "/v1/settings/display",
    operationId: "setDisplaySettings",
    summary: "Set how the tenant's data is shown",
    description:
      "currency: the ISO 4217 currency the tenant's amounts are minor units of (EUR: 18000 is 180.00 EUR), or null. It changes no amount: amounts stay integers of minor units everywhere.",
    tag: "Settings",
    roles: ["OPERATOR"],
    body: displaySettingsBody,
    responses: { 200: { description: "The setting as stored.", schema: displaySettingsRepresentation } },
    errors: ["version_mismatch", "idempotency_key_reused"],
  },
  async function handleSetDisplaySettings(c, { body }) {
    return c.json(await setDisplaySettings(writerOf(c, tenantPrimaryDb(c)), body));
  },
);
