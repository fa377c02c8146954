import type { ShardName } from "../platform/core/shards";

/**
 * What travels on the webhook queue. Messages name work, never carry it: the events table is the
 * outbox and the deliveries table the record, so a message lost, repeated or late changes nothing
 * that a sweep or a repeat cannot put right.
 */
export type WebhookMessage =
  /** The tenant has committed events not yet handed on: create their deliveries. */
  | { kind: "hand-on"; shard: ShardName; tenantId: string }
  /** Attempt this delivery (if it is still pending). */
  | { kind: "deliver"; shard: ShardName; deliveryId: string };

/** What the dead-letter queue keeps of a delivery whose last attempt failed. */
export interface ParkedDelivery {
  shard: ShardName;
  tenantId: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  attempts: number;
  responseStatus: number | null;
  lastError: string | null;
  failedAt: string;
}

/** Queues take at most 100 messages per sendBatch. */
export async function sendMessages(queue: Queue, messages: WebhookMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 100) await queue.sendBatch(messages.slice(i, i + 100).map((body) => ({ body })));
}
