/**
 * An Operation's live connection as plain logic (docs/live.md): a ticket, then the WebSocket with
 * `since` = the last version seen; the server's messages; reconnecting by itself with a growing
 * delay; the person's cell sent as `focus`, throttled. Nothing here touches the DOM or React: the
 * socket, the ticket and the timers are given, so the unit tests drive it message by message.
 */

/** The cell a person is on. */
export interface LiveFocus {
  variantExternalId: string;
  field: string;
}

/** Someone on the Operation (one connection): a name, never a key. */
export interface LiveViewer {
  id: string;
  name: string;
  role: string;
  focus?: LiveFocus;
}

/** A committed change, as the server tells it. */
export interface ChangedMessage {
  type: "changed";
  seq: number;
  version: number | null;
  actor: string;
  what: "lines" | "accounts" | "status" | "allocation" | "orders" | "operation";
  counts: Record<string, number>;
  lineKeys?: string[];
  lines?: Record<string, unknown>[];
}

/** What the page acts on: a change, or `reload` (the changes missed are no longer kept). */
export type LiveNews = ChangedMessage | { type: "reload" };

/**
 * `connecting`: the first connection is opening; `live`: greeted, changes come; `reconnecting`: it
 * dropped and opens again after `retryAt`; `ended`: it will not (the key was revoked, the Operation
 * deleted, or it may no longer be read).
 */
export type LiveStatus = "connecting" | "live" | "reconnecting" | "ended";
export type LiveEnd = "revoked" | "deleted" | "refused";

export interface LiveState {
  status: LiveStatus;
  /** This connection's id (the viewers list holds it too). */
  you: string | null;
  viewers: readonly LiveViewer[];
  /** When the next attempt starts (reconnecting). */
  retryAt: number | null;
  ended: LiveEnd | null;
}

/** What a browser's WebSocket offers, as far as the client needs it. */
export interface LiveSocket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onopen: (() => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number }) => void) | null;
  onerror: (() => void) | null;
}

/** A ticket the server will not give (401, 403, 404: the key or the Operation is gone): no retry helps. */
const refused = (error: unknown) => [401, 403, 404].includes((error as { status?: unknown } | null)?.status as number);

export interface LiveDeps {
  /** POST …/live-tickets: the ticket, or an error; one with a `status` of 401, 403 or 404 ends it, any other is retried. */
  ticket: () => Promise<string>;
  /** Opens GET …/live?ticket=…&since=… as a WebSocket. */
  connect: (ticket: string, since: number | null) => LiveSocket;
  /** Runs `run` after `ms`; answers how to cancel it. */
  setTimer: (run: () => void, ms: number) => () => void;
  now: () => number;
  /** In [0, 1): spreads the reconnects of many pages dropped at once. */
  random: () => number;
}

export const LIVE_TIMING = {
  /** The first retry's delay; each next one doubles, up to maxDelayMs. */
  firstDelayMs: 1000,
  maxDelayMs: 30_000,
  /** At most one focus message this often (the server takes 5 a second on average). */
  focusEveryMs: 250,
  /** A focus is sent this long after it is set, the latest then: a blur followed at once by a focus (a cell's editor closing) sends nothing. */
  focusSettleMs: 60,
} as const;

/** Close codes that end it (docs/live.md): the key was revoked, the Operation deleted. */
const ENDING_CLOSES: Record<number, LiveEnd> = { 4001: "revoked", 4004: "deleted" };

/** The delay before retry number `attempt` (0 first): doubling, capped, each spread over its upper half. */
export function retryDelay(attempt: number, random: number): number {
  const full = Math.min(LIVE_TIMING.maxDelayMs, LIVE_TIMING.firstDelayMs * 2 ** attempt);
  return Math.round(full * (0.5 + random / 2));
}

const sameFocus = (a: LiveFocus | null, b: LiveFocus | null) => a?.variantExternalId === b?.variantExternalId && a?.field === b?.field;

export class LiveClient {
  private state: LiveState = { status: "connecting", you: null, viewers: [], retryAt: null, ended: null };
  private socket: LiveSocket | null = null;
  private attempt = 0;
  private cancelTimer: (() => void) | null = null;
  private stopped = false;
  /** The Operation's version as far as the page took its changes in: a reconnect asks what came after. */
  private seen: number | null;
  /** The version the server had when it greeted this connection (what a reload reads at least). */
  private greetedAt: number | null = null;
  private focus: LiveFocus | null = null;
  private sentFocus: LiveFocus | null = null;
  private focusSentAt = Number.NEGATIVE_INFINITY;
  private cancelFocus: (() => void) | null = null;
  private readonly stateListeners = new Set<(state: LiveState) => void>();
  private readonly newsListeners = new Set<(news: LiveNews) => void>();

