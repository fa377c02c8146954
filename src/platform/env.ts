import type { CommandExecutor } from "./commands";

export interface Env {
  DB: D1Database;
  OPERATION_COORDINATOR: DurableObjectNamespace<CommandExecutor>;
  ASSETS: Fetcher;
  /** A secret (never a committed var): the HMAC key of pagination tokens; serve() refuses to run without it. */
  PAGINATION_SECRET: string;
  D1_LIMITS_GUARD?: string;
  /** Origins browser pages may call the API from: a comma list ("https://admin.example.com"); none by default. */
  CORS_ORIGINS?: string;
  /** Per-key request budgets by class (wrangler.toml [[ratelimits]]). */
  RATE_LIMIT_READ: RateLimit;
  RATE_LIMIT_WRITE: RateLimit;
  RATE_LIMIT_EVALUATE: RateLimit;
}
