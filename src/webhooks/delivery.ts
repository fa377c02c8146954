import { and, eq } from "drizzle-orm";
import { toEventRepresentation } from "../events/schemas";
import { hmacSha256Hex } from "../platform/core/crypto";
import { primaryDb } from "../platform/data/database";
import type { Env } from "../platform/core/env";
import { shardNames, type ShardName } from "../platform/core/shards";
import { events, tenantFences } from "../platform/data/tables";
import { readPlacement } from "../platform/data/tenancy";
import { webhookDeliveries, webhooks } from "./tables";
import { nowIso } from "../platform/core/time";
import { API_VERSION } from "../platform/core/version";
import type { ParkedDelivery, WebhookMessage } from "./messages";

/**
 * Seconds to wait after each failed attempt: 8 attempts over 32.6 hours, each wait at most the
 * 12 hours a queue message can be delayed. WEBHOOK_RETRY_DELAYS replaces it (tests use zeros).
 */
export const DEFAULT_RETRY_DELAYS = [60, 300, 1_800, 7_200, 21_600, 43_200, 43_200];

/** A receiver has this long to answer; no answer is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export function retryDelays(env: Pick<Env, "WEBHOOK_RETRY_DELAYS">): number[] {
  const configured = env.WEBHOOK_RETRY_DELAYS?.split(",").map((value) => Number(value.trim()));
  return configured?.length && configured.every((value) => Number.isInteger(value) && value >= 0 && value <= 43_200) ? configured : DEFAULT_RETRY_DELAYS;
}

/** svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>. */
export async function signatureHeader(secret: string, unixSeconds: number, body: string): Promise<string> {
  return `t=${unixSeconds},v1=${await hmacSha256Hex(secret, `${unixSeconds}.${body}`)}`;
}

interface AttemptResult {
  responseStatus: number | null;
  /** Why the attempt failed; null when the receiver answered 2xx in time. */
  error: string | null;
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
  try {
    // Redirects are not followed: the subscription names the receiver, and a 3xx is not a delivery.
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    await response.body?.cancel();
    return { responseStatus: response.status, error: response.ok ? null : `answered ${response.status}` };
  } catch (error) {
    const timedOut = (error as Error)?.name === "TimeoutError";
    return {
      responseStatus: null,
      error: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : `could not connect: ${String((error as Error)?.message ?? error)}`.slice(0, 300),
    };
  }
}

/** A pending delivery with what its attempt sends: the subscription's address and secret, and the event. */
export interface DueAttempt {
  deliveryId: string;
  tenantId: string;
  /** Attempts recorded so far. */
  attempts: number;
  webhook: Pick<typeof webhooks.$inferSelect, "id" | "url" | "secret">;
  event: typeof events.$inferSelect;
}

/** A delivery as an attempt reads it, and whether a move fences its tenant on that shard. */
async function readDelivery(env: Env, shard: ShardName, deliveryId: string) {
  const [found] = await primaryDb(env, shard)
    .select({ delivery: webhookDeliveries, webhook: webhooks, event: events, fence: tenantFences.state })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .leftJoin(tenantFences, eq(tenantFences.tenantId, webhookDeliveries.tenantId))
    .where(eq(webhookDeliveries.id, deliveryId))
    .limit(1);
  return found;
}

/** The tenant's cutover is under way (≤ 2 s): the consumer sends the message again a moment later. */
export class DeliveryAwaitsCutover extends Error {
  constructor(tenantId: string) {
    super(`tenant_moving: ${tenantId} is switching shards; the delivery is attempted once it has`);
  }
}

/**
 * An attempt of the delivery, if it is still pending (a message may arrive after it finished or went).
 * The message names the shard of its tenant when it was sent; a move may have taken the tenant away
 * since. The delivery is attempted where the directory places the tenant now: never on a move's copy
 * (fenced: its record would be refused after the receiver got the event), nor lost with a dropped one.
 */
export async function attemptDelivery(env: Env, shard: ShardName, deliveryId: string): Promise<void> {
  let found = await readDelivery(env, shard, deliveryId);
  for (const other of shardNames(env)) {
    // Not here: gone (finished, unsubscribed), or its tenant moved off this shard and the old copy was dropped.
    if (found || other === shard) continue;
    found = await readDelivery(env, other, deliveryId);
    if (found) shard = other;
  }
  if (found?.fence) {
    const placement = await readPlacement({ nearest: primaryDb(env, "CONTROL") }, found.delivery.tenantId);
    if (!placement) return;
    if (placement.shard === shard) throw new DeliveryAwaitsCutover(found.delivery.tenantId);
    shard = placement.shard;
    found = await readDelivery(env, shard, deliveryId);
    if (found?.fence) throw new DeliveryAwaitsCutover(found.delivery.tenantId);
  }
  if (found?.delivery.status !== "pending") return;
  const { delivery, webhook, event } = found;
  await attempt(env, shard, { deliveryId: delivery.id, tenantId: delivery.tenantId, attempts: delivery.attempts, webhook, event });
}

/**
 * One attempt of one delivery: POST the event, signed, then record the outcome. A failure with
 * attempts left schedules the next one (a delayed message; the sweep re-sends it if that is lost);
 * the last failure marks it failed and parks it in the dead-letter queue. Each record is guarded by
 * the attempt count it read, so a repeated message never records one attempt twice.
 */
export async function attempt(env: Env, shard: ShardName, due: DueAttempt): Promise<void> {
  const { webhook, event } = due;
  const db = primaryDb(env, shard);
  const body = JSON.stringify(toEventRepresentation(event));
  const result = await post(
    webhook.url,
    {
      "content-type": "application/json",
      "user-agent": `campaign-policy-webhooks/${API_VERSION}`,
      "svc-webhook-id": webhook.id,
      "svc-event-id": event.id,
      "svc-delivery-id": due.deliveryId,
      "svc-signature": await signatureHeader(webhook.secret, Math.floor(Date.now() / 1000), body),
    },
    body,
  );

  const attempts = due.attempts + 1;
  const delays = retryDelays(env);
  const now = new Date();
  const lastAttemptAt = now.toISOString();
  const outcome = result.error === null ? ("delivered" as const) : attempts > delays.length ? ("failed" as const) : ("pending" as const);
  const delaySeconds = outcome === "pending" ? delays[attempts - 1] : undefined;
  const [recorded] = await db
    .update(webhookDeliveries)
    .set({
      status: outcome,
      attempts,
      responseStatus: result.responseStatus,
      lastError: result.error,
      lastAttemptAt,
      nextAttemptAt: delaySeconds === undefined ? null : new Date(now.getTime() + delaySeconds * 1000).toISOString(),
    })
    .where(and(eq(webhookDeliveries.id, due.deliveryId), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attempts, due.attempts)))
    .returning({ id: webhookDeliveries.id });
  // Another copy of this message recorded this attempt first: it schedules what follows.
  if (!recorded) return;

  if (delaySeconds !== undefined) {
    const next: WebhookMessage = { kind: "deliver", shard, deliveryId: due.deliveryId };
    await env.WEBHOOK_QUEUE.send(next, { delaySeconds });
  } else if (outcome === "failed") {
    const parked: ParkedDelivery = {
      shard,
      tenantId: due.tenantId,
      webhookId: webhook.id,
      deliveryId: due.deliveryId,
      eventId: event.id,
      attempts,
      responseStatus: result.responseStatus,
      lastError: result.error,
      failedAt: nowIso(),
    };
    await env.WEBHOOK_DEAD_LETTERS.send(parked);
  }
}
