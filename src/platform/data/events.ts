import type { Db } from "./database";
import { idPrefixes, newId } from "../core/ids";
import { events } from "./tables";
import type { EventType } from "../core/event-types";
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

/** The insert for one event: put it in the same batch as the change it records. Committing it through a request's or a command's handle marks that trace (src/platform/data/database.ts), so the outbox hands it on. */
export function appendEvent(db: Db, event: NewEvent) {
  return db.insert(events).values({
    id: event.id ?? newId(idPrefixes.event),
    tenantId: event.tenantId,
    type: event.type,
    operationId: event.operationId ?? null,
    ruleId: event.ruleId ?? null,
    actor: event.actor,
    at: event.at ?? nowIso(),
    data: event.data,
  });
}
