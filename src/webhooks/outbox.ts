import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../platform/http/context";
import { afterCommit } from "../platform/core/after-commit";
import { primaryDb } from "../platform/data/database";
import { inJsonList, insertFromJson, runBatch } from "../platform/data/sql";
import type { Env } from "../platform/core/env";
import { logFailure } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import { shardNames, type ShardName } from "../platform/core/shards";
import { events } from "../platform/data/tables";
import { webhookDeliveries, webhooks } from "./tables";
import { notFenced } from "../platform/data/tenancy";
import { nowIso } from "../platform/core/time";
import { attempt, type DueAttempt } from "./delivery";
import { matchesEventType } from "./event-patterns";
import { sendMessages, type WebhookMessage } from "./messages";

/** Events handed on per round; a tenant with more left is nudged again. */
const HAND_ON_ROUND = 100;
/** First attempts made right where the deliveries were created (the rest go through the queue). */
const INLINE_ATTEMPTS = 50;
/** The cron (wrangler.toml [triggers]) that runs sweepWebhooks. */
export const WEBHOOK_SWEEP_CRON = "* * * * *";
/** A pending delivery this far past its due time has lost its message: the sweep sends another. */
export const OVERDUE_AFTER_MS = 5 * 60_000;

/**
 * After a request that appended events (its trace says so: src/platform/data/events.ts), whatever its
 * answer, the tenant's new events are handed on to the queue. Never awaited by the answer, and never
 * trusted: if the send fails or the instance dies first, the sweep finds the events still marked not
 * handed on. Reads, dry runs, refusals and writes that changed nothing append no event: no message.
 */
export const handOnAppendedEvents: MiddlewareHandler<AppBindings> = async (c, next) => {
  await next();
  if (!c.var.trace.eventsAppended) return;
  const { shard, tenantId } = c.var.principal;
  await afterCommit(c.var.requestId, "handing appended events on to webhooks (the webhook sweep hands them on)", () =>
    c.executionCtx.waitUntil(requestHandOn(c.env, shard, tenantId, c.var.requestId)),
  );
};

/** Puts a hand-on message for the tenant on the queue; a failure is only logged (the sweep repairs it). */
export async function requestHandOn(env: Env, shard: ShardName, tenantId: string, requestId: string): Promise<void> {
  try {
    await env.WEBHOOK_QUEUE.send({ kind: "hand-on", shard, tenantId } satisfies WebhookMessage);
  } catch (error) {
    logFailure(requestId, "webhooks: hand-on", error);
  }
}

/**
 * Creates the deliveries of the tenant's events not yet handed on (one per matching subscription)
 * and marks the events handed on, in one transaction; then makes their first attempts from what it
 * read (no read per delivery). Running it twice is harmless: a delivery is unique per (subscription, event).
 */
export async function handOnEvents(env: Env, shard: ShardName, tenantId: string): Promise<void> {
  const db = primaryDb(env, shard);
  const pending = await db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), isNull(events.handedOnAt)))
    .orderBy(sql`${events}.rowid`)
    .limit(HAND_ON_ROUND);
  if (!pending.length) return;
  const subscriptions = await db
    .select({ id: webhooks.id, eventTypes: webhooks.eventTypes, url: webhooks.url, secret: webhooks.secret })
    .from(webhooks)
    .where(eq(webhooks.tenantId, tenantId));

  const now = nowIso();
  const deliveries = pending.flatMap((event) =>
    subscriptions
      .filter((subscription) => matchesEventType(subscription.eventTypes, event.type))
      .map((subscription) => ({ id: newId(idPrefixes.delivery), subscription, event })),
  );
  const inserts = insertFromJson(
    webhookDeliveries,
    deliveries,
    [
      [webhookDeliveries.id, (delivery) => delivery.id],
      [webhookDeliveries.tenantId, tenantId],
      [webhookDeliveries.webhookId, (delivery) => delivery.subscription.id],
      [webhookDeliveries.eventId, (delivery) => delivery.event.id],
      [webhookDeliveries.eventType, (delivery) => delivery.event.type],
      [webhookDeliveries.status, "pending"],
      [webhookDeliveries.attempts, 0],
      [webhookDeliveries.nextAttemptAt, now],
      [webhookDeliveries.createdAt, now],
    ],
    { target: [webhookDeliveries.webhookId, webhookDeliveries.eventId] },
  ).map(
    (insert) =>
      sql`${insert} returning ${sql.identifier(webhookDeliveries.id.name)}, ${sql.identifier(webhookDeliveries.webhookId.name)}, ${sql.identifier(webhookDeliveries.eventId.name)}`,
  );
  const markHandedOn = db
    .update(events)
    .set({ handedOnAt: now })
    .where(
      and(
        eq(events.tenantId, tenantId),
        inJsonList(
          events.id,
          pending.map((event) => event.id),
        ),
        isNull(events.handedOnAt),
      ),
    );
  const results = await runBatch(db, [...inserts, markHandedOn]);

  // Only the deliveries this run created (a concurrent run's are its own to start).
  const subscriptionById = new Map(subscriptions.map((subscription) => [subscription.id, subscription]));
  const eventById = new Map(pending.map((event) => [event.id, event]));
  const created = results
    .slice(0, inserts.length)
    .flatMap((result) => result.results as { id: string; webhook_id: string; event_id: string }[])
    .map(
      (row): DueAttempt => ({ deliveryId: row.id, tenantId, attempts: 0, webhook: subscriptionById.get(row.webhook_id)!, event: eventById.get(row.event_id)! }),
    );
  await startDeliveries(env, shard, created);
  if (pending.length === HAND_ON_ROUND) await env.WEBHOOK_QUEUE.send({ kind: "hand-on", shard, tenantId } satisfies WebhookMessage);
}

/** First attempts: the first few here and now (lowest lag), the rest through the queue. */
async function startDeliveries(env: Env, shard: ShardName, due: DueAttempt[]): Promise<void> {
  const queued = due.slice(INLINE_ATTEMPTS).map(({ deliveryId }): WebhookMessage => ({ kind: "deliver", shard, deliveryId }));
  await Promise.all([sendMessages(env.WEBHOOK_QUEUE, queued), ...due.slice(0, INLINE_ATTEMPTS).map((first) => attempt(env, shard, first))]);
}

/**
 * The safety net, every minute: hands on every event a crash or a failed send left behind, and
 * re-sends every delivery whose message was lost (pending, well past due). Tenants being moved are
 * skipped: their shard refuses writes, and the sweep of the shard they move to takes over.
 */
export async function sweepWebhooks(env: Env, now = Date.now()): Promise<{ tenants: number; deliveries: number }> {
  let tenants = 0;
  let deliveries = 0;
  const overdueBefore = new Date(now - OVERDUE_AFTER_MS).toISOString();
  for (const shard of shardNames(env)) {
    const db = primaryDb(env, shard);
    const behind = await db
      .selectDistinct({ tenantId: events.tenantId })
      .from(events)
      .where(and(isNull(events.handedOnAt), notFenced(db, events.tenantId)))
      .limit(1000);
    const lost = await db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, "pending"), lt(webhookDeliveries.nextAttemptAt, overdueBefore), notFenced(db, webhookDeliveries.tenantId)))
      .limit(1000);
    await sendMessages(env.WEBHOOK_QUEUE, [
      ...behind.map(({ tenantId }): WebhookMessage => ({ kind: "hand-on", shard, tenantId })),
      ...lost.map(({ id }): WebhookMessage => ({ kind: "deliver", shard, deliveryId: id })),
    ]);
    tenants += behind.length;
    deliveries += lost.length;
  }
  return { tenants, deliveries };
}
