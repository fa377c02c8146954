import { getVisibleOperation } from "../../operations/queries";
import { operationStub } from "../../operations/coordinator/runner";
import { defineRoute } from "../../platform/http/routes";
import { operationIdParam } from "../../platform/schema/fields";
import { liveTicketRepresentation } from "../schemas";
import { liveViewerOf } from "../viewer";
import { noteLiveKey } from "../keys";
import { openDb } from "../../platform/data/database";

export default defineRoute(
  {
    method: "post",
    path: "/v1/operations/:operationId/live-tickets",
    operationId: "issueLiveTicket",
    summary: "Issue a ticket for an Operation's live connection",
    description:
      "Any key that may read the Operation. The ticket is single use, valid 60 s, bound to this key, its tenant and this Operation: GET /v1/operations/{operationId}/live?ticket=… upgrades to a WebSocket (browsers cannot send the key's headers on one). The connection then hears of every committed change (what an ACCOUNT key may read only) and who else is here; it closes within 10 s of its key's revocation. See docs/live.md for the messages.",
    tag: "Live",
    roles: ["OPERATOR", "ACCOUNT"],
    writes: false,
    params: operationIdParam,
    responses: { 201: { description: "A ticket.", schema: liveTicketRepresentation } },
    errors: ["not_found"],
  },
  async function handleIssueLiveTicket(c, { params }) {
    await getVisibleOperation(c.var.db, c.var.principal, params.operationId);
    const viewer = await liveViewerOf(c.var.control, c.var.db, c.var.principal, params.operationId);
    const primary = openDb(c.env, "CONTROL", "first-primary", c.var.trace);
    const [ticket] = await Promise.all([
      operationStub(c.env, params.operationId).issueLiveTicket(viewer),
      noteLiveKey(primary, viewer.keyId, viewer.tenantId, params.operationId),
    ]);
    return c.json(ticket, 201);
  },
);
