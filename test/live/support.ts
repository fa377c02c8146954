// A live connection as a test holds it: the messages it got, waited for by what they say (never by time).
import { SELF } from "cloudflare:test";
import { vi } from "vitest";
import { callRoute, expectStatus, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";

export interface LiveMessage {
  type: string;
  [field: string]: unknown;
}

export interface LiveClient {
  socket: WebSocket;
  messages: LiveMessage[];
  closed: { code: number; reason: string } | null;
  /** The first message (from `after` on) that `matches`, waited for as it comes. */
  next(matches: (message: LiveMessage) => boolean, after?: number): Promise<LiveMessage>;
  send(message: unknown): void;
  close(): void;
}

export async function ticketFor(caller: Caller, operationId: string): Promise<string> {
  return expectStatus(await callRoute(caller, routes.issueLiveTicket, { params: { operationId } }), 201).ticket;
}

/** Opens GET …/live with `ticket` (and `since`): the upgrade's answer, and the client when it upgraded. */
export async function openLive(operationId: string, ticket: string, since?: number): Promise<{ response: Response; client: LiveClient | null }> {
  const url = new URL(`http://api.test/v1/operations/${operationId}/live`);
  url.searchParams.set("ticket", ticket);
  if (since !== undefined) url.searchParams.set("since", String(since));
  const response = await SELF.fetch(url.toString(), { headers: { Upgrade: "websocket" } });
  const socket = response.webSocket;
  if (!socket) return { response, client: null };
  socket.accept();
  const client: LiveClient = {
    socket,
    messages: [],
    closed: null,
    next: (matches, after = 0) =>
      vi.waitFor(
        () => {
          const found = client.messages.slice(after).find(matches);
          if (!found) throw new Error(`no such message yet; got ${JSON.stringify(client.messages.map((message) => message.type))}`);
          return found;
        },
        { timeout: 10_000, interval: 10 },
      ),
    send: (message) => socket.send(typeof message === "string" ? message : JSON.stringify(message)),
    close: () => socket.close(1000, "done"),
  };
  socket.addEventListener("message", (event) => client.messages.push(JSON.parse(event.data as string)));
  socket.addEventListener("close", (event) => {
    client.closed = { code: event.code, reason: event.reason };
  });
  return { response, client };
}

/** A live client of `caller` on the Operation, greeted. */
export async function connect(caller: Caller, operationId: string, since?: number): Promise<LiveClient> {
  const { response, client } = await openLive(operationId, await ticketFor(caller, operationId), since);
  if (!client) throw new Error(`no upgrade: ${response.status} ${await response.text()}`);
  await client.next((message) => message.type === "hello");
  return client;
}

/** Waits until the connection is closed, and says how. */
export const closedOf = (client: LiveClient) =>
  vi.waitFor(
    () => {
      if (!client.closed) throw new Error("still open");
      return client.closed;
    },
    { timeout: 10_000, interval: 10 },
  );
