import type { QueryClient } from "@tanstack/react-query";
import type { Line, Operation } from "../../api/operations";
import type { queryKeys as QueryKeys } from "../../shared/queryKeys";
import { effectsOf, withLiveLines, type LinesView } from "./liveChanges";
import { LiveClient, type LiveNews, type LiveSocket } from "./liveClient";

/**
 * One live connection per open Operation, shared by what its page shows (the header's `Here now`,
 * the lines grid): the first to ask opens it, and it closes a little after the last let go, so going
 * from Lines to Orders keeps it. It keeps the page's reads current: each change told moves the
 * Operation's version on, puts the lines it sent in the cached views, and reads again what it made stale.
 *
 * It is a chunk loaded beside the page (useLiveOperation.ts), and imports no module of the console's
 * first load: what it needs of them is handed in (`LiveNeeds`), or the build would split that load.
 */

/** Lines that changed, for the grid's unsaved edits; `all`: some changed unnamed (read yours again). */
export interface LinesNews {
  lines: Line[];
  removed: string[];
  all: boolean;
}

export interface LiveHandle {
  client: LiveClient;
  /**
   * Lines that changed elsewhere among `edited()` (the grid's rows with unsaved edits), as they are
   * now: those a change sent, or read again when a change named none.
   */
  onEditedLines: (edited: () => ReadonlySet<string>, take: (lines: Line[]) => void) => () => void;
  release: () => void;
}

/** What the connection needs of the page: its session's calls, its cache and the version it read. */
export interface LiveNeeds {
  /** Who asks (a session): another session never reuses this one's connection. */
  session: object;
  queryClient: QueryClient;
  queryKeys: typeof QueryKeys;
  version: number;
  /** POST …/live-tickets (an error with status 401, 403 or 404 when the key or the Operation is gone). */
  ticket: () => Promise<string>;
  /** The lines of these variants as they are now. */
  readLines: (variants: string[]) => Promise<Line[]>;
}

/** How long a connection nobody uses stays open: a move to another view of the Operation keeps it. */
const LINGER_MS = 5000;

interface Connection {
  session: object;
  client: LiveClient;
  users: number;
  closing: ReturnType<typeof setTimeout> | null;
  linesListeners: Set<(news: LinesNews) => void>;
  detach: () => void;
}

const connections = new Map<string, Connection>();

export function acquireLive(operationId: string, needs: LiveNeeds): LiveHandle {
  let connection = connections.get(operationId);
  // Another session (signed out and in again) never reuses the last one's connection.
  if (connection && connection.session !== needs.session) {
    close(operationId, connection);
    connection = undefined;
  }
  if (!connection) connection = open(operationId, needs);
  const held = connection;
  if (held.closing) clearTimeout(held.closing);
  held.closing = null;
  held.users++;
  let released = false;
  return {
    client: held.client,
    onEditedLines: (edited, take) => {
      const listener = async (news: LinesNews) => {
        const rows = edited();
        if (!rows.size) return;
        const lines = news.all ? await needs.readLines([...rows]) : news.lines.filter((line) => rows.has(line.variantExternalId));
        if (lines.length) take(lines);
      };
      const heard = (news: LinesNews) => void listener(news);
      held.linesListeners.add(heard);
      return () => held.linesListeners.delete(heard);
    },
    release: () => {
      if (released) return;
      released = true;
      if (--held.users === 0) held.closing = setTimeout(() => close(operationId, held), LINGER_MS);
    },
  };
}

function close(operationId: string, connection: Connection) {
  connection.client.stop();
  connection.detach();
  if (connections.get(operationId) === connection) connections.delete(operationId);
}

function open(operationId: string, { session, queryClient, queryKeys, version, ticket, readLines }: LiveNeeds): Connection {
  const client = new LiveClient(
    {
      ticket,
      connect: (issued, since) =>
        new WebSocket(
          `${location.origin.replace(/^http/, "ws")}/v1/operations/${operationId}/live?ticket=${encodeURIComponent(issued)}${since === null ? "" : `&since=${since}`}`,
        ) as unknown as LiveSocket,
      setTimer: (run, ms) => {
        const timer = setTimeout(run, ms);
        return () => clearTimeout(timer);
      },
      now: () => Date.now(),
      random: Math.random,
    },
    version,
  );
  const connection: Connection = { session, client, users: 0, closing: null, linesListeners: new Set(), detach: () => {} };
  connections.set(operationId, connection);

  const tellLines = (news: LinesNews) => {
    for (const listener of connection.linesListeners) listener(news);
  };
  /** Lines in their state now, in every cached view of the Operation's lines (a view that cannot place a new one reads again). */
  const putLines = (lines: Line[], removed: string[]) => {
    for (const [key, data] of queryClient.getQueriesData<Parameters<typeof withLiveLines>[0]>({ queryKey: queryKeys.lines.of(operationId) })) {
      if (!data) continue;
      const next = withLiveLines(data, key[2] as LinesView, lines, removed);
      if (next) queryClient.setQueryData(key, next);
      else void queryClient.invalidateQueries({ queryKey: key, exact: true });
    }
    tellLines({ lines, removed, all: false });
  };
  const readAllLines = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.lines.of(operationId) });
    tellLines({ lines: [], removed: [], all: true });
  };
  const take = async (news: LiveNews) => {
    const effects = effectsOf(queryKeys, operationId, news);
    const { version: after } = effects;
    if (after !== null) {
      queryClient.setQueryData<Operation>(queryKeys.operation(operationId), (operation) =>
        operation && after > operation.version ? { ...operation, version: after } : operation,
      );
    }
    if (effects.lines.length || effects.removed.length) putLines(effects.lines, effects.removed);
    if (effects.linesToRead.length) {
      const found = await readLines(effects.linesToRead);
      const held = new Set(found.map((line) => line.variantExternalId));
      putLines(
        found,
        effects.linesToRead.filter((key) => !held.has(key)),
      );
    }
    if (effects.allLines) readAllLines();
    for (const queryKey of effects.stale) void queryClient.invalidateQueries({ queryKey });
  };
  // One change after another, in the order told: a line read for a replayed change never lands over a later one.
  let taking = Promise.resolve();
  client.onNews((news) => {
    // Lines that could not be read: all are read again rather than shown as they were.
    taking = taking.then(() => take(news)).catch(readAllLines);
  });
  client.onState((state) => {
    // Deleted: the page reads it again and says so (404).
    if (state.ended === "deleted") void queryClient.invalidateQueries({ queryKey: queryKeys.operation(operationId) });
  });
  // Back online: no need to wait for the next attempt.
  const online = () => client.retryNow();
  window.addEventListener("online", online);
  connection.detach = () => window.removeEventListener("online", online);
  client.start();
  return connection;
}
