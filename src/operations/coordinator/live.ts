import type { LiveChange, LiveViewer } from "./protocol";

export type { LiveViewer };

/*
 * An Operation's live page, held by its Durable Object with the WebSocket Hibernation API: an idle
 * connection costs no duration, and what a connection is (who, what it may read, where it looks)
 * lives in its attachment, which survives hibernation. The object tells every connection of each
 * change it commits (from where its commands and scheduled changes commit), keeps the last changes
 * so that a client back from a drop gets what it missed, and lists who is here.
 *
 * Storage is touched only once a ticket was issued for the Operation ("live:on"): an Operation nobody
 * watches keeps none.
 */

export const LIVE = {
  /** A ticket opens one connection, within this long of its issue. */
  ticketTtlMs: 60_000,
  /** Changes kept for clients that reconnect (since=<version>). */
  logSize: 200,
  /** The longest message a client may send. */
  maxMessageBytes: 2048,
  /** Focus messages a connection may send: this many a second on average, in bursts of focusBurst. */
  focusPerSecond: 5,
  focusBurst: 20,
  /** Lines sent with a change, at most: beyond, the client reads them. */
  maxLines: 500,
  /**
   * A change is told this long after it commits, with every change committed meanwhile: the writer's
   * answer leaves first (sending to hundreds of connections would otherwise hold it up in the same
   * runtime), and a burst of commits (a save in chunks, a rush of orders) is told in one go.
   */
  settleMs: 50,
} as const;

/** Close codes a client is told (4000–4999 are the application's own). */
export const CLOSE = {
  tooLarge: 1009,
  notJson: 1007,
  unsupported: 1003,
  policy: 1008,
  keyRevoked: 4001,
  operationDeleted: 4004,
} as const;

const KEY = { on: "live:on", log: "live:log:", seq: "live:seq", ticket: "live:ticket:" } as const;
/** A log entry's key: sorted by seq, so a list from one seq on is the changes since. */
const logKey = (seq: number) => `${KEY.log}${String(seq).padStart(15, "0")}`;

export interface Focus {
  variantExternalId: string;
  field: string;
}

interface Attachment extends LiveViewer {
  id: string;
  focus: Focus | null;
  /** Focus messages left to send now, and when they were last counted. */
  tokens: number;
  countedAt: number;
}

/** A change as the log keeps it: the message, with what it reveals to whom. */
export interface ChangedMessage {
  type: "changed";
  seq: number;
  version: number | null;
  /** The change set that made the version (GET /v1/history), when one did: not for orders. */
  changeSetId?: string;
  actor: string;
  what: LiveChange["what"];
  counts: Record<string, number>;
  /** The lines it changed (up to LIVE.maxLines; more: none named, read the lines). */
  lineKeys?: string[];
  /** Those lines as they are now, sent as it happens; a replayed change names them only. */
  lines?: Record<string, unknown>[];
  /** An order's account (orders only): an ACCOUNT key's connections hear only of their own. */
  accountId?: string;
}

/** What one viewer may see of a change: an ACCOUNT key hears of no attachment and of no other account's order; lines it sees as its reads of them show them. */
export function seenBy(viewer: Pick<LiveViewer, "role" | "accountIds">, message: ChangedMessage): ChangedMessage | null {
  if (viewer.role === "OPERATOR") return message;
  if (message.what === "accounts") return null;
  if (message.what === "orders" && (message.accountId === undefined || !viewer.accountIds.includes(message.accountId))) return null;
  return message;
}

const toHex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
const digest = async (text: string) => toHex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));

/** The Operation's live room, kept by its Durable Object (`ctx`): tickets, connections, the change log. */
export class LiveRoom {
  constructor(private readonly ctx: DurableObjectState) {}

