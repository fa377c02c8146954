import { Hono, type Context } from "hono";
import { routePath } from "hono/route";
import { HTTPException } from "hono/http-exception";
import type { Coordinator } from "./commands";
import { openDb, type Db } from "./database";
import type { Env } from "./env";
import type { Principal, RequestScope } from "./principal";
import { isTenantMovingFailure, tenantMovingError, type TenantPlacement } from "./tenancy";
import { traceOf, type RequestTrace } from "./trace";
import { cors } from "./cors";
import { ApiError, INTERNAL_PROBLEM, logFailure, problemResponse } from "./errors";
import { invalidJsonError } from "./validation";

/** What a request carries beside its input, set once by the app's middleware. */
export interface AppVariables {
  requestId: string;
  /** What the request did so far (its log line and x-d1-bookmark are made from it). */
  trace: RequestTrace;
  /** The control database (keys, the tenant directory), as this request sees it. */
  control: Db;
  /** The request's tenant shard, set once the key is known: every read and write of tenant data. */
  db: Db;
  principal: Principal;
  /** Where the principal's tenant lives, and whether it is being moved. */
  placement: TenantPlacement;
  scope: RequestScope;
  /** Sends the request's Operation commands to their Durable Objects. */
  coordinator: Coordinator;
}

export interface AppBindings {
  Bindings: Env;
  Variables: AppVariables;
}

export type App = Hono<AppBindings>;

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

/**
 * The tenant's shard on its primary, for a write computed from what it reads (a bulk rule write):
 * its read must be the latest state, not a replica's.
 */
export function tenantPrimaryDb(c: Context<AppBindings>): Db {
  return openDb(c.env, c.var.principal.shard, "first-primary", c.var.trace);
}

/** Marks the answer of a dry run: what the call would answer, nothing changed. */
export const DRY_RUN_HEADER = "svc-dry-run";

/** How a batch write's 200 documents that header. */
export const DRY_RUN_ANSWER_HEADERS = { [DRY_RUN_HEADER]: "true on a dry run" };

/** A batch write's JSON answer; a dry run's is marked svc-dry-run: true (it is what the call would answer, and nothing changed). */
export function batchAnswer(c: Context<AppBindings>, dryRun: boolean, body: unknown): Response {
  if (dryRun) c.header(DRY_RUN_HEADER, "true");
  return c.json(body as Record<string, unknown>);
}
