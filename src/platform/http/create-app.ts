import { Hono, type Context } from "hono";
import { routePath } from "hono/route";
import { HTTPException } from "hono/http-exception";
import type { App, AppBindings } from "./context";
import { isTenantMovingFailure, tenantMovingError } from "../data/tenancy";
import { traceOf } from "../data/trace";
import { cors } from "./cors";
import { ApiError, INTERNAL_PROBLEM, logFailure } from "../core/errors";
import { problemResponse } from "./problem-response";
import { invalidJsonError } from "../schema/validation";

/**
 * The app with what every request gets whatever its route: a requestId (x-request-id on every
 * answer), CORS for the configured origins, problem+json for every error a handler throws, and a
 * problem+json 404.
 */
export function createApp(): App {
  const app = new Hono<AppBindings>();
  app.use("*", async (c, next) => {
    const trace = traceOf(c.req.raw);
    c.set("trace", trace);
    c.set("requestId", trace.requestId);
    await next();
    trace.route = routePath(c, -1);
    c.res.headers.set("x-request-id", trace.requestId);
  });
  app.use("*", cors);
  app.onError((error, c) => {
    if (error instanceof ApiError) return problemResponse(c, error.problem);
    // Hono's own JSON body parser: malformed JSON.
    if (error instanceof HTTPException && error.status === 400) return problemResponse(c, invalidJsonError(error).problem);
    // A write that reached a shard while its tenant is being moved: the shard's fence refused it.
    if (isTenantMovingFailure(error)) return problemResponse(c, tenantMovingError().problem);
    logFailure(c.get("requestId"), `${c.req.method} ${c.req.routePath}`, error);
    return problemResponse(c, INTERNAL_PROBLEM);
  });
  app.notFound(routeNotFound);
  return app;
}

/** The answer to a request no route takes. */
export function routeNotFound(c: Context<AppBindings>): Response {
  return problemResponse(c, { code: "not_found", detail: `No route ${c.req.method} ${new URL(c.req.url).pathname}.` });
}
