import { bookmarkHeader } from "./bookmarks";
import type { ShardName } from "../core/shards";

/**
 * What one request did, for its log line and its answer's headers: plain data, kept per Request
 * (never shared across requests), filled in by the layers it passes through.
 */
export interface RequestTrace {
  requestId: string;
  startedAt: number;
  tenantId: string | null;
  keyId: string | null;
  /** The matched route's pattern (/v1/operations/:operationId), not the path: logs group by it. */
  route: string | null;
  /** D1 calls made for the request, its Durable Object commands' included. */
  d1RoundTrips: number;
  /** Of those, the ones the request waited for one after another (a call started while another was in flight overlaps it). */
  d1SequentialRoundTrips: number;
  /** Calls in flight now: what tells sequential calls from overlapping ones. */
  d1InFlight: number;
  /** The latest D1 bookmark the request saw, of `shard`: answered as x-d1-bookmark. */
  bookmark: string | null;
  /** The tenant shard the request reads and writes (null before the key names it). */
  shard: ShardName | null;
  /**
   * Whether the request committed events (said by whoever appended them, src/platform/data/events.ts),
   * whatever its answer: the outbox hands them on to webhooks once it answers.
   */
  eventsAppended: boolean;
  /** Whether the answer's body streams on purpose (a CSV export): `serve` passes it on unbuffered. */
  answerStreams: boolean;
}

const traces = new WeakMap<Request, RequestTrace>();

export function startTrace(request: Request): RequestTrace {
  const trace = newTrace();
  traces.set(request, trace);
  return trace;
}

/** A trace of work that belongs to no request's answer (a Durable Object command, a background check). */
export function newTrace(): RequestTrace {
  return {
    requestId: crypto.randomUUID(),
    startedAt: Date.now(),
    tenantId: null,
    keyId: null,
    route: null,
    d1RoundTrips: 0,
    d1SequentialRoundTrips: 0,
    d1InFlight: 0,
    bookmark: null,
    shard: null,
    eventsAppended: false,
    answerStreams: false,
  };
}

/** The request's trace (one is started for a request that did not come through `serve`, e.g. in a test). */
export function traceOf(request: Request): RequestTrace {
  return traces.get(request) ?? startTrace(request);
}

/**
 * Bookmarks name a point of the database's history as fixed-width hex fields, so the later of two
 * is the greater string.
 */
export function noteBookmark(trace: RequestTrace, bookmark: string | null | undefined): void {
  if (bookmark && (trace.bookmark === null || bookmark > trace.bookmark)) trace.bookmark = bookmark;
}

/** Counts one D1 round trip around `call`. */
export async function countRoundTrip<T>(trace: RequestTrace, call: () => Promise<T>): Promise<T> {
  trace.d1RoundTrips++;
  if (trace.d1InFlight === 0) trace.d1SequentialRoundTrips++;
  trace.d1InFlight++;
  try {
    return await call();
  } finally {
    trace.d1InFlight--;
  }
}

/** The request's one structured log line (errors are logged apart, with their stack). */
export function logRequest(trace: RequestTrace, method: string, status: number): void {
  console.log(
    JSON.stringify({
      requestId: trace.requestId,
      tenant: trace.tenantId,
      keyId: trace.keyId,
      method,
      route: trace.route,
      status,
      durationMs: Date.now() - trace.startedAt,
      d1RoundTrips: trace.d1RoundTrips,
      d1SequentialRoundTrips: trace.d1SequentialRoundTrips,
    }),
  );
}

/** The answer's x-d1-bookmark: the latest bookmark, named with its shard (none if the request saw none). */
export function answerBookmark(trace: RequestTrace): string | null {
  return trace.bookmark && trace.shard ? bookmarkHeader(trace.shard, trace.bookmark) : null;
}
