import type { ShardName } from "./shards";

export interface Env {
  /** The control database: the tenant directory (tenant → shard) and API keys. */
  CONTROL: D1Database;
  /** Tenant shards: each tenant's rows live in exactly one. */
  [shard: ShardName]: D1Database;
  /** One Durable Object per Operation (its class and commands: src/app.ts). */
  OPERATION_COORDINATOR: DurableObjectNamespace;
  /** One Durable Object per tenant: its moves to another shard (src/tenants/mover.ts). */
  TENANT_MOVER: DurableObjectNamespace;
  ASSETS: Fetcher;
  /** Change history past its hot window: one object per tenant, day and Operation (src/history/archive/). */
  HISTORY_ARCHIVE: R2Bucket;
  /** A secret (never a committed var): the HMAC key of pagination tokens; without it serve() answers 503 service_misconfigured. */
  PAGINATION_SECRET: string;
  /** A secret (never a committed var): the HMAC key that signs API keys (src/platform/core/key-format.mjs); without it serve() answers 503 service_misconfigured. */
  KEY_SIGNING_SECRET: string;
  D1_LIMITS_GUARD?: string;
  /** Origins browser pages may call the API from: a comma list ("https://admin.example.com"); none by default. */
  CORS_ORIGINS?: string;
  /** Per-key request budgets by class (wrangler.toml [[ratelimits]]). */
  RATE_LIMIT_READ: RateLimit;
  RATE_LIMIT_WRITE: RateLimit;
  RATE_LIMIT_EVALUATE: RateLimit;
  /** Failed authentications per client address (CF-Connecting-IP). */
  RATE_LIMIT_AUTH_FAILURES: RateLimit;
  /** Webhook work: events to hand on, deliveries to attempt (src/webhooks/messages.ts). */
  WEBHOOK_QUEUE: Queue;
  /** Where a delivery is parked after its last failed attempt. */
  WEBHOOK_DEAD_LETTERS: Queue;
  /** "on": webhooks may also go to http(s)://127.0.0.1 and localhost (local development). */
  WEBHOOKS_ALLOW_LOCAL?: string;
  /** The deployed commit (set by `npm run deploy`): answers name the build as <version>+<commit>. */
  BUILD_COMMIT?: string;
  /** Seconds between attempts as a comma list (the default is in src/webhooks/delivery.ts); one attempt more than delays. */
  WEBHOOK_RETRY_DELAYS?: string;
  /** A tenant move's rest after each piece of its work, in multiples of that work's time (the default is MOVE_PACE.restPerWork). */
  MOVE_REST_PER_WORK?: string;
  /** A tenant move's chunk guard: a statement this long (ms) halves the next chunk (the default is MOVE_PACE.chunkMs). */
  MOVE_CHUNK_MS?: string;
}