  /** A single-use ticket for `viewer`, valid LIVE.ticketTtlMs; only its digest is stored. */
  async issueTicket(viewer: LiveViewer, now = Date.now()): Promise<{ ticket: string; expiresAt: string }> {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const ticket = `lt_${btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "")}`;
    const expiresAt = now + LIVE.ticketTtlMs;
    const stale = [...(await this.ctx.storage.list<{ expiresAt: number }>({ prefix: KEY.ticket })).entries()].filter(([, held]) => held.expiresAt < now);
    await this.ctx.storage.put({ [`${KEY.ticket}${await digest(ticket)}`]: { viewer, expiresAt }, [KEY.on]: true });
    if (stale.length) await this.ctx.storage.delete(stale.map(([key]) => key));
    return { ticket, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The viewer a ticket was issued for, once: a missing, used or expired ticket gives none. */
  async redeem(ticket: string, now = Date.now()): Promise<LiveViewer | null> {
    const key = `${KEY.ticket}${await digest(ticket)}`;
    const held = await this.ctx.storage.get<{ viewer: LiveViewer; expiresAt: number }>(key);
    if (!held) return null;
    await this.ctx.storage.delete(key);
    return held.expiresAt >= now ? held.viewer : null;
  }

  /** Accepts the server side of a connection for `viewer` and greets it: hello, what it missed since `since`, and who is here. */
  async accept(server: WebSocket, viewer: LiveViewer, version: number | null, since: number | null): Promise<void> {
    const attachment: Attachment = { ...viewer, id: crypto.randomUUID(), focus: null, tokens: LIVE.focusBurst, countedAt: Date.now() };
    this.ctx.acceptWebSocket(server, [viewer.keyId]);
    server.serializeAttachment(attachment);
    const seq = (await this.ctx.storage.get<number>(KEY.seq)) ?? 0;
    server.send(JSON.stringify({ type: "hello", you: attachment.id, version, seq, viewers: this.viewersFor(attachment) }));
    if (since !== null) await this.replay(server, attachment, since, version);
    this.sendPresence(attachment.id);
  }

  /** A client that reconnects gets the changes after version `since`, or reload when the log does not reach back that far. */
  private async replay(server: WebSocket, viewer: Attachment, since: number, version: number | null): Promise<void> {
    const log = [...(await this.ctx.storage.list<ChangedMessage>({ prefix: KEY.log })).values()];
    if (version === since) {
      // Nothing bumped the version since; orders (which do not) may have come: those after the last version change.
      const missed = log.filter((message) => message.version === since && message.what === "orders");
      for (const message of missed) this.sendTo(server, viewer, message);
      return;
    }
    const oldest = log[0]?.version ?? null;
    if (oldest === null || oldest > since + 1) {
      server.send(JSON.stringify({ type: "reload" }));
      return;
    }
    for (const message of log.filter((entry) => (entry.version ?? 0) > since || (entry.version === since && entry.what === "orders")))
      this.sendTo(server, viewer, message);
  }

  /** A client's message: a focus (rate-limited), a ping; anything else closes that connection with a code that says why. */
  message(ws: WebSocket, data: string | ArrayBuffer): void {
    if (typeof data !== "string") {
      ws.close(CLOSE.unsupported, "send JSON text");
      return;
    }
    if (data.length > LIVE.maxMessageBytes) {
      ws.close(CLOSE.tooLarge, `at most ${LIVE.maxMessageBytes} characters a message`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      ws.close(CLOSE.notJson, "not JSON");
      return;
    }
    const sent = parsed as { type?: unknown; focus?: unknown };
    if (sent?.type === "ping") {
      ws.send(JSON.stringify({ type: "pong" }));
      return;
    }
    if (sent?.type !== "focus") {
      ws.close(CLOSE.policy, 'a message is { "type": "focus", "focus": { "variantExternalId", "field" } | null }');
      return;
    }
    const focus = focusOf(sent.focus);
    if (focus === undefined) {
      ws.close(CLOSE.policy, "focus is { variantExternalId, field } (text of at most 128 characters) or null");
      return;
    }
    const attachment = ws.deserializeAttachment() as Attachment;
    const now = Date.now();
    attachment.tokens = Math.min(LIVE.focusBurst, attachment.tokens + ((now - attachment.countedAt) / 1000) * LIVE.focusPerSecond);
    attachment.countedAt = now;
    // A flood is dropped, not answered: the last focus kept stands until tokens come back.
    if (attachment.tokens < 1) {
      ws.serializeAttachment(attachment);
      return;
    }
    attachment.tokens -= 1;
    attachment.focus = focus;
    ws.serializeAttachment(attachment);
    this.sendPresence(attachment.id);
  }

  /** A connection went away: its close is answered, and the others see it leave. */
  closed(ws: WebSocket, code?: number): void {
    try {
      ws.close(code === undefined || code === 1005 || code === 1006 ? 1000 : code, "bye");
    } catch {
      // Already closed (an error, or the runtime answered the close itself).
    }
    const attachment = ws.deserializeAttachment() as Attachment | null;
    if (attachment) this.sendPresence(attachment.id, attachment.id);
  }

  /** broadcast, or, when that fails, lost: a change is told, or every page reloads. */
  async broadcastOrReload(change: Omit<ChangedMessage, "type" | "seq">): Promise<void> {
    try {
      await this.broadcast(change);
    } catch (error) {
      await this.lost();
      throw error;
    }
  }

  /** Tells every connection of a committed change (each what it may see) and keeps it for reconnects. */
  async broadcast(change: Omit<ChangedMessage, "type" | "seq">): Promise<void> {
    if (!(await this.ctx.storage.get<boolean>(KEY.on))) return;
    const seq = ((await this.ctx.storage.get<number>(KEY.seq)) ?? 0) + 1;
    const message: ChangedMessage = { type: "changed", seq, ...change };
    // Each change is its own entry, kept without its lines (a value holds at most 128 KiB).
    const { lines: _lines, ...kept } = message;
    await this.ctx.storage.put({ [KEY.seq]: seq, [logKey(seq)]: kept });
    if (seq > LIVE.logSize) await this.ctx.storage.delete(logKey(seq - LIVE.logSize));
    // Every OPERATOR connection gets the same text, and every ACCOUNT one the same but for orders: made once each.
    const texts = new Map<string, string | null>();
    for (const ws of this.ctx.getWebSockets()) {
      const viewer = ws.deserializeAttachment() as Attachment;
      const view = viewer.role === "OPERATOR" ? "operator" : message.what === "orders" ? `account:${viewer.accountIds.join(",")}` : "account";
      if (!texts.has(view)) texts.set(view, textFor(viewer, message));
      const text = texts.get(view);
      if (text) send(ws, text);
    }
  }

  /**
   * A committed change that could not be told: the log no longer says what was missed, so it is
   * dropped (a reconnect with since gets reload) and every open page is told to reload now.
   */
  async lost(): Promise<void> {
    const kept = [...(await this.ctx.storage.list({ prefix: KEY.log })).keys()];
    // A delete takes at most 128 keys.
    for (let i = 0; i < kept.length; i += 128) await this.ctx.storage.delete(kept.slice(i, i + 128));
    for (const ws of this.ctx.getWebSockets()) send(ws, JSON.stringify({ type: "reload" }));
  }

  /** Whether a ticket was ever issued for the Operation: only then are its changes kept and told. */
  async listening(): Promise<boolean> {
    return (await this.ctx.storage.get<boolean>(KEY.on)) === true;
  }

  /** Connections held now. */
  get connections(): number {
    return this.ctx.getWebSockets().length;
  }

  /** Connections held now by a key. */
  connectionsOf(keyId: string): number {
    return this.ctx.getWebSockets(keyId).length;
  }

  /** Closes the connections of a key (revoked); answers how many. */
  closeKey(keyId: string): number {
    const sockets = this.ctx.getWebSockets(keyId);
    for (const ws of sockets) ws.close(CLOSE.keyRevoked, "the key was revoked");
    return sockets.length;
  }

  /** Closes every connection (the Operation was deleted). */
  closeAll(code: number, reason: string): void {
    for (const ws of this.ctx.getWebSockets()) ws.close(code, reason);
  }

  private sendTo(ws: WebSocket, viewer: Attachment, message: ChangedMessage): void {
    const text = textFor(viewer, message);
    if (text) send(ws, text);
  }

  /** Everyone here, as `viewer` may see them: an ACCOUNT key sees only its own user's connections. */
  private viewersFor(viewer: Attachment, leaving?: string) {
    return this.ctx
      .getWebSockets()
      .map((ws) => ws.deserializeAttachment() as Attachment)
      .filter((other) => other.id !== leaving && (viewer.role === "OPERATOR" || other.userId === viewer.userId))
      .map((other) => ({ id: other.id, name: other.name, role: other.role, ...(other.focus && { focus: other.focus }) }));
  }

  private sendPresence(changed: string, leaving?: string): void {
    for (const ws of this.ctx.getWebSockets()) {
      const viewer = ws.deserializeAttachment() as Attachment;
      if (viewer.id === leaving) continue;
      try {
        ws.send(JSON.stringify({ type: "presence", viewers: this.viewersFor(viewer, leaving), changed }));
      } catch {
        // Closing: nothing to tell it.
      }
    }
  }
}

/** A change as one viewer is sent it (null: not for it). */
function textFor(viewer: Pick<LiveViewer, "role" | "accountIds">, message: ChangedMessage): string | null {
  const seen = seenBy(viewer, message);
  if (!seen) return null;
  const { accountId: _account, ...sent } = seen;
  return JSON.stringify(sent);
}

function send(ws: WebSocket, text: string): void {
  try {
    ws.send(text);
  } catch {
    // A connection closing as we send: its close handler tells the others.
  }
}

/** A focus as a client sends it: undefined when malformed. */
function focusOf(value: unknown): Focus | null | undefined {
  if (value === null) return null;
  if (typeof value !== "object") return undefined;
  const { variantExternalId, field, ...rest } = value as Record<string, unknown>;
  const text = (item: unknown) => typeof item === "string" && item.length > 0 && item.length <= 128;
  if (Object.keys(rest).length || !text(variantExternalId) || !text(field)) return undefined;
  return { variantExternalId: variantExternalId as string, field: field as string };
}
