import { approvalCommands } from "./approvals/commands";
import { approvalRoutes } from "./approvals/routes";
import { displayRoutes } from "./display/routes";
import { attachmentCommands } from "./attachments/commands";
import { attachmentRoutes } from "./attachments/routes";
import { checkoutCommands } from "./checkout/commands";
import { checkoutRoutes } from "./checkout/routes";
import { totalsRoutes } from "./totals/routes";
import { allocationRoutes } from "./allocation/routes";
import { liveRoutes } from "./live/routes";
import { LIVE_PATH, openLive } from "./live/upgrade";
import { allocationCommands } from "./allocation/commands";
import { compareRoutes } from "./compare/routes";
import { directoryRoutes } from "./directory/routes";
import { eventRoutes } from "./events/routes";
import { frontRoutes } from "./front/routes";
import { historyRoutes } from "./history/routes";
import { keyRoutes } from "./keys/routes";
import { lineCommands } from "./lines/commands";
import { lineRoutes } from "./lines/routes";
import { OperationObject } from "./operations/coordinator/durable-object";
import { operationCommands } from "./operations/commands";
import { operationRoutes } from "./operations/routes";
import type { MiddlewareHandler } from "hono";
import { createApp } from "./platform/http/create-app";
import type { App, AppBindings } from "./platform/http/context";
import { authenticate } from "./platform/http/auth";
import { isBookmark, sessionStart } from "./platform/data/bookmarks";
import { openDb } from "./platform/data/database";
import { shardNames } from "./platform/core/shards";
import { noteBookmark } from "./platform/data/trace";
import { buildOpenApiDocument } from "./platform/http/openapi";
import { answerUnrouted, mountRoutes, type RouteDefinition } from "./platform/http/routes";
import { commandRegistry, type EventsListener } from "./operations/coordinator/protocol";
import { linesAsShown } from "./lines/queries";
import { quotaRoutes } from "./quotas/routes";
import { revertCommands } from "./revert/commands";
import { revertRoutes } from "./revert/routes";
import { handOnAppendedEvents, requestHandOn } from "./webhooks/outbox";
import { webhookRoutes } from "./webhooks/routes";
import { tenantRoutes } from "./tenants/routes";
import { name as serviceName } from "../package.json";
import { buildVersion } from "./platform/core/version";

/** Every command an Operation's Durable Object runs, by the name the Worker sends it by. */
export const operationObjectCommands = commandRegistry([
  ...operationCommands,
  ...lineCommands,
  ...attachmentCommands,
  ...checkoutCommands,
  ...revertCommands,
  ...approvalCommands,
  ...allocationCommands,
]);

/** Events an Operation's object appended on its own (a scheduled change) go to webhooks now, not at the next sweep. */
const handOnObjectEvents: EventsListener = (env, appended) => requestHandOn(env, appended.shard, appended.tenantId, appended.source);

/** The Operation's Durable Object, running the app's commands and telling its listeners (wrangler.toml binds it as OPERATION_COORDINATOR). */
export class OperationCoordinator extends OperationObject {
  protected readonly commands = operationObjectCommands;
  protected readonly eventsListeners = [handOnObjectEvents];
  protected readonly liveLines = linesAsShown;
}

/** The tenant's move object (wrangler.toml binds it as TENANT_MOVER). */
export { TenantMover } from "./tenants/mover";

/** Every route of the API, in the order the OpenAPI document lists them. */
export const apiRoutes: RouteDefinition[] = [
  ...operationRoutes,
  ...lineRoutes,
  ...directoryRoutes,
  ...attachmentRoutes,
  ...quotaRoutes,
  ...checkoutRoutes,
  ...totalsRoutes,
  ...allocationRoutes,
  ...liveRoutes,
  ...compareRoutes,
  ...frontRoutes,
  ...eventRoutes,
  ...historyRoutes,
  ...revertRoutes,
  ...approvalRoutes,
  ...displayRoutes,
  ...keyRoutes,
  ...webhookRoutes,
  ...tenantRoutes,
];

