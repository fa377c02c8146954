import { z } from "zod";
import type { events } from "../platform/tables";

/** An event as the change log lists it and as a webhook delivers it. */
export const eventRepresentation = z.object({
  id: z.string(),
  type: z.string(),
  operationId: z.string().optional(),
  ruleId: z.string().optional(),
  actor: z.string(),
  at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type EventRepresentation = z.infer<typeof eventRepresentation>;

export function toEventRepresentation(event: typeof events.$inferSelect): EventRepresentation {
  return {
    id: event.id,
    type: event.type,
    ...(event.operationId && { operationId: event.operationId }),
    ...(event.ruleId && { ruleId: event.ruleId }),
    actor: event.actor,
    at: event.at,
    data: event.data,
  };
}
