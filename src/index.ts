import { bodyLimit } from "hono/body-limit";
import { authenticate } from "./platform/auth";
import { createApp, type App } from "./platform/app";
import { ApiError, logFailure } from "./platform/errors";
import { serve } from "./platform/serve";
import { idempotency, purgeExpiredIdempotencyKeys } from "./platform/idempotency";
import type { Env } from "./platform/env";
import { buildOpenApiDocument } from "./platform/openapi";
import { mountRoleChecks, mountRoutes, registeredRoutes } from "./platform/routes";
import { mountBenchRoutes } from "./bench/routes";
import { listEvents } from "./events/list";
import { operationRoutes } from "./operations/routes";
import { resourceRoutes } from "./resources";

export { OperationCoordinator } from "./operations/durable-object";

const MAX_BODY_BYTES = 8 * 1024 * 1024;

function buildApp(): App {
  const app = createApp();

  app.get("/v1/openapi.json", (c) => c.json(openApiDocument()));
  // Asset responses have immutable headers: copy them so the request-id middleware can add x-request-id.
  const asset = async (assets: Fetcher, request: Request) => {
    const response = await assets.fetch(request);
    return new Response(response.body, response);
  };
  app.get("/docs", (c) => asset(c.env.ASSETS, new Request(new URL("/docs/index.html", c.req.url))));
  app.get("/docs/*", (c) => asset(c.env.ASSETS, c.req.raw));

  const routes = [...operationRoutes, ...resourceRoutes, listEvents];
  // Check order (API.md §2): credentials and the route's roles answer before the body's size or content.
  app.use("/v1/*", authenticate);
  mountRoleChecks(app, routes);
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes (8 MiB).`);
      },
    }),
    idempotency,
  );

  mountRoutes(app, routes);
  mountBenchRoutes(app);
  return app;
}

let cachedDocument: Record<string, unknown> | undefined;
function openApiDocument() {
  cachedDocument ??= buildOpenApiDocument(registeredRoutes);
  return cachedDocument;
}

export const app = buildApp();

export default {
  fetch: serve(app),
  /** Hourly housekeeping (wrangler.toml [triggers]). */
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    ctx.waitUntil(purgeExpiredIdempotencyKeys(env).catch((error) => logFailure(crypto.randomUUID(), "scheduled purge", error)));
  },
} satisfies ExportedHandler<Env>;
