import type { Db } from "./database";
import { idPrefixes, newId } from "../core/ids";
import { announcing } from "./sql";
import { events } from "./tables";
import type { EventType } from "../../common/event-types";
import { nowIso } from "../core/time";

export interface NewEvent {
  tenantId: string;
  type: EventType;
  actor: string;
  operationId?: string | null;
  ruleId?: string | null;
  data: Record<string, unknown>;
  /** Minted here unless given: a caller that records rows under the event's id and time mints them itself. */
  id?: string;
  at?: string;
}

/**
 * The insert for one event: put it in the same batch as the change it records (runBatch). It
 * announces itself: once its batch commits, its handle's trace says events were appended, which
 * the request's outbox (and a Durable Object's listeners) act on.
 */
export function appendEvent(db: Db, event: NewEvent) {
  const insert = db.insert(events).values({
    id: event.id ?? newId(idPrefixes.event),
    tenantId: event.tenantId,
    type: event.type,
    operationId: event.operationId ?? null,
    ruleId: event.ruleId ?? null,
    actor: event.actor,
    at: event.at ?? nowIso(),
    data: event.data,
  });
  return announcing(insert, "events");
}
