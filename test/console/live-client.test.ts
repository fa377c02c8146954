import { describe, expect, it } from "vitest";
import {
  LIVE_TIMING,
  LiveClient,
  retryDelay,
  type LiveDeps,
  type LiveNews,
  type LiveSocket,
  type LiveState,
} from "../../console/src/operations/live/liveClient";

/** A socket the test speaks for the server on. */
class FakeSocket implements LiveSocket {
  sent: unknown[] = [];
  closed: number | null = null;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(
    readonly ticket: string,
    readonly since: number | null,
  ) {}
  send(text: string) {
    this.sent.push(JSON.parse(text));
  }
  close(code = 1000) {
    this.closed = code;
  }
  /** The server says `message`. */
  tell(message: object) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  /** The connection drops (or the server closes it with `code`). */
  drop(code = 1006) {
    this.onclose?.({ code });
  }
}

/** A client over fake sockets, tickets and a clock the test moves. */
function harness({ since = 7 as number | null, tickets = [] as (string | Error)[] } = {}) {
  const sockets: FakeSocket[] = [];
  const timers: { at: number; run: () => void; cancelled: boolean }[] = [];
  let now = 1000;
  let issued = 0;
  const deps: LiveDeps = {
    ticket: async () => {
      const next = tickets.shift() ?? `t${++issued}`;
      if (next instanceof Error) throw next;
      return next;
    },
    connect: (ticket, from) => {
      const socket = new FakeSocket(ticket, from);
      sockets.push(socket);
      return socket;
    },
    setTimer: (run, ms) => {
      const timer = { at: now + ms, run, cancelled: false };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    now: () => now,
    random: () => 1,
  };
  const client = new LiveClient(deps, since);
  const states: LiveState[] = [];
  const news: LiveNews[] = [];
  client.onState((state) => states.push(state));
  client.onNews((told) => news.push(told));
  /** Moves the clock by `ms`, running the timers due (and what they start). */
  const advance = async (ms: number) => {
    now += ms;
    for (const timer of timers.filter((t) => !t.cancelled && t.at <= now)) {
      timer.cancelled = true;
      timer.run();
    }
    await settle();
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  const last = () => sockets.at(-1)!;
  const hello = (socket = last(), version = 7) => socket.tell({ type: "hello", you: `c${sockets.length}`, version, seq: 0, viewers: [] });
  return { client, sockets, states, news, advance, settle, last, hello };
}

describe("an Operation's live connection", () => {
  it("opens with a ticket and the version the page read, and is live once greeted", async () => {
    const live = harness({ since: 7 });
    live.client.start();
    await live.settle();
    expect(live.client.current.status).toBe("connecting");
    expect([live.last().ticket, live.last().since]).toEqual(["t1", 7]);
    live.last().tell({ type: "hello", you: "c1", version: 7, seq: 3, viewers: [{ id: "c1", name: "Ana", role: "OPERATOR" }] });
    expect(live.client.current).toMatchObject({ status: "live", you: "c1", viewers: [{ id: "c1", name: "Ana" }] });
    live.last().tell({
      type: "presence",
      viewers: [
        { id: "c1", name: "Ana" },
        { id: "c9", name: "Ben", focus: { variantExternalId: "SKU-1", field: "maxQuantity" } },
      ],
    });
    expect(live.client.current.viewers.map((viewer) => viewer.name)).toEqual(["Ana", "Ben"]);
  });

  it("tells each change and keeps the last version it saw; a drop reconnects after a doubling delay with since = that version", async () => {
    const live = harness({ since: 7 });
    live.client.start();
    await live.settle();
    live.hello();
    live.last().tell({ type: "changed", seq: 4, version: 8, actor: "key:k1", what: "lines", counts: { updated: 1 }, lineKeys: ["SKU-1"], lines: [] });
    // An order happens at the version it found: it moves nothing back.
    live.last().tell({ type: "changed", seq: 5, version: 8, actor: "key:k2", what: "orders", counts: { placed: 1 } });
    expect(live.news.map((told) => told.type === "changed" && [told.what, told.version])).toEqual([
      ["lines", 8],
      ["orders", 8],
    ]);
    expect(live.client.version).toBe(8);

    live.last().drop();
    expect(live.client.current).toMatchObject({ status: "reconnecting", you: null, viewers: [], retryAt: 1000 + LIVE_TIMING.firstDelayMs });
    await live.advance(LIVE_TIMING.firstDelayMs - 1);
    expect(live.sockets).toHaveLength(1);
    await live.advance(1);
    expect([live.last().ticket, live.last().since]).toEqual(["t2", 8]);
    // Down again before a greeting: the next wait is twice as long.
    live.last().drop();
    expect(live.client.current.retryAt).toBe(1000 + LIVE_TIMING.firstDelayMs + 2 * LIVE_TIMING.firstDelayMs);
    await live.advance(2 * LIVE_TIMING.firstDelayMs);
    live.hello();
    expect(live.client.current.status).toBe("live");
    // Greeted: the delays start over.
    live.last().drop();
    expect(live.client.current.retryAt).toBe(1000 + 4 * LIVE_TIMING.firstDelayMs);
  });

  it("spreads and caps the delays", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((attempt) => retryDelay(attempt, 1))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(retryDelay(2, 0)).toBe(2000);
  });

  it("retries a ticket that failed, and tries at once when told the browser is back online", async () => {
    const live = harness({ tickets: [Object.assign(new Error("unavailable"), { status: 503 })] });
    live.client.start();
    await live.settle();
    expect(live.client.current.status).toBe("reconnecting");
    expect(live.sockets).toHaveLength(0);
    live.client.retryNow();
    await live.settle();
    expect(live.sockets).toHaveLength(1);
  });

  it("ends, without retrying, when the key was revoked, the Operation deleted, or the ticket refused", async () => {
    for (const [code, why] of [
      [4001, "revoked"],
      [4004, "deleted"],
    ] as const) {
      const live = harness();
      live.client.start();
      await live.settle();
      live.hello();
      live.last().drop(code);
      expect(live.client.current).toMatchObject({ status: "ended", ended: why });
      await live.advance(60_000);
      expect(live.sockets).toHaveLength(1);
    }
    const refused = harness({ tickets: [Object.assign(new Error("not found"), { status: 404 })] });
    refused.client.start();
    await refused.settle();
    expect(refused.client.current).toMatchObject({ status: "ended", ended: "refused" });
  });

  it("after `reload`, reconnects from the version the server had when it greeted (what the page then read), or later", async () => {
    const live = harness({ since: 2 });
    live.client.start();
    await live.settle();
    live.hello(live.last(), 300);
    live.last().tell({ type: "reload" });
    expect(live.news).toEqual([{ type: "reload" }]);
    live.last().drop();
    await live.advance(LIVE_TIMING.firstDelayMs);
    expect(live.last().since).toBe(300);
    // Told to reload later on (a change the server could not tell): what it saw since stands.
    live.hello(live.last(), 300);
    live.last().tell({ type: "changed", seq: 9, version: 301, actor: "key:k1", what: "status", counts: {} });
    live.last().tell({ type: "reload" });
    live.last().drop();
    await live.advance(LIVE_TIMING.firstDelayMs);
    expect(live.last().since).toBe(301);
  });

  it("sends the person's cell once it settled, at most every focusEveryMs, the latest winning, and again after a reconnect", async () => {
    const live = harness();
    live.client.start();
    await live.settle();
    const cell = (variantExternalId: string) => ({ variantExternalId, field: "maxQuantity" });
    live.client.setFocus(cell("SKU-0"));
    expect(live.last().sent).toEqual([]);
    live.hello();
    await live.advance(LIVE_TIMING.focusSettleMs);
    expect(live.last().sent).toEqual([{ type: "focus", focus: cell("SKU-0") }]);
    // A blur and a focus at once (an editor closing): nothing goes.
    live.client.setFocus(null);
    live.client.setFocus(cell("SKU-0"));
    await live.advance(LIVE_TIMING.focusEveryMs);
    expect(live.last().sent).toHaveLength(1);
    // Ten moves in a burst: one message, the last cell.
    for (let i = 1; i <= 10; i++) live.client.setFocus(cell(`SKU-${i}`));
    await live.advance(LIVE_TIMING.focusSettleMs);
    expect(live.last().sent.at(-1)).toEqual({ type: "focus", focus: cell("SKU-10") });
    expect(live.last().sent).toHaveLength(2);
    live.client.setFocus(cell("SKU-11"));
    await live.advance(LIVE_TIMING.focusSettleMs);
    expect(live.last().sent).toHaveLength(2);
    await live.advance(LIVE_TIMING.focusEveryMs);
    expect(live.last().sent).toHaveLength(3);

    live.last().drop();
    await live.advance(LIVE_TIMING.firstDelayMs);
    live.hello();
    await live.advance(LIVE_TIMING.focusEveryMs);
    expect(live.last().sent).toEqual([{ type: "focus", focus: cell("SKU-11") }]);
  });

  it("closes for good when stopped: no retry, and what the old socket says is ignored", async () => {
    const live = harness();
    live.client.start();
    await live.settle();
    live.hello();
    const socket = live.last();
    live.client.stop();
    expect(socket.closed).toBe(1000);
    socket.drop(1000);
    socket.tell({ type: "changed", seq: 1, version: 9, actor: "key:k", what: "lines", counts: {} });
    await live.advance(60_000);
    expect(live.sockets).toHaveLength(1);
    expect(live.news).toEqual([]);
  });
});
