import type { CommandExecutor } from "./commands";
import type { ShardName } from "./shards";

export interface Env {
  /** The control database: the tenant directory (tenant → shard) and API keys. */
  CONTROL: D1Database;
  /** Tenant shards: each tenant's rows live in exactly one. */
  [shard: ShardName]: D1Database;
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
