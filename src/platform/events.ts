import type { Db } from "./database";
import { idPrefixes, newId } from "./ids";
import { events } from "./tables";
import { nowIso } from "./time";

/** Every kind of change the log records (and webhooks deliver). */
export const EVENT_TYPES = [
  "operation.created",
  "operation.updated",
  "operation.status_changed",
  "operation.deleted",
  "operation.schedule_failed",
  "lines.upserted",
  "lines.removed",
  "accounts.attached",
  "accounts.detached",
  "directory.upserted",
  "rule.created",
  "rule.updated",
  "rule.deleted",
  "rules.upserted",
  "rules.deleted",
  "quota_default.updated",
  "cart.created",
  "order.created",
  "order.blocked",
  "key.created",
  "key.revoked",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  tenantId: string;
  type: EventType;
  actor: string;
  operationId?: string | null;
  ruleId?: string | null;
  data: Record<string, unknown>;
}

/** The insert for one event: put it in the same batch as the change it records. */
export function appendEvent(db: Db, event: NewEvent) {
  return db.insert(events).values({
    id: newId(idPrefixes.event),
    tenantId: event.tenantId,
    type: event.type,
    operationId: event.operationId ?? null,
    ruleId: event.ruleId ?? null,
    actor: event.actor,
    at: nowIso(),
    data: event.data,
  });
}
