// Bindings a test swaps in (call's `env` option) to see what the Worker sends them, or to make them fail.

/** A queue binding that keeps what is sent to it. */
export function recordingQueue(): { queue: Queue; sent: unknown[] } {
  const sent: unknown[] = [];
  const queue = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((message) => message.body)),
  } as unknown as Queue;
  return { queue, sent };
}

/** A D1 binding that records the SQL of every statement prepared on it (through its sessions too), as it is prepared. */
export function recordingD1(database: D1Database): { database: D1Database; statements: string[] } {
  const statements: string[] = [];
  const record = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(inner, prop) {
        if (prop === "prepare") {
          return (query: string) => {
            statements.push(query);
            return (inner as unknown as D1Database).prepare(query);
          };
        }
        if (prop === "withSession") return (start?: string) => record((inner as unknown as D1Database).withSession(start));
        const value = Reflect.get(inner, prop, inner);
        return typeof value === "function" ? value.bind(inner) : value;
      },
    });
  return { database: record(database), statements };
}

/** A queue binding whose every send fails, as an unavailable queue would. */
export function failingQueue(): Queue {
  const fail = async () => {
    throw new Error("queue unavailable (injected)");
  };
  return { send: fail, sendBatch: fail } as unknown as Queue;
}
