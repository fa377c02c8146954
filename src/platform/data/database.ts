/*
 * The D1 side: the handles a request, a Durable Object command or a cron works through (a traced
 * session, or the primary), and the production limits every statement is held to in tests.
 * Building the statements is sql.ts's; reading what a failed one broke is constraint-errors.ts's.
 */
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import type { SessionStart } from "./bookmarks";
import type { ShardName } from "../core/shards";
import { countRoundTrip, noteBookmark, type RequestTrace } from "./trace";

export type Db = DrizzleD1Database & { $client: D1Database };

/** D1's per-statement limits (Cloudflare docs). Local D1 does not enforce them. */
export const D1_MAX_BOUND_PARAMETERS = 100;
export const D1_MAX_SQL_BYTES = 100_000;
export const D1_MAX_VALUE_BYTES = 2_000_000;
/** Stay well under D1's 2 MB limit for one bound string/blob value. */
export const D1_MAX_JSON_PARAMETER_BYTES = 1_500_000;

export class D1LimitExceeded extends Error {}

function checkStatement(query: string, params: number): void {
  if (params > D1_MAX_BOUND_PARAMETERS) {
    throw new D1LimitExceeded(`statement binds ${params} parameters (limit ${D1_MAX_BOUND_PARAMETERS})`);
  }
  const bytes = new TextEncoder().encode(query).length;
  if (bytes > D1_MAX_SQL_BYTES) throw new D1LimitExceeded(`statement is ${bytes} bytes of SQL (limit ${D1_MAX_SQL_BYTES})`);
}

/**
 * Wraps a D1 binding so every statement is checked against the production limits.
 * Tests turn it on (D1_LIMITS_GUARD=on) because the local simulator accepts larger statements.
 */
