import type { Context } from "hono";
import { operationStub } from "../operations/coordinator/runner";
import { ApiError } from "../platform/core/errors";
import { idPrefixes, isWellFormedId } from "../platform/core/ids";
import type { AppBindings } from "../platform/http/context";

/** The path a live connection opens: its own ticket authenticates it (no key header on a WebSocket). */
export const LIVE_PATH = "/v1/operations/:operationId/live";

/**
 * GET …/live?ticket=…&since=<version>: forwarded to the Operation's Durable Object, which redeems the
 * ticket (401 when missing, used, expired or another Operation's) and accepts the WebSocket. Answers
 * before any key is read: the ticket was issued to one.
 */
export async function openLive(c: Context<AppBindings>): Promise<Response> {
  const operationId = c.req.param("operationId") ?? "";
  if (!isWellFormedId(idPrefixes.operation, operationId)) throw new ApiError("not_found", `Operation ${operationId} not found.`);
  const url = new URL(c.req.url);
  const ticket = url.searchParams.get("ticket");
  const since = url.searchParams.get("since");
  if (ticket === null || ticket.length === 0 || ticket.length > 200)
    throw new ApiError("unauthorized", "A live connection needs ?ticket=, from POST …/live-tickets.");
  if (since !== null && !/^\d{1,15}$/.test(since)) {
    throw new ApiError("validation_failed", "since is the version last seen: decimal digits.", {
      errors: [{ field: "query.since", code: "invalid_integer", message: "since must be a whole number" }],
    });
  }
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    throw new ApiError("validation_failed", "GET …/live is a WebSocket: send Upgrade: websocket.", {
      errors: [{ field: "header.upgrade", code: "required", message: "Upgrade: websocket" }],
    });
  }
  url.searchParams.set("operationId", operationId);
  const forwarded = new Request(url, c.req.raw);
  forwarded.headers.set("x-request-id", c.var.requestId);
  const answer = await operationStub(c.env, operationId).fetch(forwarded);
  // The object's answer has immutable headers; the app's own (request id, CORS) are set on a copy.
  return new Response(answer.body, { status: answer.status, headers: answer.headers, webSocket: answer.webSocket });
}
