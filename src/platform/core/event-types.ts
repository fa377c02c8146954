// Pure (no database): the console imports it too.

/** Every kind of change the log records (and webhooks deliver). */
export const EVENT_TYPES = [
  "operation.created",
  "operation.updated",
  "operation.status_changed",
  "operation.deleted",
  "operation.schedule_failed",
  "operation.reverted",
  "operation.approved",
  "operation.rejected",
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
  "order.cancelled",
  "order.blocked",
  "allocation.updated",
  "allocation.exhausted",
  "key.created",
  "key.revoked",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
