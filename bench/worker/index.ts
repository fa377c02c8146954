// The bench's own Worker entry: the API's app plus the baselines `npm run bench` measures against.
// Never deployed: src/index.ts (the production entry) does not import anything under bench/.
import { buildApp, OperationCoordinator as ProductionCoordinator, TenantMover as ProductionMover } from "../../src/app";
import worker from "../../src/index";
import type { Env } from "../../src/platform/core/env";
import { serve } from "../../src/platform/http/serve";
import { traceOf } from "../../src/platform/data/trace";
import { currentD1Delay, withD1Delay } from "./d1-delay";
import { mountBenchRoutes } from "./routes";

/**
 * The Operation's Durable Object as production runs it, on an env whose D1 binding has the bench's
 * simulated distance (bench/worker/d1-delay.ts), plus two bench-only RPC methods.
 */
export class OperationCoordinator extends ProductionCoordinator {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withD1Delay(env));
  }

  /** The D1 delay as this object's isolate sees it (the suite checks it equals the Worker's). */
  benchD1Delay() {
    return currentD1Delay();
  }

  /** A no-op: the cost of the Durable Object hop alone. */
  benchPing(): number {
    return 1;
  }
}

/** The tenant's move object as production runs it, on the same simulated distance to D1. */
export class TenantMover extends ProductionMover {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withD1Delay(env));
  }
}

const production = serve(buildApp(mountBenchRoutes));

/** The floor under everything: a response straight from the entry, no app, no serve(). */
const RAW_PATH = "/__bench/raw";
/** The same plus one JSON log line the size of serve()'s: what logging a request costs here. */
const RAW_LOGGED_PATH = "/__bench/raw-logged";
/** The floor plus one call to the evaluate budget's rate limiter (no log line): what the limiter's round trip costs here. */
const RAW_LIMITED_PATH = "/__bench/raw-limited";

export default {
  async fetch(request, env, ctx) {
    const path = new URL(request.url).pathname;
    if (path === RAW_LIMITED_PATH) {
      const { success } = await env.RATE_LIMIT_EVALUATE.limit({ key: "bench-raw-limited" });
      return new Response(JSON.stringify({ ok: success }), { headers: { "content-type": "application/json" } });
    }
    if (path === RAW_PATH || path === RAW_LOGGED_PATH) {
      if (path === RAW_LOGGED_PATH) {
        console.log(
          JSON.stringify({
            requestId: crypto.randomUUID(),
            tenant: null,
            keyId: null,
            method: request.method,
            route: path,
            status: 200,
            durationMs: 0,
            d1RoundTrips: 0,
            d1SequentialRoundTrips: 0,
          }),
        );
      }
      return new Response('{"ok":true}', { headers: { "content-type": "application/json" } });
    }
    const response = await production(request, withD1Delay(env), ctx);
    // The request's D1 calls (its Durable Object commands' included): sequential/total.
    const trace = traceOf(request);
    const roundTrips = `${trace.d1SequentialRoundTrips}/${trace.d1RoundTrips}`;
    try {
      response.headers.set("x-bench-d1-round-trips", roundTrips);
      return response;
    } catch {
      // Immutable headers (not expected: serve() answers responses of its own).
      const copy = new Response(response.body, response);
      copy.headers.set("x-bench-d1-round-trips", roundTrips);
      return copy;
    }
  },
  // The production crons and webhook consumer, on the same env as the bench's requests.
  scheduled: (controller, env, ctx) => worker.scheduled(controller, withD1Delay(env), ctx),
  queue: (batch, env) => worker.queue(batch, withD1Delay(env)),
} satisfies ExportedHandler<Env>;
