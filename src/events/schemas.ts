import * as z from "zod";
import { listEnvelope } from "../platform/schema/fields";
import { EVENT_TYPES, type EventType } from "../common/event-types";
import type { events } from "../platform/data/tables";

export const eventRepresentation = z
  .object({
    id: z.string(),
    type: z.enum(EVENT_TYPES).describe("One of the event types; more may be added inside /v1, so tolerate one you do not know."),
    operationId: z.string().optional(),
    ruleId: z.string().optional(),
    actor: z.string(),
    at: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({
    id: "Event",
    examples: [
      {
        id: "evt_01JQ5D9E1F3G5H7J9K1M3N5P7Q",
        type: "operation.status_changed",
        operationId: "op_01JQ3V8K2M5N7P9R1T3W5Y7Z9B",
        actor: "key:key_01JQ3V9A4C6E8G0J2K4N6Q8S0T",
        at: "2026-03-01T07:00:00Z",
        data: { from: "DRAFT", to: "ACTIVE" },
      },
    ],
  });

export const eventPage = listEnvelope(eventRepresentation).meta({ id: "EventPage" });
export type EventRepresentation = z.infer<typeof eventRepresentation>;

/** An event as the change log lists it and as a webhook delivers it. */
export function toEventRepresentation(event: typeof events.$inferSelect): EventRepresentation {
  return {
    id: event.id,
    type: event.type as EventType,
    ...(event.operationId && { operationId: event.operationId }),
    ...(event.ruleId && { ruleId: event.ruleId }),
    actor: event.actor,
    at: event.at,
    data: event.data,
  };
}
