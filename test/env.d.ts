import type { D1Migration } from "@cloudflare/vitest-pool-workers";
import type { Env as WorkerEnv } from "../src/platform/env";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      /** The output of `wrangler deploy --dry-run` (vitest.config.ts). */
      PRODUCTION_BUNDLE: string;
    }
  }
}
