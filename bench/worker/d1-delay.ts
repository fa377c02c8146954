/*
 * Simulated distance to D1, for the bench only: a wrapper around the D1 binding whose every round
 * trip (statement first/all/run/raw, batch) sleeps before it is sent. A session started
 * "first-primary", and any statement or batch that writes, pays the primary's delay; every other
 * call (a read in a session started unconstrained or from a bookmark) pays the replica's. Calls on
 * the binding itself (no session) go to the primary, as D1's do.
 *
 * The delays are isolate-global numbers set at run time (POST /__bench/d1-delay): the Worker and the
 * Operations' Durable Objects run in the same workerd isolate under `wrangler dev`, which
 * GET /__bench/d1-delay checks by asking a Durable Object what it sees.
 */

export interface D1Delay {
  primaryMs: number;
  replicaMs: number;
}

const delay: D1Delay = { primaryMs: 0, replicaMs: 0 };
/** Round trips delayed so far in this isolate, by kind (what the suite can check the wrapper saw). */
const counts = { primary: 0, replica: 0 };

export function currentD1Delay(): D1Delay & { delayed: typeof counts } {
  return { ...delay, delayed: { ...counts } };
}

export function setD1Delay(next: Partial<D1Delay>): D1Delay {
  for (const key of ["primaryMs", "replicaMs"] as const) {
    const value = next[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 10_000) {
      throw new RangeError(`${key} must be a number of ms in [0, 10000]`);
    }
    delay[key] = value;
  }
  return { ...delay };
}

// Leading whitespace and comments, then the verb.
const WRITE = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*(?:insert|update|delete|replace)\b/i;

export function isWrite(query: string): boolean {
  return WRITE.test(query);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function roundTrip<T>(primary: boolean, call: () => Promise<T>): Promise<T> {
  const ms = primary ? delay.primaryMs : delay.replicaMs;
  counts[primary ? "primary" : "replica"]++;
  if (ms > 0) await sleep(ms);
  return call();
}

const UNWRAPPED = Symbol("bench: the statement under the delay wrapper");
const QUERY = Symbol("bench: the statement's SQL");

type Statement = D1PreparedStatement & { [UNWRAPPED]?: D1PreparedStatement; [QUERY]?: string };

/** A statement whose calls sleep first; everything else (bind, fields the binding reads) passes through. */
function delayedStatement(statement: D1PreparedStatement, query: string, onPrimary: boolean): D1PreparedStatement {
  const primary = onPrimary || isWrite(query);
  return new Proxy(statement, {
    get(target, prop) {
      if (prop === UNWRAPPED) return target;
      if (prop === QUERY) return query;
      if (prop === "bind") return (...values: unknown[]) => delayedStatement(target.bind(...values), query, onPrimary);
      if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
        return (...args: unknown[]) => roundTrip(primary, () => (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The real statements of a batch: each may be wrapped by other proxies (the limits guard) around ours. */
function unwrapped(statements: D1PreparedStatement[]): { real: D1PreparedStatement[]; writes: boolean } {
  let writes = false;
  const real = statements.map((statement) => {
    const query = (statement as Statement)[QUERY];
    if (query !== undefined && isWrite(query)) writes = true;
    return (statement as Statement)[UNWRAPPED] ?? statement;
  });
  return { real, writes };
}

interface Preparer {
  prepare(query: string): D1PreparedStatement;
  batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
}

function delayedCalls(target: Preparer, onPrimary: boolean) {
  return {
    prepare: (query: string) => delayedStatement(target.prepare(query), query, onPrimary),
    batch: <T>(statements: D1PreparedStatement[]) => {
      const { real, writes } = unwrapped(statements);
      return roundTrip(onPrimary || writes, () => target.batch<T>(real));
    },
  };
}

function delayedSession(session: D1DatabaseSession, start: string | undefined): D1DatabaseSession {
  const calls = delayedCalls(session, start === "first-primary");
  return {
    prepare: calls.prepare,
    batch: calls.batch,
    getBookmark: () => session.getBookmark(),
  } as D1DatabaseSession;
}

/** The D1 binding with simulated distance. */
export function delayedD1(database: D1Database): D1Database {
  const calls = delayedCalls(database, true);
  return new Proxy(database, {
    get(target, prop) {
      if (prop === "prepare") return calls.prepare;
      if (prop === "batch") return calls.batch;
      if (prop === "withSession") return (start?: string) => delayedSession(target.withSession(start as never), start);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const wrappedEnvs = new WeakMap<object, object>();

/** `env` with DB replaced by `delayedD1(env.DB)`; every other binding is the original's. Made once per env object. */
export function withD1Delay<E extends { DB: D1Database }>(env: E): E {
  let wrapped = wrappedEnvs.get(env) as E | undefined;
  if (!wrapped) {
    const db = delayedD1(env.DB);
    wrapped = new Proxy(env, {
      get(target, prop, receiver) {
        return prop === "DB" ? db : Reflect.get(target, prop, receiver);
      },
    });
    wrappedEnvs.set(env, wrapped);
  }
  return wrapped;
}
