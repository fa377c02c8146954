import type { MiddlewareHandler } from "hono";
import type { Env } from "../core/env";

/** What a browser page may send and read: the API's own headers (the credentials travel as headers, never cookies). */
const ALLOWED_REQUEST_HEADERS = [
  "svc-client",
  "svc-api-key",
  "svc-store",
  "svc-store-view",
  "locale",
  "Idempotency-Key",
  "If-Match",
  "x-d1-bookmark",
  "content-type",
  "svc-change-reason",
];
const EXPOSED_RESPONSE_HEADERS = ["ETag", "Location", "Retry-After", "Warning", "x-request-id", "x-d1-bookmark", "svc-dry-run", "Allow", "Idempotent-Replayed"];
const ALLOWED_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** CORS_ORIGINS, a comma list of origins ("https://admin.example.com"); none by default. Parsed once per value. */
let parsed: { source: string; origins: Set<string> } | undefined;
function allowedOrigins(source: string | undefined): Set<string> {
  const value = source ?? "";
  if (parsed?.source !== value) {
    parsed = {
      source: value,
      origins: new Set(
        value
          .split(",")
          .map((origin) => origin.trim().replace(/\/+$/, ""))
          .filter(Boolean),
      ),
    };
  }
  return parsed.origins;
}

/**
 * Cross-origin calls from the listed origins. A preflight answers 204 before anything else (no key
 * is sent with one); every other answer, problems included, carries the allowed origin and the
 * exposed headers. An origin not listed gets no CORS header at all, so the browser refuses it.
 */
export const cors: MiddlewareHandler<{ Bindings: Pick<Env, "CORS_ORIGINS"> }> = async (c, next) => {
  const origin = c.req.header("origin");
  const allowed = origin !== undefined && allowedOrigins(c.env.CORS_ORIGINS).has(origin);
  if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method") !== undefined) {
    const headers = new Headers({ vary: "Origin" });
    if (allowed) {
      headers.set("access-control-allow-origin", origin);
      headers.set("access-control-allow-methods", ALLOWED_METHODS.join(", "));
      headers.set("access-control-allow-headers", ALLOWED_REQUEST_HEADERS.join(", "));
      headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    return new Response(null, { status: 204, headers });
  }
  await next();
  c.res.headers.append("vary", "Origin");
  if (allowed) {
    c.res.headers.set("access-control-allow-origin", origin);
    c.res.headers.set("access-control-expose-headers", EXPOSED_RESPONSE_HEADERS.join(", "));
  }
};
