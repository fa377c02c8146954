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
 * Classes whose routes only read: their work starts while the limiter answers (its round trip is
 * most of a warm evaluation's overhead), and a refusal still answers 429, whatever the work gave.
 */
const CHECKED_ALONGSIDE: ReadonlySet<RateLimitClass> = new Set(["evaluate"]);

function rateLimited(limitClass: RateLimitClass): ApiError {
  const retryAfter = secondsToNextWindow();
  return new ApiError(
    "rate_limited",
    `This key has used its ${limitClass} budget for the current ${RATE_LIMIT_PERIOD_SECONDS} s window; retry in ${retryAfter} s.`,
    { limitClass, retryAfter },
    { "retry-after": String(retryAfter) },
  );
}

/**
 * Counts the request against its API key's budget of `limitClass`; past the budget: 429
 * rate_limited with Retry-After. Counts are per Cloudflare location and approximate.
 */
export function rateLimit(limitClass: RateLimitClass): MiddlewareHandler<AppBindings> {
  const binding = RATE_LIMIT_BINDINGS[limitClass];
  const sequential: MiddlewareHandler<AppBindings> = async (c, next) => {
    const { success } = await c.env[binding].limit({ key: c.var.principal.keyId });
    if (!success) throw rateLimited(limitClass);
    await next();
  };
  if (CHECKED_ALONGSIDE.has(limitClass)) {
    return async (c, next) => {
      // An Idempotency-Key stores its answer: that write must wait for the verdict.
      if (c.req.header("idempotency-key") !== undefined) return sequential(c, next);
      // This request's own promise, awaited by this request only; a failure is rethrown below, never left unhandled.
      const verdict = c.env[binding].limit({ key: c.var.principal.keyId }).then(
        ({ success }) => ({ success, error: undefined as unknown }),
        (error: unknown) => ({ success: false, error }),
      );
      await next();
      const { success, error } = await verdict;
      if (error !== undefined) throw error;
      if (!success) throw rateLimited(limitClass);
    };
  }
  return sequential;
}
