import { defineRoute } from "../../platform/http/routes";
import { assessImpact } from "../impact";
import { IMPACT_DEFAULT_DAYS, IMPACT_MAX_DAYS, impactBody, impactQuery, impactResponse, MAX_RULES_PER_CALL } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/buying-policies/quotas/impact",
    operationId: "assessQuotaImpact",
    summary: "Replay past orders against a proposed rule change",
    description: [
      `Every order placed or refused between from and to (default: the last ${IMPACT_DEFAULT_DAYS} days; at most ${IMPACT_MAX_DAYS} days), one per supplier of each as evaluate takes them, is evaluated against today's rules and against today's rules with the changes (and the default, if sent), by the resolver evaluate uses.`,
      "Changes apply in order, answered as the writes would be one after another: 404 not_found for a replace or delete of an unknown rule, then 409 duplicate_scope for a scope another rule (or an earlier create) holds; errors[] lists every failing change.",
      "Changes nothing and stores nothing. `accounts` lists each (accountId, supplierId, storeId) whose minimum or outcome changes, most newly blocked first; send the same body with nextToken for the next page (it keeps the window of the first).",
    ].join("\n"),
    tag: "Quotas",
    roles: ["OPERATOR"],
    writes: false,
    query: impactQuery,
    body: impactBody,
    batch: { maxItems: MAX_RULES_PER_CALL, field: "changes" },
    responses: { 200: { description: "The totals of the window and one page of accounts.", schema: impactResponse } },
    errors: ["batch_too_large", "not_found", "duplicate_scope", "invalid_next_token", "version_mismatch"],
  },
  async function handleAssessQuotaImpact(c, { query, body }) {
    return c.json(await assessImpact(c.var.db, c.var.principal.tenantId, c.env.PAGINATION_SECRET, body, query));
  },
);
