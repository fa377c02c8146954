import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "./app";
import type { Env } from "./env";
import { ApiError } from "./errors";

/** What a request costs: reads, writes and quota evaluations each have their own budget per API key. */
export type RateLimitClass = "read" | "write" | "evaluate";

/**
 * The window of every class, in seconds. wrangler.toml's [[ratelimits]] periods must equal it
 * (test/platform/rate-limits.test.ts checks): Retry-After is computed from it.
 */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

export const RATE_LIMIT_BINDINGS = {
  read: "RATE_LIMIT_READ",
  write: "RATE_LIMIT_WRITE",
  evaluate: "RATE_LIMIT_EVALUATE",
} as const satisfies Record<RateLimitClass, keyof Env>;

/** Seconds until the current window ends: the limiter's windows follow the wall clock. */
export function secondsToNextWindow(now = Date.now()): number {
  return RATE_LIMIT_PERIOD_SECONDS - (Math.floor(now / 1000) % RATE_LIMIT_PERIOD_SECONDS);
}

/**
 * Counts the request against its API key's budget of `limitClass`; past the budget: 429
 * rate_limited with Retry-After. Counts are per Cloudflare location and approximate.
 */
export function rateLimit(limitClass: RateLimitClass): MiddlewareHandler<AppBindings> {
  const binding = RATE_LIMIT_BINDINGS[limitClass];
  return async (c, next) => {
    const { success } = await c.env[binding].limit({ key: c.var.principal.keyId });
    if (!success) {
      const retryAfter = secondsToNextWindow();
      throw new ApiError(
        "rate_limited",
        `This key has used its ${limitClass} budget for the current ${RATE_LIMIT_PERIOD_SECONDS} s window; retry in ${retryAfter} s.`,
        { limitClass, retryAfter },
        { "retry-after": String(retryAfter) },
      );
    }
    await next();
  };
}
