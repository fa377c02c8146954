import { useEffect, useMemo, useRef, useState } from "react";
import { EVENT_TYPES } from "@campaign-policy/common/event-types";
import { useSession } from "../shared/context";
import { ListTable, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { clock, formatValue, when, type FieldChange } from "../shared/format";
import { ActorName, OperationName, scopeLabel, usePeople } from "../labels/names";
import { formatMoney, useCurrency } from "../labels/money";
import { accountsNamedIn, fieldValueText, usersNamedIn, type ValueNames } from "../labels/values";
import { ChoiceFilter, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { useOperationByCode, useOperationCodes } from "../api/operations";
import { useAccountNames } from "../api/directory";
import { fetchEvents, type Event } from "../api/events";
import { t } from "../shared/i18n";

/** How often the feed asks for what is new, while following it live. */
export const POLL_MS = 2000;
/** Rows shown at first, and added by `Show older`. */
const SHOWN = 200;

/** An event's data as the fields of a record (the same words for its values as a change's). */
const fieldsOf = (data: unknown): FieldChange[] =>
  data && typeof data === "object" ? Object.entries(data as Record<string, unknown>).map(([field, next]) => ({ field, next })) : [];
/** A rule (or any scope) inside an event's data: what names it in a line. */
const scopeIn = (value: unknown) =>
  value && typeof value === "object" && !Array.isArray(value) && ("accountId" in value || "supplierId" in value)
    ? (value as { accountId?: string | null; supplierId?: string | null; storeId?: string | null })
    : undefined;
/** The accounts the events' data name, at their top or in a scope they hold, to read their names at once. */
const accountsOf = (events: Event[]) =>
  events.flatMap((event) => {
    const fields = fieldsOf(event.data);
    return [...accountsNamedIn(fields), ...fields.flatMap((field) => scopeIn(field.next)?.accountId ?? [])];
  });

/**
 * An event's data: a line of its first fields (accounts, users and approvers by their names, a rule by its
 * scope, a key by its name, another object as {…}), opened to the whole of it, wrapped (never cut at the page's edge).
 */
function EventData({ data, names }: { data: unknown; names: ValueNames }) {
  const fields = fieldsOf(data);
  if (!fields.length) return <span className="muted">{t("directory.noUsers")}</span>;
  const valueText = ({ field, next: value }: FieldChange) => {
    const scope = scopeIn(value);
    if (scope) return scopeLabel(scope, names.accounts);
    if (!value || typeof value !== "object" || !formatValue(value).startsWith("{")) return fieldValueText(field, value, names);
    // Another object (a key, a subscription) by what names it, else {…} (opened, it is shown whole).
    const { name, url, code } = value as Record<string, unknown>;
    return [name, url, code].find((text): text is string => typeof text === "string") ?? "{…}";
  };
  const summary = fields
    .slice(0, 3)
    .map((field) => `${field.field}: ${valueText(field)}`)
    .join(" · ");
  return (
    <details className="event-data">
      <summary>
        {summary}
        {fields.length > 3 && ` · ${t("events.more", { count: fields.length - 3 })}`}
      </summary>
      <pre>{JSON.stringify(data, null, 2)}</pre>
    </details>
  );
}

/** The feed's columns, its Operations named by the codes read for the events shown. */
const columnsOf = (codes: Map<string, string | null> | undefined, names: ValueNames): Column<Event>[] => [
  { header: t("events.at"), cell: (event) => <time dateTime={event.at}>{when(event.at)}</time> },
  { header: t("field.type"), cell: (event) => <code>{event.type}</code> },
  {
    header: t("ops.operation"),
    cell: (event) =>
      event.operationId ? codes ? <OperationName id={event.operationId} code={codes.get(event.operationId) ?? null} /> : event.operationId : "",
  },
  { header: t("events.actor"), cell: (event) => <ActorName actor={event.actor} /> },
  { header: t("events.data"), cell: (event) => <EventData data={event.data} names={names} /> },
];

interface Feed {
  /** Newest first. */
  events: Event[];
  /** Whether older events than the last shown exist (Show older reads the next page). */
  hasOlder: boolean;
  loading: boolean;
  refusal: Refusal | null;
  checkedAt: Date | null;
}

const EMPTY_FEED: Feed = { events: [], hasOlder: false, loading: true, refusal: null, checkedAt: null };

/** The feed as read so far, to show. */
const feedOf = (read: { events: Event[]; olderToken: string | null }): Feed => ({
  events: [...read.events],
  hasOlder: read.olderToken !== null,
  loading: false,
  refusal: null,
  checkedAt: new Date(),
});

/**
 * The change feed for some filters: the newest SHOWN events first (sort=-id, so a long history is
 * never read whole), older ones a page at a time on request, and, while `live`, what is new every
 * POLL_MS (after the newest id seen, oldest first, so none is skipped).
 */
function useEventFeed(filters: { type: string; operationId: string }, live: boolean): Feed & { showOlder: () => void } {
  const { api } = useSession();
  const [feed, setFeed] = useState<Feed>(EMPTY_FEED);
  const seen = useRef<{ key: string; events: Event[]; olderToken: string | null; read: boolean; busy: boolean }>({
    key: "",
    events: [],
    olderToken: null,
    read: false,
    busy: false,
  });
  const key = JSON.stringify(filters);
  const { type, operationId } = filters;
  const filterQuery = useMemo(() => ({ ...(type && { types: [type] }), ...(operationId && { operationId }) }), [type, operationId]);

  useEffect(() => {
    if (seen.current.key !== key) {
      seen.current = { key, events: [], olderToken: null, read: false, busy: false };
      setFeed(EMPTY_FEED);
    }
    const current = seen.current;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const readLatest = async () => {
      const data = await fetchEvents(api, { ...filterQuery, sort: ["-id"], limit: SHOWN });
      if (stopped) return;
      current.events = data.items;
      current.olderToken = data.nextToken ?? null;
    };
    const readNewer = async () => {
      const after = current.events[0]?.id;
      if (!after) return readLatest();
      const newer: Event[] = [];
      let nextToken: string | undefined;
      do {
        const data = await fetchEvents(api, { ...filterQuery, after, limit: 500, ...(nextToken && { nextToken }) });
        if (stopped) return;
        newer.push(...data.items);
        nextToken = data.nextToken ?? undefined;
      } while (nextToken);
      current.events = [...newer.reverse(), ...current.events];
    };
    const tick = async () => {
      try {
        if (!current.read) await readLatest();
        else if (live) await readNewer();
        current.read = true;
        if (!stopped) setFeed(feedOf(current));
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
  }, [api, key, live, filterQuery]);

  const showOlder = () => {
    const current = seen.current;
    if (!current.olderToken || current.busy) return;
    current.busy = true;
    const nextToken = current.olderToken;
    fetchEvents(api, { ...filterQuery, sort: ["-id"], limit: SHOWN, nextToken })
      .then((data) => {
        if (seen.current !== current) return;
        current.events = [...current.events, ...data.items];
        current.olderToken = data.nextToken ?? null;
        setFeed(feedOf(current));
      })
      .catch((error) => setFeed((previous) => ({ ...previous, refusal: toRefusal(error) })))
      .finally(() => {
        current.busy = false;
      });
  };
  return { ...feed, showOlder };
}

const DEFAULTS = { type: "", operation: "", live: "on" };

export function EventsPage() {
  const [view, setView] = useViewParams(DEFAULTS);
  const code = view.operation.trim();
  const byCode = useOperationByCode(code);
  const live = view.live === "on";
  // Filtering by an Operation's code waits for its id; a code that names none shows nothing.
  const operationId = code ? (byCode.data?.id ?? "op_none") : "";
  const feed = useEventFeed({ type: view.type, operationId }, live && (!code || byCode.data !== undefined));
  const codes = useOperationCodes(feed.events.flatMap((event) => (event.operationId ? [event.operationId] : [])));
  const accounts = useAccountNames(accountsOf(feed.events));
  const currency = useCurrency();
  const people = usePeople(feed.events.flatMap((event) => usersNamedIn(fieldsOf(event.data))));
  const names: ValueNames = { money: (amount) => formatMoney(amount, currency), people, accounts };
  return (
    <section>
      <div className="title-row">
        <h1>{t("app.nav.events")}</h1>
        <label className="switch">
          <input type="checkbox" checked={live} onChange={(e) => setView({ live: e.target.checked ? "on" : "off" })} />
          {t("events.followLive")}
        </label>
      </div>
      <form className="filters" role="search" aria-label={t("common.filters", { list: t("app.nav.events") })} onSubmit={(e) => e.preventDefault()}>
        <ChoiceFilter label={t("field.type")} value={view.type} choices={EVENT_TYPES} onChange={(type) => setView({ type })} />
        <SearchFilter label={t("changes.operationCode")} value={view.operation} onChange={(operation) => setView({ operation }, { typing: true })} />
      </form>
      {code && byCode.data === null && <p className="muted">{t("changes.noCode", { code })}</p>}
      <p className="muted note">
        <span role="status">{feed.loading ? t("common.loading") : t("events.shown", { count: feed.events.length })}</span>{" "}
        {live ? t("events.following", { at: feed.checkedAt ? clock(feed.checkedAt) : "—" }) : t("events.paused")}
      </p>
      <ProblemView refusal={feed.refusal} />
      <ListTable
        label={t("app.nav.events")}
        columns={columnsOf(codes, names)}
        items={feed.events}
        rowKey={(event) => event.id}
        empty={t("events.noneMatches")}
        pending={feed.loading}
      />
      {feed.hasOlder && (
        <button type="button" onClick={feed.showOlder}>
          {t("totals.showOlder")}
        </button>
      )}
    </section>
  );
}
