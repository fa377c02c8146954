import type { InfiniteData, QueryKey } from "@tanstack/react-query";
import type { Line } from "../../api/operations";
import type { queryKeys as QueryKeys } from "../../shared/queryKeys";
import type { LiveNews } from "./liveClient";

/**
 * What a change told over an Operation's live connection means for the page (pure): the version it
 * left, the lines it sent (their state now), those it only named, and which cached reads are stale.
 * The console's query keys are handed in: this module is loaded apart (liveHub.ts) and imports no
 * module of the first load, which would split that load in two.
 */

export interface LiveEffects {
  /** The Operation's version after the change (null: the change left none, or it is a reload). */
  version: number | null;
  /** Lines as they are now, sent with the change. */
  lines: Line[];
  /** Lines the change removed. */
  removed: string[];
  /** Lines it named without their state (a change replayed after a reconnect): read them. */
  linesToRead: string[];
  /** Lines may have changed without being named (more than 500, a revert, a reload): read them all. */
  allLines: boolean;
  /** Reads to do again. */
  stale: QueryKey[];
}

type Sent = Line | { variantExternalId: string; removed: true };

export function effectsOf(queryKeys: typeof QueryKeys, operationId: string, news: LiveNews): LiveEffects {
  const operation = queryKeys.operation(operationId);
  const totals = queryKeys.totals.of(operationId);
  const effects: LiveEffects = { version: null, lines: [], removed: [], linesToRead: [], allLines: false, stale: [queryKeys.history.all] };
  if (news.type === "reload") {
    effects.allLines = true;
    effects.stale.push(operation, queryKeys.attachments.of(operationId), queryKeys.orders.of(operationId), totals);
    return effects;
  }
  effects.version = news.version;
  const { what, counts } = news;
  if (news.lines) {
    for (const line of news.lines as Sent[]) {
      if ("removed" in line) effects.removed.push(line.variantExternalId);
      else effects.lines.push(line);
    }
  } else if (news.lineKeys) effects.linesToRead = news.lineKeys;
  else if (what === "lines" || (what === "operation" && Object.keys(counts).length > 0)) effects.allLines = true;
  // The header counts lines and accounts and shows the status; Totals counts lines below their recommended quantity and accounts attached.
  if ((what === "lines" && (counts.created || counts.removed)) || what === "accounts" || what === "status" || what === "operation")
    effects.stale.push(operation);
  if (what === "status" || what === "operation") effects.stale.push(queryKeys.operations.all);
  if (what === "accounts" || effects.allLines) effects.stale.push(queryKeys.attachments.of(operationId));
  if (what === "orders") effects.stale.push(queryKeys.orders.of(operationId));
  // Accounts' caps on a line, and what each account took of them.
  if (what === "allocation" || what === "orders") effects.stale.push(queryKeys.allocations.of(operationId));
  if (what !== "status") effects.stale.push(totals);
  return effects;
}

/** A grid's view of the lines (the key of its read): its sort and its search. */
export interface LinesView {
  sort: string;
  filter: string;
}

interface LinePage {
  items: Line[];
  nextToken?: string | null;
}

const byVariant = (a: Line, b: Line) => (a.variantExternalId < b.variantExternalId ? -1 : a.variantExternalId > b.variantExternalId ? 1 : 0);

/**
 * A view's pages with `lines` in their new state and `removed` gone. A line the view did not hold is
 * put in its place when the view is every line by variant (a later page not read yet will bring it);
 * in any other view its place is the server's to say: null, read the view again.
 */
export function withLiveLines<Page extends LinePage>(
  data: InfiniteData<Page>,
  view: LinesView,
  lines: readonly Line[],
  removed: readonly string[],
): InfiniteData<Page> | null {
  const fresh = new Map(lines.map((line) => [line.variantExternalId, line]));
  const gone = new Set(removed);
  const placed = new Set<string>();
  let pages = data.pages.map((page) => {
    if (!page.items.some((line) => fresh.has(line.variantExternalId) || gone.has(line.variantExternalId))) return page;
    const items = page.items.flatMap((line) => {
      if (gone.has(line.variantExternalId)) return [];
      const now = fresh.get(line.variantExternalId);
      if (!now) return [line];
      placed.add(line.variantExternalId);
      return [now];
    });
    return { ...page, items };
  });
  const added = lines.filter((line) => !placed.has(line.variantExternalId));
  if (!added.length) return { ...data, pages };
  const direction = view.sort === "variantExternalId" ? 1 : view.sort === "-variantExternalId" ? -1 : 0;
  if (view.filter !== "" || direction === 0) return null;
  for (const line of added) pages = insertInOrder(pages, line, (a, b) => direction * byVariant(a, b));
  return { ...data, pages };
}

function insertInOrder<Page extends LinePage>(pages: Page[], line: Line, compare: (a: Line, b: Line) => number): Page[] {
  const at = pages.findIndex((page) => page.items.some((item) => compare(line, item) < 0));
  if (at >= 0) {
    const items = [...pages[at].items];
    items.splice(
      items.findIndex((item) => compare(line, item) < 0),
      0,
      line,
    );
    return pages.map((page, i) => (i === at ? { ...page, items } : page));
  }
  const last = pages.at(-1);
  // Past the last line read while more pages are to come: the page that holds it will bring it.
  if (!last || last.nextToken) return pages;
  return [...pages.slice(0, -1), { ...last, items: [...last.items, line] }];
}
