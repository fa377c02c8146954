import type { Env } from "../platform/core/env";
import { logFailure } from "../platform/core/errors";
import { primaryDb } from "../platform/data/database";
import { isTenantMovingFailure, readPlacement } from "../platform/data/tenancy";
import { attemptDelivery } from "./delivery";
import type { WebhookMessage } from "./messages";
import { handOnEvents } from "./outbox";

/** One piece of work however many messages of the batch ask for it: a busy tenant sends a hand-on per write. */
const workKey = (work: WebhookMessage) => (work.kind === "hand-on" ? `hand-on ${work.shard} ${work.tenantId}` : `deliver ${work.shard} ${work.deliveryId}`);

/** How long work a move's cutover refused waits before it runs again (the fence lasts at most 2 s). */
export const CUTOVER_RETRY_SECONDS = 2;

async function run(work: WebhookMessage, env: Env): Promise<void> {
  if (work.kind === "deliver") return attemptDelivery(env, work.shard, work.deliveryId);
  try {
    await handOnEvents(env, work.shard, work.tenantId);
  } catch (error) {
    // The tenant left the shard the message names (its rows there are a move's copy, fenced): hand on where it is now.
    if (!isTenantMovingFailure(error)) throw error;
    const placement = await readPlacement({ nearest: primaryDb(env, "CONTROL") }, work.tenantId);
    if (!placement || placement.shard === work.shard) throw error;
    await handOnEvents(env, placement.shard, work.tenantId);
  }
}

/**
 * The webhook queue's consumer: each distinct piece of work once, all at the same time, so one slow
 * receiver does not hold the others. Work that throws (a database unreachable) has its messages
 * retried by the queue, and after their retries they land on the dead-letter queue; the records
 * stay pending and the sweep resumes them.
 */
export async function consumeWebhookMessages(batch: MessageBatch<WebhookMessage>, env: Env): Promise<void> {
  const byWork = new Map<string, Message<WebhookMessage>[]>();
  for (const message of batch.messages) {
    const key = workKey(message.body);
    const same = byWork.get(key);
    if (same) same.push(message);
    else byWork.set(key, [message]);
  }
  await Promise.all(
    [...byWork.values()].map(async (messages) => {
      const work = messages[0].body;
      try {
        await run(work, env);
        for (const message of messages) message.ack();
      } catch (error) {
        // A move's cutover holds the tenant's writes for a moment: the same work again once it has switched.
        if (isTenantMovingFailure(error)) {
          for (const message of messages) message.retry({ delaySeconds: CUTOVER_RETRY_SECONDS });
          return;
        }
        logFailure(messages[0].id, `webhooks: ${work.kind}`, error);
        for (const message of messages) message.retry();
      }
    }),
  );
}
