import { tenantPrimaryDb, writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { setApprovalSettings } from "../commands";
import { approvalSettingsBody, approvalSettingsRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "put",
    path: "/v1/settings/approvals",
    operationId: "setApprovalSettings",
    summary: "Set the tenant's approval setting",
    description:
      "With activation.required > 0, a change into ACTIVE (manual or scheduled) needs that many valid approvals by distinct approvers, none by the version's author unless allowSelfApproval, and no valid rejection: else 409 approval_required.",
    tag: "Approvals",
    roles: ["OPERATOR"],
    body: approvalSettingsBody,
    responses: { 200: { description: "The setting as stored.", schema: approvalSettingsRepresentation } },
    errors: ["version_mismatch", "idempotency_key_reused"],
  },
  async function handleSetApprovalSettings(c, { body }) {
    return c.json(await setApprovalSettings(writerOf(c, tenantPrimaryDb(c)), body));
  },
);
