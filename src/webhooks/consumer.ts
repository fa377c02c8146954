import type { Env } from "../platform/env";
import { logFailure } from "../platform/errors";
import { isTenantMovingFailure } from "../platform/tenancy";
import { attemptDelivery } from "./delivery";
import type { WebhookMessage } from "./messages";
import { handOnEvents } from "./outbox";

/**
 * The webhook queue's consumer: each message on its own, so one slow receiver does not hold the
 * others. A message whose work throws (a database unreachable) is retried by the queue, and after
 * its retries lands in the dead-letter queue; the records stay pending and the sweep resumes them.
 */
export async function consumeWebhookMessages(batch: MessageBatch<WebhookMessage>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      const work = message.body;
      try {
        if (work.kind === "hand-on") await handOnEvents(env, work.shard, work.tenantId);
        else await attemptDelivery(env, work.shard, work.deliveryId);
        message.ack();
      } catch (error) {
        // The tenant is being moved off this shard: the sweep of its new shard takes over.
        if (isTenantMovingFailure(error)) return message.ack();
        logFailure(message.id, `webhooks: ${work.kind}`, error);
        message.retry();
      }
    }),
  );
}
