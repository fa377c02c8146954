import { and, count, eq, ne, sql } from "drizzle-orm";
import { runBatch, writeGuard } from "../platform/data/sql";
import { changeOf, changeStatements, recordedFields, recordsOf, type ChangeRecord, type Writer } from "../platform/data/changes";
import { isWriteGuardFailure } from "../platform/data/constraint-errors";
import { randomSecret } from "../platform/core/crypto";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import type { ShardName } from "../platform/core/shards";
import { afterCommit } from "../platform/core/after-commit";
import type { Db } from "../platform/data/database";
import type { WebhookMessage } from "./messages";
import { webhookDeliveries, webhooks } from "./tables";
import { nowIso } from "../platform/core/time";
import { validationError } from "../platform/schema/validation";
import { getWebhook, type DeliveryRow, type WebhookRow } from "./queries";
import { MAX_WEBHOOKS_PER_TENANT, type CreateWebhookBody, type UpdateWebhookBody } from "./schemas";
import { webhookUrlProblem } from "./urls";

/** The URL policy depends on the instance (WEBHOOKS_ALLOW_LOCAL), so it is checked here, not in the schema. */
function checkUrl(url: string | undefined, allowLocal: boolean): void {
  const problem = url === undefined ? undefined : webhookUrlProblem(url, allowLocal);
  if (problem) throw validationError([{ field: "body.url", code: "invalid_url", message: `url ${problem}.` }]);
}

/** A subscription's fields as history records them: its signing secret only as "[redacted]". */
const WEBHOOK_FIELDS = recordedFields<WebhookRow>(["url", "eventTypes", "description", "secret"], { secret: ["secret"] });

function webhookChanges({ db, principal, author }: Writer, record: ChangeRecord | undefined) {
  return changeStatements(db, { tenantId: principal.tenantId, author, records: recordsOf([record]) });
}

export async function createWebhook(writer: Writer, body: CreateWebhookBody, allowLocal: boolean): Promise<WebhookRow> {
  const { db, principal } = writer;
  checkUrl(body.url, allowLocal);
  const now = nowIso();
  const row: WebhookRow = {
    id: newId(idPrefixes.webhook),
    tenantId: principal.tenantId,
    url: body.url,
    eventTypes: body.eventTypes ?? ["*"],
    description: body.description ?? null,
    secret: `whsec_${randomSecret(32)}`,
    createdAt: now,
    updatedAt: now,
  };
  const existing = db.select({ n: count() }).from(webhooks).where(eq(webhooks.tenantId, principal.tenantId));
  try {
    // The limit is checked in the same transaction as the insert, so concurrent creates cannot pass it together.
    await runBatch(db, [
      writeGuard(sql`(${existing}) < ${MAX_WEBHOOKS_PER_TENANT}`),
      db.insert(webhooks).values(row),
      ...webhookChanges(writer, changeOf("webhook", row.id, null, row, WEBHOOK_FIELDS)),
    ]);
  } catch (error) {
    if (!isWriteGuardFailure(error)) throw error;
    throw new ApiError("too_many_webhooks", `A tenant may have ${MAX_WEBHOOKS_PER_TENANT} webhooks; delete one first.`, { limit: MAX_WEBHOOKS_PER_TENANT });
  }
  return row;
}

export async function updateWebhook(writer: Writer, webhookId: string, patch: UpdateWebhookBody, allowLocal: boolean): Promise<WebhookRow> {
  const { db, principal } = writer;
  checkUrl(patch.url, allowLocal);
  const current = await getWebhook(db, principal.tenantId, webhookId);
  const next: WebhookRow = {
    ...current,
    url: patch.url ?? current.url,
    eventTypes: patch.eventTypes ?? current.eventTypes,
    description: patch.description === undefined ? current.description : patch.description,
  };
  const changed =
    next.url !== current.url || next.description !== current.description || JSON.stringify(next.eventTypes) !== JSON.stringify(current.eventTypes);
  if (!changed) return current;
  next.updatedAt = nowIso();
  const where = and(eq(webhooks.tenantId, principal.tenantId), eq(webhooks.id, webhookId));
  try {
    await runBatch(db, [
      // Still as read, so its record says what it was (a concurrent change or delete: retry, or 404).
      writeGuard(sql`exists (select 1 from ${webhooks} where ${where} and ${webhooks.updatedAt} = ${current.updatedAt})`),
      db.update(webhooks).set({ url: next.url, eventTypes: next.eventTypes, description: next.description, updatedAt: next.updatedAt }).where(where),
      ...webhookChanges(writer, changeOf("webhook", webhookId, current, next, WEBHOOK_FIELDS)),
    ]);
  } catch (error) {
    if (!isWriteGuardFailure(error)) throw error;
    throw new ApiError("version_mismatch", `Webhook ${webhookId} changed while this request ran; read it again and retry.`);
  }
  return next;
}

/** The subscription and its delivery records go together; deliveries in flight find nothing and stop. */
export async function deleteWebhook(writer: Writer, webhookId: string): Promise<void> {
  const { db, principal } = writer;
  const current = await getWebhook(db, principal.tenantId, webhookId);
  const where = and(eq(webhooks.tenantId, principal.tenantId), eq(webhooks.id, webhookId));
  try {
    await runBatch(db, [
      // Still as read, so its record says what it was; deleted meanwhile: 404.
      writeGuard(sql`exists (select 1 from ${webhooks} where ${where} and ${webhooks.updatedAt} = ${current.updatedAt})`),
      db.delete(webhooks).where(where),
      db.delete(webhookDeliveries).where(and(eq(webhookDeliveries.tenantId, principal.tenantId), eq(webhookDeliveries.webhookId, webhookId))),
      ...webhookChanges(writer, changeOf("webhook", webhookId, current, null, WEBHOOK_FIELDS)),
    ]);
  } catch (error) {
    if (!isWriteGuardFailure(error)) throw error;
    throw new ApiError("not_found", `Webhook ${webhookId} not found.`);
  }
}

/**
 * Sends a delivered or failed delivery again: it becomes pending with a new round of attempts
 * (attempts from 0, the retry delays from the first), and its first attempt is asked for at once. A
 * pending one is already being attempted: 409 delivery_pending (a second round beside the first would
 * double its attempts). The message is sent after the commit; if it is lost, the webhook sweep sends
 * the delivery once it is overdue. It changes no subscription, so it writes no change record.
 */
export async function redeliver(
  { db, tenantId, shard, queue, requestId }: { db: Db; tenantId: string; shard: ShardName; queue: Queue; requestId: string },
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  const where = and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, deliveryId));
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: "pending", attempts: 0, nextAttemptAt: nowIso() })
    .where(and(where, ne(webhookDeliveries.status, "pending")))
    .returning();
  if (!row) {
    const [found] = await db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(where).limit(1);
    if (!found) throw new ApiError("not_found", `Delivery ${deliveryId} of webhook ${webhookId} not found.`);
    throw new ApiError("delivery_pending", `Delivery ${deliveryId} is pending: its next attempt is already scheduled.`);
  }
  await afterCommit(requestId, "asking for a redelivery's first attempt (the webhook sweep sends it once overdue)", () =>
    queue.send({ kind: "deliver", shard, deliveryId } satisfies WebhookMessage),
  );
  return row;
}
