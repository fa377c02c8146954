import type { App } from "./context";
import type { Env } from "../core/env";
import { INTERNAL_PROBLEM, logFailure, problemResponseFor, type Problem } from "../core/errors";
import { missingSecrets } from "../core/required-secrets.mjs";
import { guardedStream } from "./streaming";
import { setSecurityHeaders } from "./security-headers";
import { answerBookmark, logRequest, startTrace, type RequestTrace } from "../data/trace";
import { buildVersion, VERSION_HEADER } from "../core/version";

/**
 * The Worker's fetch handler around the app. The app turns a handler's error into problem+json,
 * but some failures happen after a handler returned: a response body that fails while it is read,
 * a `waitUntil` task, a throw past Hono. Those answer problem+json 500 `internal` with
 * x-request-id too, and are logged with their stack; nothing reaches the client as plain text.
 * An answer that streams on purpose (a CSV export) is the exception: it is passed on as it is read,
 * and a failure while it streams is logged and ends the stream in error (src/platform/http/streaming.ts).
 * Every answer carries the request's latest D1 bookmark, the build that answered (svc-api-version)
 * and the security headers (security-headers.ts), and every request leaves one log line.
 */
export function serve(app: App): ExportedHandlerFetchHandler<Env> {
  return async (request, env, ctx) => {
    const trace = startTrace(request);
    const response = await answer(app, request, env, ctx, trace);
    const bookmark = answerBookmark(trace);
    if (bookmark) response.headers.set("x-d1-bookmark", bookmark);
    response.headers.set(VERSION_HEADER, buildVersion(env));
    setSecurityHeaders(response.headers, new URL(request.url).pathname);
    const logLine = () => logRequest(trace, request.method, response.status);
    if (trace.answerStreams && response.body) {
      // Its log line is written once it ends, so it counts the D1 calls of every page.
      const onFailure = (error: unknown) => logFailure(trace.requestId, `${request.method} ${new URL(request.url).pathname} (streamed response body)`, error);
      return new Response(guardedStream(response.body, { onFailure, onEnd: logLine }), response);
    }
    logLine();
    return response;
  };
}

/** The app's answer as a response of our own (its headers can still be set), or a problem+json 500. */
async function answer(app: App, request: Request, env: Env, ctx: ExecutionContext, trace: RequestTrace): Promise<Response> {
  const { requestId } = trace;
  // A deployment without its secrets must not sign tokens or keys with a guessable key: it refuses
  // every request, saying which setting is missing (never a value), until the operator sets it.
  const missing = missingSecrets(env);
  if (missing.length) {
    logFailure(requestId, "configuration", new Error(missingSecretsText(missing)));
    return problemResponseFor(misconfigured(missing), requestId);
  }
  const where = `${request.method} ${new URL(request.url).pathname}`;
  let response: Response;
  try {
    response = await app.fetch(request, env, guardWaitUntil(ctx, requestId, where));
  } catch (error) {
    logFailure(requestId, where, error);
    return problemResponseFor(INTERNAL_PROBLEM, requestId);
  }
  if (response.body === null) return new Response(null, response);
  // An answer that streams on purpose goes out as it is read (serve guards it).
  if (trace.answerStreams) return new Response(response.body, response);
  // Any other body is read here, in this request, so a body that cannot be sent fails where it can
  // still be answered.
  try {
    return new Response(await response.arrayBuffer(), response);
  } catch (error) {
    logFailure(requestId, `${where} (response body)`, error);
    return problemResponseFor(INTERNAL_PROBLEM, requestId);
  }
}

/** What is missing, and how an operator sets it. */
function missingSecretsText(missing: readonly string[]): string {
  const commands = missing.map((name) => `\`wrangler secret put ${name}\``).join(" and ");
  return `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set: ${commands} (locally, \`npm start\` writes ${missing.length > 1 ? "them" : "one"} into .dev.vars).`;
}

function misconfigured(missing: readonly string[]): Problem {
  return { code: "service_misconfigured", detail: `This deployment cannot serve: ${missingSecretsText(missing)}` };
}

/** The execution context with `waitUntil` tasks whose failure is logged instead of lost. */
function guardWaitUntil(ctx: ExecutionContext, requestId: string, where: string): ExecutionContext {
  const waitUntil = (task: Promise<unknown>) => ctx.waitUntil(Promise.resolve(task).catch((error) => logFailure(requestId, `${where} (waitUntil)`, error)));
  return new Proxy(ctx, {
    get(target, property) {
      if (property === "waitUntil") return waitUntil;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
