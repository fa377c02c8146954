import type { Env } from "../platform/core/env";
import { logFailure } from "../platform/core/errors";
import { isTenantMovingFailure } from "../platform/data/tenancy";
import { attemptDelivery } from "./delivery";
import type { WebhookMessage } from "./messages";
import { handOnEvents } from "./outbox";

/** One piece of work however many messages of the batch ask for it: a busy tenant sends a hand-on per write. */
const workKey = (work: WebhookMessage) => (work.kind === "hand-on" ? `hand-on ${work.shard} ${work.tenantId}` : `deliver ${work.shard} ${work.deliveryId}`);

async function run(work: WebhookMessage, env: Env): Promise<void> {
  if (work.kind === "hand-on") await handOnEvents(env, work.shard, work.tenantId);
  else await attemptDelivery(env, work.shard, work.deliveryId);
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
        // The tenant is being moved off this shard: the sweep of its new shard takes over.
        if (isTenantMovingFailure(error)) {
          for (const message of messages) message.ack();
          return;
        }
        logFailure(messages[0].id, `webhooks: ${work.kind}`, error);
        for (const message of messages) message.retry();
      }
    }),
  );
}