/**
 * After the key: the tenant's shard as this request sees it (`c.var.db`); its Operations'
 * Durable Objects (`operationCoordinator(c)`) run on the same shard. Reads run in a D1 session
 * started from the client's bookmark (they see every write up to it, on whichever replica serves
 * them), else anywhere; writes go to the primary.
 */
export const openTenantDb: MiddlewareHandler<AppBindings> = async (c, next) => {
  const { shard } = c.var.principal;
  const start = sessionStart(c.req.header("x-d1-bookmark"), shard, shardNames(c.env));
  c.var.trace.shard = shard;
  // An answer that reads nothing newer still carries the bookmark it was asked to honour.
  if (isBookmark(start)) noteBookmark(c.var.trace, start);
  c.set("db", openDb(c.env, shard, start, c.var.trace));
  await next();
};

/**
 * The request path: requestId → db on c.var → docs and the OpenAPI document (no key) →
 * /v1: credentials → the route's chain (`routeChain`, src/platform/http/routes.ts). `extend` mounts
 * more routes (the bench's entry adds its baselines).
 */
export function buildApp(extend?: (app: App) => void): App {
  const app = createApp();
  // The control database (keys, tenant directory) is read in a session of its own, anywhere; the
  // tenant's shard is opened once the key names the tenant. Sessions start on first use.
  app.use("*", async (c, next) => {
    c.set("control", openDb(c.env, "CONTROL", "first-unconstrained", c.var.trace));
    await next();
  });

  // No key, no tenant data, no I/O: cheap enough for a load balancer to poll every second.
  app.get("/healthz", (c) => c.json({ status: "ok", version: buildVersion(c.env) }, 200, { "cache-control": "no-store" }));
  app.get("/", (c) => c.json({ name: serviceName, version: buildVersion(c.env), docs: "/docs", openapi: "/v1/openapi.json", health: "/healthz" }));

  let openApiDocument: Record<string, unknown> | undefined;
  app.get("/v1/openapi.json", (c) => {
    openApiDocument ??= buildOpenApiDocument(apiRoutes);
    return c.json(openApiDocument);
  });
  // Asset responses have immutable headers: copy them so x-request-id can be added.
  const asset = async (assets: Fetcher, request: Request) => {
    const response = await assets.fetch(request);
    return new Response(response.body, response);
  };
  app.get("/docs", (c) => asset(c.env.ASSETS, new Request(new URL("/docs/index.html", c.req.url))));
  // The guides' Markdown as text every browser shows (text/markdown is saved, not shown, by some), in UTF-8.
  app.get("/docs/guides/*", async (c) => {
    const response = await asset(c.env.ASSETS, c.req.raw);
    if (response.ok) response.headers.set("content-type", "text/plain; charset=utf-8");
    return response;
  });
  app.get("/docs/*", (c) => asset(c.env.ASSETS, c.req.raw));
  // The console is a single-page app: its files are assets, and any other /console path is its page.
  const consolePage = (c: { env: { ASSETS: Fetcher }; req: { url: string } }) => asset(c.env.ASSETS, new Request(new URL("/console/index.html", c.req.url)));
  app.get("/console", consolePage);
  app.get("/console/assets/*", (c) => asset(c.env.ASSETS, c.req.raw));
  // The console's icon (its SVG is one of its assets); browsers ask any page of the origin (the docs too) for /favicon.ico.
  app.get("/favicon.ico", (c) => asset(c.env.ASSETS, new Request(new URL("/console/favicon.ico", c.req.url))));
  app.get("/console/*", consolePage);

  // Credentials answer first, for every /v1 request; then each route's own chain (routeChain:
  // budget, access, body size, Idempotency-Key, deprecation, validation, handler). Whatever appended events
  // has them handed on to webhooks once answered (its code runs after the route's).
  // A live connection carries its ticket, not a key (browsers send no headers on a WebSocket): it is
  // answered before the credentials every other /v1 route needs.
  app.get(LIVE_PATH, openLive);
  app.use("/v1/*", authenticate, openTenantDb, handOnAppendedEvents);
  mountRoutes(app, apiRoutes);
  extend?.(app);
  app.notFound(answerUnrouted(apiRoutes));
  return app;
}
