import { defineRoute } from "../../platform/http/routes";
import { listTenantMoves } from "../commands";
import { tenantMovePage } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/tenant/moves",
    operationId: "listTenantMoves",
    summary: "List the tenant's moves",
    description: "The latest move first (running or not), then the ten before it at most. One page: `nextToken` is always null.",
    tag: "Tenant",
    roles: ["OPERATOR"],
    responses: { 200: { description: "The moves, newest first.", schema: tenantMovePage } },
    errors: [],
  },
  async function handleListTenantMoves(c) {
    return c.json({ items: await listTenantMoves(c), nextToken: null });
  },
);
