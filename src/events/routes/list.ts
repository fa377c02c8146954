import { eq, sql } from "drizzle-orm";
import * as z from "zod";
import { inJsonList } from "../../platform/data/sql";
import { commaList, pageQueryShape } from "../../platform/schema/list-query";
import { listContextOf } from "../../platform/http/context";
import { listPage, mapPage, selectRows, type ListDefinition } from "../../platform/data/pagination";
import { identifierText } from "../../platform/schema/fields";
import { defineRoute } from "../../platform/http/routes";
import { events } from "../../platform/data/tables";
import { eventPage, toEventRepresentation } from "../schemas";

/** Commit order: SQLite assigns rowids in the order transactions commit. */
const commitOrder = sql`${events}.rowid`;
const eventList: ListDefinition = { name: "events", sortable: { id: commitOrder }, id: commitOrder, defaultSort: "id", maxLimit: 500 };
const { limit, nextToken, sort } = pageQueryShape(eventList);

const listEventsQuery = z.strictObject({
  limit,
  nextToken,
  sort: sort.describe(
    "id: oldest first (the default, for following the feed with after); -id: newest first (for reading the latest without the whole history). Both in commit order.",
  ),
  after: identifierText(100)
    .optional()
    .describe("Only events recorded after this event (its id; exclusive). Events are in commit order, so polling with the last id seen never skips one."),
  types: commaList("Comma list of event types, e.g. operation.created,lines.upserted."),
  operationId: identifierText(100).optional().describe("Only events of this Operation."),
});

/**
 * Where `after` stands in commit order: that event's own position, or for an id that is not one of
 * the tenant's events (e.g. "evt_0" to start from the beginning), after the last event with a smaller id.
 */
function commitPositionAfter(tenantId: string, after: string) {
  return sql`coalesce(
    (select rowid from ${events} where ${events.tenantId} = ${tenantId} and ${events.id} = ${after}),
    (select max(rowid) from ${events} where ${events.tenantId} = ${tenantId} and ${events.id} <= ${after}),
    0)`;
}

export default defineRoute(
  {
    method: "get",
    path: "/v1/events",
    operationId: "listEvents",
    summary: "Read the change log",
    description:
      "Every change, recorded in the same transaction as the change itself; oldest first, or newest first with sort=-id. Poll with after=<last id seen> (oldest first).",
    tag: "Events",
    roles: ["OPERATOR"],
    query: listEventsQuery,
    responses: { 200: { description: "One page of events.", schema: eventPage } },
    errors: ["invalid_next_token"],
  },
  async function handleListEvents(c, { query }) {
    const { db, secret, principal } = listContextOf(c);
    const page = await listPage({
      definition: eventList,
      secret,
      scope: { tenant: principal.tenantId },
      query,
      filters: [
        eq(events.tenantId, principal.tenantId),
        query.after ? sql`${commitOrder} > ${commitPositionAfter(principal.tenantId, query.after)}` : undefined,
        query.types && inJsonList(events.type, query.types),
        query.operationId ? eq(events.operationId, query.operationId) : undefined,
      ],
      run: selectRows(db, events),
    });
    return c.json(mapPage(page, ({ row }) => toEventRepresentation(row)));
  },
);
