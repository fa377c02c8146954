import { env } from "cloudflare:test";

/**
 * The control database as seen from a location whose replica lags: a session started anywhere
 * sees no rows, one started on the primary sees them all. Counts the statements each kind of
 * session was asked to run.
 */
export function laggingControl() {
  return laggingReplica(env.CONTROL);
}

/** `database` (the control database or a shard) behind a replica that lags, as laggingControl. */
export function laggingReplica(database: D1Database) {
  const reads = { primary: 0, replica: 0 };
  const binding = new Proxy(database, {
    get(target, prop) {
      if (prop !== "withSession") return Reflect.get(target, prop, target);
      return (start?: string) => {
        const session = target.withSession(start as never);
        if (start === "first-primary") {
          const prepare = (query: string) => {
            reads.primary++;
            return session.prepare(query);
          };
          return { prepare, batch: session.batch.bind(session), getBookmark: () => session.getBookmark() };
        }
        const empty = {
          bind: () => empty,
          all: async () => ({ results: [], success: true, meta: {} }),
          raw: async () => [],
          first: async () => null,
          run: async () => ({ results: [], success: true, meta: {} }),
        };
        const prepare = () => {
          reads.replica++;
          return empty;
        };
        return { prepare, batch: async () => [], getBookmark: () => null };
      };
    },
  });
  return { binding, reads };
}