  constructor(
    private readonly deps: LiveDeps,
    since: number | null,
  ) {
    this.seen = since;
  }

  get current(): LiveState {
    return this.state;
  }

  /** The version a reconnect would ask changes after. */
  get version(): number | null {
    return this.seen;
  }

  onState(listener: (state: LiveState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onNews(listener: (news: LiveNews) => void): () => void {
    this.newsListeners.add(listener);
    return () => this.newsListeners.delete(listener);
  }

  start(): void {
    void this.open();
  }

  /** Closes it for good (the page left). */
  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelFocus?.();
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, "left");
  }

  /** Tries again now, not after the delay (the browser is back online). */
  retryNow(): void {
    if (this.state.status !== "reconnecting" || this.socket) return;
    this.cancelTimer?.();
    void this.open();
  }

  /** The person's cell (null: none): sent at most every LIVE_TIMING.focusEveryMs, the latest winning, and again after a reconnect. */
  setFocus(focus: LiveFocus | null): void {
    this.focus = focus;
    this.flushFocus();
  }

  /** Sends the latest focus once it settled, and no sooner than focusEveryMs after the last one. */
  private flushFocus(): void {
    if (this.state.status !== "live" || sameFocus(this.focus, this.sentFocus) || this.cancelFocus) return;
    const wait = Math.max(LIVE_TIMING.focusSettleMs, this.focusSentAt + LIVE_TIMING.focusEveryMs - this.deps.now());
    this.cancelFocus = this.deps.setTimer(() => {
      this.cancelFocus = null;
      if (this.state.status !== "live" || sameFocus(this.focus, this.sentFocus)) return;
      this.sentFocus = this.focus;
      this.focusSentAt = this.deps.now();
      this.send({ type: "focus", focus: this.focus });
    }, wait);
  }

  private send(message: object): void {
    try {
      this.socket?.send(JSON.stringify(message));
    } catch {
      // Closing: its close handler reconnects.
    }
  }

  private setState(change: Partial<LiveState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.stateListeners) listener(this.state);
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    let ticket: string;
    try {
      ticket = await this.deps.ticket();
    } catch (error) {
      if (refused(error)) this.end("refused");
      else this.retryLater();
      return;
    }
    if (this.stopped) return;
    const socket = this.deps.connect(ticket, this.seen);
    this.socket = socket;
    socket.onmessage = (event) => {
      if (this.socket === socket && typeof event.data === "string") this.receive(event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const ending = ENDING_CLOSES[event.code];
      if (ending) this.end(ending);
      else this.retryLater();
    };
  }

  private receive(text: string): void {
    let message: { type?: unknown } & Record<string, unknown>;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    switch (message.type) {
      case "hello":
        this.attempt = 0;
        this.greetedAt = typeof message.version === "number" ? message.version : null;
        // What was sent before the drop is forgotten by the server: the cell is said again.
        this.sentFocus = null;
        this.setState({ status: "live", you: String(message.you), viewers: (message.viewers as LiveViewer[]) ?? [], retryAt: null });
        this.flushFocus();
        return;
      case "presence":
        this.setState({ viewers: (message.viewers as LiveViewer[]) ?? [] });
        return;
      case "changed": {
        const changed = message as unknown as ChangedMessage;
        if (changed.version !== null && (this.seen === null || changed.version > this.seen)) this.seen = changed.version;
        this.tell(changed);
        return;
      }
      case "reload":
        // The page reads everything again, at least as it was when this connection was greeted (never less than it saw).
        if (this.greetedAt !== null && (this.seen === null || this.greetedAt > this.seen)) this.seen = this.greetedAt;
        this.tell({ type: "reload" });
        return;
    }
  }

  private tell(news: LiveNews): void {
    for (const listener of this.newsListeners) listener(news);
  }

  private retryLater(): void {
    if (this.stopped) return;
    const delay = retryDelay(this.attempt++, this.deps.random());
    // Who is here is unknown while it is down: nobody is shown rather than who was.
    this.setState({ status: "reconnecting", you: null, viewers: [], retryAt: this.deps.now() + delay });
    this.cancelTimer = this.deps.setTimer(() => {
      this.cancelTimer = null;
      void this.open();
    }, delay);
  }

  private end(why: LiveEnd): void {
    this.cancelTimer?.();
    this.setState({ status: "ended", ended: why, you: null, viewers: [], retryAt: null });
  }
}
