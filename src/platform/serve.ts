import { assignRequestId, type App } from "./app";
import type { Env } from "./env";
import { INTERNAL_PROBLEM, logFailure, problemResponseFor } from "./errors";

/**
 * The Worker's fetch handler around the app. The app turns a handler's error into problem+json,
 * but some failures happen after a handler returned: a response body that fails while it is read,
 * a `waitUntil` task, a throw past Hono. Those answer problem+json 500 `internal` with
 * x-request-id too, and are logged with their stack; nothing reaches the client as plain text.
 */
export function serve(app: App): ExportedHandlerFetchHandler<Env> {
  return async (request, env, ctx) => {
    const requestId = assignRequestId(request);
    if (!env.PAGINATION_SECRET) {
      // A deployment without its secret must not sign tokens with a guessable key: refuse, loudly.
      logFailure(requestId, "configuration", new Error("PAGINATION_SECRET is not set: `wrangler secret put PAGINATION_SECRET` (locally, `npm start` writes one into .dev.vars)."));
      return problemResponseFor(INTERNAL_PROBLEM, requestId);
    }
    const where = `${request.method} ${new URL(request.url).pathname}`;
    let response: Response;
    try {
      response = await app.fetch(request, env, guardWaitUntil(ctx, requestId, where));
    } catch (error) {
      logFailure(requestId, where, error);
      return problemResponseFor(INTERNAL_PROBLEM, requestId);
    }
    if (response.body === null) return response;
    // Read the body here, in this request, so a body that cannot be sent fails where it can still be
    // answered. (A route that streams on purpose, e.g. a CSV export, will need a way past this.)
    try {
      return new Response(await response.arrayBuffer(), response);
    } catch (error) {
      logFailure(requestId, `${where} (response body)`, error);
      return problemResponseFor(INTERNAL_PROBLEM, requestId);
    }
  };
}

/** The execution context with `waitUntil` tasks whose failure is logged instead of lost. */
function guardWaitUntil(ctx: ExecutionContext, requestId: string, where: string): ExecutionContext {
  const waitUntil = (task: Promise<unknown>) =>
    ctx.waitUntil(Promise.resolve(task).catch((error) => logFailure(requestId, `${where} (waitUntil)`, error)));
  return new Proxy(ctx, {
    get(target, property) {
      if (property === "waitUntil") return waitUntil;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
