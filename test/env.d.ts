import type { D1Migration } from "@cloudflare/vitest-plugin";
import type { Env as WorkerEnv } from "../src/platform/core/env";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_CONTROL_MIGRATIONS: D1Migration[];
      TEST_TENANT_MIGRATIONS: D1Migration[];
      /** A shard every test tenant is placed on ("": each goes to the shard with the fewest tenants). */
      TEST_SHARD: string;
      /** The output of `wrangler deploy --dry-run` (vitest.config.ts). */
      PRODUCTION_BUNDLE: string;
      /** JSON of wrangler.toml's [[ratelimits]] (vitest.config.ts). */
      WRANGLER_RATELIMITS: string;
      TINY_RATE_LIMIT_READ: RateLimit;
      TINY_RATE_LIMIT_WRITE: RateLimit;
      TINY_RATE_LIMIT_EVALUATE: RateLimit;
      TINY_RATE_LIMIT_AUTH_FAILURES: RateLimit;
      /** The Node webhook receiver started by vitest.config.ts (test/support/webhook-receiver.mjs). */
      TEST_RECEIVER_URL: string;
    }
  }
}
