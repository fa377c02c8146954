import type { Db } from "./database";
import { runBatch, type Statement } from "./sql";
import { idPrefixes, newId } from "./ids";
import { events } from "./tables";
import type { EventType } from "./event-types";
import { nowIso } from "./time";
import type { RequestTrace } from "./trace";


export interface NewEvent {
  tenantId: string;
  type: EventType;
  actor: string;
  operationId?: string | null;
  ruleId?: string | null;
  data: Record<string, unknown>;
}

/*
 * Whether a request appended events is said by whoever appends them, not guessed from its answer:
 * committing a batch that holds an event (or inserting one on its own) records it on the trace of
 * the request, or of the Durable Object command, whose handle committed it. The outbox then hands
 * a request's events on to webhooks once it answers, whatever its status (a blocked order's 422
 * too), and never for a dry run, a refused write or a write that changed nothing: they append none.
 */

/** The inserts appendEvent built: what tells a batch that appends events from one that does not. */
const eventInserts = new WeakSet<object>();
/** The trace each request-scoped handle records its committed events on. */
const appendersTrace = new WeakMap<Db, RequestTrace>();

/** `db` (a request's or a command's handle) with the events it commits recorded on `trace`. */
export function recordingEvents(db: Db, trace: RequestTrace): Db {
  appendersTrace.set(db, trace);
  return db;
}

function noteEventsAppended(db: Db): void {
  const trace = appendersTrace.get(db);
  if (trace) trace.eventsAppended = true;
}

/** The insert for one event: put it in the same batch as the change it records (committed with `commitBatch`). */
export function appendEvent(db: Db, event: NewEvent) {
  const insert = db.insert(events).values({
    id: newId(idPrefixes.event),
    tenantId: event.tenantId,
    type: event.type,
    operationId: event.operationId ?? null,
    ruleId: event.ruleId ?? null,
    actor: event.actor,
    at: nowIso(),
    data: event.data,
  });
  eventInserts.add(insert);
  return insert;
}

/** Runs statements as one D1 batch (one transaction); once it committed, the events among them count as appended. */
export async function commitBatch(db: Db, statements: Statement[]): Promise<D1Result[]> {
  const results = await runBatch(db, statements);
  if (statements.some((statement) => eventInserts.has(statement))) noteEventsAppended(db);
  return results;
}

/** Appends one event on its own, outside any batch (it records something that changed nothing else). */
export async function insertEvent(db: Db, event: NewEvent): Promise<void> {
  await appendEvent(db, event);
  noteEventsAppended(db);
}
