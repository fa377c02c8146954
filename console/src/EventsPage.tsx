import type { Schemas } from "@campaign-policy/client";
import { useEffect, useRef, useState } from "react";
import { EVENT_TYPES } from "../../src/platform/event-types";
import { useSession } from "./context";
import { ListTable, type Column } from "./PagedList";
import { answer, toRefusal, type Refusal } from "./session";
import { ChoiceFilter, Link, ProblemView, SearchFilter } from "./ui";

type Event = Schemas["Event"];
type EventType = Event["type"];


/** How often the feed asks for what is new, while following it live. */
export const POLL_MS = 2000;
/** Rows shown at first, and added by `Show older`. */
const SHOWN = 200;

const COLUMNS: Column<Event>[] = [
  { header: "At", cell: (event) => <time dateTime={event.at}>{event.at.replace("T", " ").slice(0, 19)}</time> },
  { header: "Type", cell: (event) => <code>{event.type}</code> },
  { header: "Operation", cell: (event) => (event.operationId ? <Link to={`/console/operations/${event.operationId}`}>{event.operationId}</Link> : "") },
  { header: "Actor", cell: (event) => event.actor },
  { header: "Data", cell: (event) => <code className="data">{JSON.stringify(event.data)}</code> },
];

interface Feed {
  /** Oldest first, as the API answers. */
  events: Event[];
  loading: boolean;
  refusal: Refusal | null;
  checkedAt: Date | null;
}

/**
 * The change feed for some filters: every event read once (the API answers oldest first), then,
 * while `live`, what is new every POLL_MS (after the last id seen, so none is skipped).
 */
function useEventFeed(filters: { type: string; operationId: string }, live: boolean): Feed {
  const { api } = useSession();
  const [feed, setFeed] = useState<Feed>({ events: [], loading: true, refusal: null, checkedAt: null });
  const seen = useRef<{ key: string; events: Event[]; read: boolean }>({ key: "", events: [], read: false });
  const key = JSON.stringify(filters);
  useEffect(() => {
    if (seen.current.key !== key) {
      seen.current = { key, events: [], read: false };
      setFeed({ events: [], loading: true, refusal: null, checkedAt: null });
    }
    const current = seen.current;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      const after = current.events.at(-1)?.id;
      let nextToken: string | undefined;
      do {
        const query = { limit: 500, ...(filters.type && { types: [filters.type] }), ...(filters.operationId && { operationId: filters.operationId }), ...(after && { after }), ...(nextToken && { nextToken }) };
        const { data } = await answer(api.GET("/v1/events", { params: { query } }));
        if (stopped) return;
        current.events.push(...data.items);
        nextToken = data.nextToken ?? undefined;
      } while (nextToken);
    };
    const tick = async () => {
      try {
        if (!current.read || live) await read();
        current.read = true;
        if (!stopped) setFeed({ events: [...current.events], loading: false, refusal: null, checkedAt: new Date() });
      } catch (error) {
        if (!stopped) setFeed((previous) => ({ ...previous, loading: false, refusal: toRefusal(error) }));
      }
      if (!stopped && live) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api, key, live]);
  return feed;
}

export function EventsPage() {
  const [type, setType] = useState("");
  const [operationId, setOperationId] = useState("");
  const [live, setLive] = useState(true);
  const [shown, setShown] = useState(SHOWN);
  const feed = useEventFeed({ type, operationId: operationId.trim() }, live);
  const newestFirst = feed.events.slice(-shown).reverse();
  return (
    <section>
      <div className="title-row">
        <h1>Events</h1>
        <label className="switch">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} />
          Follow live
        </label>
      </div>
      <form className="filters" role="search" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
        <ChoiceFilter label="Type" value={type} choices={EVENT_TYPES} onChange={setType} />
        <SearchFilter label="Operation id" value={operationId} onChange={setOperationId} />
      </form>
      <p className="muted note">
        <span role="status">{feed.loading ? "Loading…" : `${feed.events.length} events, newest first.`}</span>{" "}
        {live ? `Following live: checked at ${feed.checkedAt?.toLocaleTimeString() ?? "—"}.` : "Paused."}
      </p>
      <ProblemView refusal={feed.refusal} />
      <ListTable label="Events" columns={COLUMNS} items={newestFirst} rowKey={(event) => event.id} empty="No event matches." pending={feed.loading} />
      {feed.events.length > shown && (
        <button type="button" onClick={() => setShown((count) => count + SHOWN)}>
          Show older ({feed.events.length - shown} more)
        </button>
      )}
    </section>
  );
}
