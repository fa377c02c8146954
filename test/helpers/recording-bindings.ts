// Bindings a test swaps in (call's `env` option) to see what the Worker sends them, or to make them fail.
import { interceptRoundTrips } from "../../src/platform/data/database";

/** A queue binding that keeps what is sent to it. */
export function recordingQueue(): { queue: Queue; sent: unknown[] } {
  const sent: unknown[] = [];
  const queue = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((message) => message.body)),
  } as unknown as Queue;
  return { queue, sent };
}

/** The real D1 binding, with `hook` told of every statement prepared on it (through its sessions too) before it is. */
function onPrepare(database: D1Database, hook: (query: string) => void): D1Database {
  const hooked = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(inner, prop) {
        if (prop === "prepare") {
          return (query: string) => {
            hook(query);
            return (inner as unknown as D1Database).prepare(query);
          };
        }
        if (prop === "withSession") return (start?: string) => hooked((inner as unknown as D1Database).withSession(start));
        const value = Reflect.get(inner, prop, inner);
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
  return hooked(database);
}

/** A D1 binding that records the SQL of every statement prepared on it (through its sessions too), as it is prepared. */
export function recordingD1(database: D1Database): { database: D1Database; statements: string[] } {
  const statements: string[] = [];
  return { database: onPrepare(database, (query) => statements.push(query)), statements };
}

/** One D1 round trip: the SQL of its statement (of each, for a batch) and how many rows came back. */
export interface AnsweredRoundTrip {
  queries: string[];
  rows: number;
}

/** Rows in what a round trip answered: a D1Result, a batch's list of them, raw()'s rows, or first()'s row. */
function rowsIn(answer: unknown): number {
  if (Array.isArray(answer)) return answer.reduce((sum: number, item) => sum + (item && typeof item === "object" && "results" in item ? rowsIn(item) : 1), 0);
  if (answer && typeof answer === "object") return "results" in answer && Array.isArray(answer.results) ? answer.results.length : 1;
  return 0;
}

/** The real D1 binding (its sessions too), keeping each round trip's SQL and the rows it answered: what a request read, and how much. */
export function answeringD1(database: D1Database): { database: D1Database; roundTrips: AnsweredRoundTrip[] } {
  const roundTrips: AnsweredRoundTrip[] = [];
  const answering = (target: D1Database | D1DatabaseSession): D1Database =>
    ({
      ...interceptRoundTrips(target, async (queries, call) => {
        const answer = await call();
        roundTrips.push({ queries, rows: rowsIn(answer) });
        return answer;
      }),
      withSession: (start?: string) => answering(database.withSession(start)),
      getBookmark: () => ("getBookmark" in target ? target.getBookmark() : null),
    }) as unknown as D1Database;
  return { database: answering(database), roundTrips };
}

/** The real D1 binding, where every statement matching `failing` fails, as a database that breaks mid-request would. */
export function failingD1(database: D1Database, failing: RegExp): D1Database {
  return onPrepare(database, (query) => {
    if (failing.test(query)) throw new Error(`D1 unavailable (injected) for: ${query.slice(0, 80)}`);
  });
}

/** A queue binding whose every send fails, as an unavailable queue would. */
export function failingQueue(): Queue {
  const fail = async () => {
    throw new Error("queue unavailable (injected)");
  };
  return { send: fail, sendBatch: fail } as unknown as Queue;
}
