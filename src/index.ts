import { buildApp } from "./app";
import type { Env } from "./platform/env";
import { logFailure } from "./platform/errors";
import { purgeExpiredIdempotencyKeys } from "./platform/idempotency";
import { serve } from "./platform/serve";

export { OperationCoordinator } from "./coordinator/durable-object";

export const app = buildApp();

export default {
  fetch: serve(app),
  /** Hourly housekeeping (wrangler.toml [triggers]). */
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    ctx.waitUntil(purgeExpiredIdempotencyKeys(env).catch((error) => logFailure(crypto.randomUUID(), "scheduled purge", error)));
  },
} satisfies ExportedHandler<Env>;
