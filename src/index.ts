import { buildApp } from "./app";
import { archiveHistory } from "./history/archive/job";
import { sweepSchedules } from "./operations/coordinator/schedule-sweep";
import type { Env } from "./platform/core/env";
import { closeRevokedLiveKeys, forgetIdleLiveKeys } from "./live/keys";
import { logFailure } from "./platform/core/errors";
import { purgeExpiredIdempotencyKeys } from "./platform/http/idempotency";
import { serve } from "./platform/http/serve";
import { consumeWebhookMessages } from "./webhooks/consumer";
import type { WebhookMessage } from "./webhooks/messages";
import { sweepWebhooks, WEBHOOK_SWEEP_CRON } from "./webhooks/outbox";

export { OperationCoordinator, TenantMover } from "./app";

export const app = buildApp();

/** wrangler.toml [triggers]: the webhook, schedule and revoked live keys sweeps every minute (WEBHOOK_SWEEP_CRON), housekeeping (and the history archive) every hour. */
export default {
  fetch: serve(app),
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    if (controller.cron === WEBHOOK_SWEEP_CRON) {
      ctx.waitUntil(sweepWebhooks(env).catch((error) => logFailure(crypto.randomUUID(), "webhook sweep", error)));
      ctx.waitUntil(sweepSchedules(env).catch((error) => logFailure(crypto.randomUUID(), "schedule sweep", error)));
      ctx.waitUntil(closeRevokedLiveKeys(env, controller.scheduledTime).catch((error) => logFailure(crypto.randomUUID(), "live keys sweep", error)));
      return;
    }
    ctx.waitUntil(purgeExpiredIdempotencyKeys(env).catch((error) => logFailure(crypto.randomUUID(), "scheduled purge", error)));
    ctx.waitUntil(forgetIdleLiveKeys(env, controller.scheduledTime).catch((error) => logFailure(crypto.randomUUID(), "live keys housekeeping", error)));
    // As of the time it was scheduled for (a late run archives what it would have, and `npm start` can fire one months ahead).
    ctx.waitUntil(archiveHistory(env, { now: controller.scheduledTime }).catch((error) => logFailure(crypto.randomUUID(), "history archive", error)));
  },
  async queue(batch: MessageBatch, env: Env) {
    await consumeWebhookMessages(batch as MessageBatch<WebhookMessage>, env);
  },
} satisfies ExportedHandler<Env>;