export function guardD1Limits(d1: D1Database): D1Database {
  const wrapStatement = (statement: D1PreparedStatement, query: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop, receiver) {
        if (prop === "bind") {
          return (...values: unknown[]) => {
            checkStatement(query, values.length);
            for (const value of values) {
              if (typeof value === "string" && value.length > 500_000 && new TextEncoder().encode(value).length > D1_MAX_VALUE_BYTES) {
                throw new D1LimitExceeded(`a bound value exceeds D1's ${D1_MAX_VALUE_BYTES}-byte value limit`);
              }
            }
            return wrapStatement(target.bind(...values), query);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(d1, {
    get(target, prop, receiver) {
      if (prop === "prepare") {
        return (query: string) => {
          checkStatement(query, 0);
          return wrapStatement(target.prepare(query), query);
        };
      }
      if (prop === "batch") {
        // Statements were already checked when prepared through this proxy; unwrap is not needed.
        return (statements: D1PreparedStatement[]) => target.batch(statements);
      }
      if (prop === "withSession") {
        // A session prepares statements too: they get the same checks.
        return (start?: string) => guardD1Limits((target as D1Database).withSession(start) as unknown as D1Database);
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A database of the Worker: the control database, or a tenant shard. */
export type DatabaseName = "CONTROL" | ShardName;

/** The bindings a database handle is made from (the Worker's env, or a Durable Object's). */
export type DatabaseBindings = { CONTROL: D1Database; D1_LIMITS_GUARD?: string } & { [shard: ShardName]: D1Database };

export function d1(env: DatabaseBindings, name: DatabaseName): D1Database {
  const database = env[name];
  if (!database) throw new Error(`no D1 binding named ${name}`);
  return env.D1_LIMITS_GUARD === "on" ? guardD1Limits(database) : database;
}

/** The two ways a D1 binding or session makes round trips. */
export interface D1Preparer {
  prepare(query: string): D1PreparedStatement;
  batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
}

/** Runs one round trip; `queries` are the SQL of the statement, or of every statement of a batch. */
export type AroundRoundTrip = <T>(queries: string[], call: () => Promise<T>) => Promise<T>;

const UNWRAPPED = Symbol("the statement under interceptRoundTrips");
const QUERY = Symbol("the statement's SQL");
type Intercepted = D1PreparedStatement & { [UNWRAPPED]?: D1PreparedStatement; [QUERY]?: string };

/**
 * `target`'s prepare and batch with every round trip (a statement's first/all/run/raw, a batch)
 * run through `around`: what the request trace counts with, and what the bench delays.
 */
export function interceptRoundTrips(target: D1Preparer, around: AroundRoundTrip): D1Preparer {
  const wrap = (statement: D1PreparedStatement, query: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(inner, prop) {
        if (prop === UNWRAPPED) return inner;
        if (prop === QUERY) return query;
        if (prop === "bind") return (...values: unknown[]) => wrap(inner.bind(...values), query);
        if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
          return (...args: unknown[]) => around([query], () => (inner[prop] as (...a: unknown[]) => Promise<unknown>).apply(inner, args));
        }
        const value = Reflect.get(inner, prop, inner);
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
  return {
    prepare: (query) => wrap(target.prepare(query), query),
    batch: <T>(statements: D1PreparedStatement[]) =>
      around(
        statements.map((statement) => (statement as Intercepted)[QUERY] ?? ""),
        () => target.batch<T>(statements.map((statement) => (statement as Intercepted)[UNWRAPPED] ?? statement)),
      ),
  };
}

/**
 * What a committed batch says of itself to the handle that ran it (sql.ts runBatch): the facts its
 * statements announced. Appending an event announces "events" (events.ts): the handle's trace then
 * says its request or command appended events, whatever its answer (a blocked order's 422 too), and
 * never for a dry run, a refused write or a write that changed nothing, which commit none.
 */
export type CommitFact = "events";

/** The trace of each handle openDb made: where a handle's committed facts are noted. */
const traceOfClient = new WeakMap<object, RequestTrace>();

/** A batch of `db` committed, announcing `facts`: noted on the handle's trace (a handle without one, primaryDb's, notes nothing). */
export function noteCommitted(db: Db, facts: ReadonlySet<CommitFact>): void {
  const trace = traceOfClient.get(db.$client);
  if (trace && facts.has("events")) trace.eventsAppended = true;
}

/**
 * A D1 session (Sessions API) whose every call is counted on `trace` and whose bookmark the trace
 * follows. Reads in a session started unconstrained may be served by a replica; writes always go to
 * the primary; a session started from a bookmark sees every write up to it.
 */
function tracedSession(database: D1Database, start: SessionStart, trace: RequestTrace, followBookmark: boolean): D1Database {
  // Started on first use: a request that reads nothing (a health check, a refused call) touches no binding.
  let started: D1DatabaseSession | undefined;
  const session = () => (started ??= database.withSession(start));
  const getBookmark = () => started?.getBookmark() ?? null;
  const traced = interceptRoundTrips(
    { prepare: (query) => session().prepare(query), batch: (statements) => session().batch(statements) },
    async (_queries, call) => {
      try {
        return await countRoundTrip(trace, call);
      } finally {
        if (followBookmark) noteBookmark(trace, getBookmark());
      }
    },
  );
  // drizzle only prepares and batches; bookmarkOf reads getBookmark.
  return { ...traced, getBookmark } as unknown as D1Database;
}

/**
 * A database as one request (or one Durable Object command) sees it: a D1 session started at
 * `start`, counted on `trace`. Made per request: a session belongs to its request. Without a
 * schema, a drizzle handle costs next to nothing to build. The trace follows the bookmark of a
 * tenant shard (what x-d1-bookmark carries), never the control database's.
 */
export function openDb(env: DatabaseBindings, name: DatabaseName, start: SessionStart, trace: RequestTrace): Db {
  const db = drizzle(tracedSession(d1(env, name), start, trace, name !== "CONTROL")) as Db;
  traceOfClient.set(db.$client, trace);
  return db;
}

/** The bookmark of the latest write or read the handle's session made (null when it made none, or is not a session). */
export function bookmarkOf(db: Db): string | null {
  const client = db.$client as unknown as Partial<D1DatabaseSession>;
  return client.getBookmark?.() ?? null;
}

/** A handle for work outside any request (the cron's housekeeping, a tenant move): on the primary. */
export function primaryDb(env: DatabaseBindings, name: DatabaseName): Db {
  return drizzle(d1(env, name)) as Db;
}
