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

import { interceptRoundTrips, type D1Preparer } from "../../src/platform/data/database";

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

/** prepare and batch of `target`, each round trip slept first: on the primary when `onPrimary` or when it writes. */
function delayedCalls(target: D1Preparer, onPrimary: boolean): D1Preparer {
  return interceptRoundTrips(target, (queries, call) => roundTrip(onPrimary || queries.some(isWrite), call));
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

/** `env` with every D1 binding (the control database and each shard) delayed; every other binding is the original's. Made once per env object. */
export function withD1Delay<E extends object>(env: E): E {
  let wrapped = wrappedEnvs.get(env) as E | undefined;
  if (!wrapped) {
    const delayed = new Map<string | symbol, D1Database>();
    for (const [name, value] of Object.entries(env)) {
      if (name === "CONTROL" || name.startsWith("SHARD_")) delayed.set(name, delayedD1(value as D1Database));
    }
    wrapped = new Proxy(env, {
      get(target, prop, receiver) {
        return delayed.get(prop) ?? Reflect.get(target, prop, receiver);
      },
    });
    wrappedEnvs.set(env, wrapped);
  }
  return wrapped;
}
