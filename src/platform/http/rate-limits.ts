import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "./context";
import { BoundedCache } from "../core/bounded-cache";
import type { Env } from "../core/env";
import { ApiError } from "../core/errors";

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

/** 429 rate_limited for a spent budget of `limitClass`, with Retry-After (whose budget: `whose`). */
function rateLimitedError(limitClass: string, whose: string): ApiError {
  const retryAfter = secondsToNextWindow();
  return new ApiError(
    "rate_limited",
    `${whose} has used its ${limitClass} budget for the current ${RATE_LIMIT_PERIOD_SECONDS} s window; retry in ${retryAfter} s.`,
    { limitClass, retryAfter },
    { "retry-after": String(retryAfter) },
  );
}

/**
 * Classes whose routes only read: their work starts while the limiter answers (its round trip is
 * most of a warm evaluation's overhead), and a refusal still answers 429, whatever the work gave.
 */
const CHECKED_ALONGSIDE: ReadonlySet<RateLimitClass> = new Set(["evaluate"]);

/**
 * Counts the request against its API key's budget of `limitClass`; past the budget: 429
 * rate_limited with Retry-After. Counts are per Cloudflare location and approximate.
 */
export function rateLimit(limitClass: RateLimitClass): MiddlewareHandler<AppBindings> {
  const binding = RATE_LIMIT_BINDINGS[limitClass];
  const sequential: MiddlewareHandler<AppBindings> = async (c, next) => {
    const { success } = await c.env[binding].limit({ key: c.var.principal.keyId });
    if (!success) throw rateLimitedError(limitClass, "This key");
    await next();
  };
  if (CHECKED_ALONGSIDE.has(limitClass)) {
    return async (c, next) => {
      // This request's own promise, awaited by this request only; a failure is rethrown below, never left unhandled.
      const verdict = c.env[binding].limit({ key: c.var.principal.keyId }).then(
        ({ success }) => ({ success, error: undefined as unknown }),
        (error: unknown) => ({ success: false, error }),
      );
      await next();
      const { success, error } = await verdict;
      if (error !== undefined) throw error;
      if (!success) throw rateLimitedError(limitClass, "This key");
    };
  }
  return sequential;
}

/** The limitClass of 429s answered to an address past its budget of failed authentications. */
export const AUTH_FAILURE_LIMIT_CLASS = "authentication";
export const AUTH_FAILURE_BINDING = "RATE_LIMIT_AUTH_FAILURES" satisfies keyof Env;

/**
 * Addresses this instance saw spend their failed-authentication budget, with the end of that
 * window: until then their requests that would read a key from the database answer 429 without
 * reading it, and their failures without asking the limiter again.
 */
const spentAddresses = new BoundedCache<string, number>(10_000, RATE_LIMIT_PERIOD_SECONDS * 1000);

/** The address a request came from: Cloudflare sets CF-Connecting-IP on every request it passes on (none: a local call). */
export function clientAddress(request: Request): string | null {
  return request.headers.get("cf-connecting-ip")?.trim() || null;
}

/** 429 when `address` spent its failed-authentication budget in this window (as far as this instance saw). */
export function refuseSpentAddress(address: string | null): void {
  const until = address === null ? undefined : spentAddresses.get(address);
  if (until !== undefined && until > Date.now()) throw rateLimitedError(AUTH_FAILURE_LIMIT_CLASS, "This client address");
}

/**
 * The error a failed authentication answers: 401 `failure`, counted against the address's budget
 * of failures; past it, 429 rate_limited with Retry-After and limitClass "authentication".
 */
export async function authenticationFailure(env: Env, address: string | null, failure: ApiError): Promise<ApiError> {
  if (address === null) return failure;
  refuseSpentAddress(address);
  const { success } = await env[AUTH_FAILURE_BINDING].limit({ key: address });
  if (success) return failure;
  spentAddresses.set(address, Date.now() + secondsToNextWindow() * 1000);
  return rateLimitedError(AUTH_FAILURE_LIMIT_CLASS, "This client address");
}
