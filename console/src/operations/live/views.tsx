import { type CSSProperties, useEffect, useRef } from "react";
import type { GridDraft } from "../../shared/grid/hooks/useGridDraft";
import type { GridColumn } from "../../shared/grid/models/columns";
import type { GridRow } from "../../shared/grid/models/draft";
import type { MessageKey, t, tx } from "../../shared/i18n";
import type { LiveEnd, LiveState, LiveViewer } from "./liveClient";
import { answerFocus } from "./answerFocus";
import "./views.css";

/*
 * What live pages show beyond their status line: who else is here and where, and the conflicts to
 * answer. Loaded with the live connection, beside the page (loaded.ts): it imports no module of the
 * console's first load (the build would split that load), so what it needs of the page comes in props,
 * the words too (`t`, the page's, in the language chosen).
 */

/** What says a message in the language chosen: the page's `t` and `tx` (shared/i18n.ts). */
export interface Words {
  t: typeof t;
  tx: typeof tx;
}

const ENDED: Record<LiveEnd, MessageKey> = {
  revoked: "live.endedRevoked",
  deleted: "live.endedDeleted",
  refused: "live.endedRefused",
};

/** The connection's state in words (the page says Connecting… until this is loaded). */
export function stateText(state: LiveState, { t }: Words): string {
  if (state.status === "live") return t("live.live");
  if (state.status === "reconnecting") return t("live.reconnecting");
  if (state.status === "ended") return t(ENDED[state.ended ?? "refused"]);
  return t("live.connecting");
}

/** A color per person here (by connection), the same in `Here now` and on the cell they are on; white letters read on each. */
const COLORS = ["#1f5fd1", "#8a3ffc", "#b3261e", "#17663a", "#9a3412", "#0e7490"];

export function hereColor(viewerId: string): string {
  let hash = 0;
  for (const char of viewerId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return COLORS[hash % COLORS.length];
}

/** A person's initial in their color. */
export function HereDot({ viewer }: { viewer: LiveViewer }) {
  return (
    <span className="here-dot" style={{ "--here": hereColor(viewer.id) } as CSSProperties} aria-hidden="true">
      {viewer.name.trim().charAt(0).toUpperCase() || "?"}
    </span>
  );
}

/** On a cell: who else is on it (their initials; their names to a screen reader and on hover). */
export function HereMark({ viewers, words: { t } }: { viewers: readonly LiveViewer[]; words: Words }) {
  const names = viewers.map((viewer) => viewer.name).join(", ");
  return (
    <span className="here-mark" style={{ "--here": hereColor(viewers[0].id) } as CSSProperties} title={t("live.hereTitle", { names })}>
      {viewers.map((viewer) => (
        <HereDot key={viewer.id} viewer={viewer} />
      ))}
      <span className="sr-only"> {t("live.hereSaid", { names })}</span>
    </span>
  );
}

/** `Here now`: the others on the Operation, each with the cell they are on. */
export function HereNow({ others, fieldLabel, words: { t } }: { others: readonly LiveViewer[]; fieldLabel: (field: string) => string; words: Words }) {
  return (
    <section className="here-now" aria-label={t("live.hereNow")}>
      {t("live.hereNowLead")}
      {others.length === 0 ? (
        <span className="muted"> {t("live.nobodyElse")}</span>
      ) : (
        <ul>
          {others.map(({ focus, ...viewer }) => (
            <li key={viewer.id}>
              <HereDot viewer={viewer} /> {viewer.name}
              {focus && <span className="muted"> {t("live.onCell", { cell: `${focus.variantExternalId} · ${fieldLabel(focus.field)}` })}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The cells where someone else saved a change while an edit of them was unsaved here: each with
 * both values, to keep theirs or keep mine (Save waits until every one is answered). Listed above
 * the grid, whose cells are marked too.
 */

/** The conflicts listed at once; the buttons for all of them answer the others too. */
const SHOWN = 20;

export function LiveConflicts<Stored>({
  draft,
  columns,
  labelOf,
  onShow,
  onSaid,
  onDone,
  words: { t, tx },
}: {
  draft: GridDraft<Stored>;
  columns: readonly GridColumn[];
  labelOf: (row: GridRow<Stored>) => string;
  /** Takes the person to the cell in the grid (false: the row is outside the current search). */
  onShow: (row: GridRow<Stored>, field: string) => boolean;
  /** Says what an answer did (the grid's status line). */
  onSaid: (text: string) => void;
  /** Every conflict answered, the focus in none of them: where it goes (the grid). */
  onDone: () => void;
  words: Words;
}) {
  const panel = useRef<HTMLElement>(null);
  /** An answer was given here: the focus it leaves (its button goes) moves on. */
  const answered = useRef(false);
  const cells = draft.conflicts.flatMap(({ row, fields }) => fields.map((field) => ({ row, field })));
  const count = cells.length;
  const columnLabel = (field: string) => columns.find((column) => column.key === field)?.label ?? field;
  const nameOf = ({ row, field }: { row: GridRow<Stored>; field: string }) => `${labelOf(row)} · ${columnLabel(field)}`;
  const valueText = (value: string | undefined) => (value === undefined || value === "" ? t("live.emptyValue") : value);

  // An answered conflict leaves the list: the focus goes on to the next one (or back to the grid) rather than to the page.
  // biome-ignore lint/correctness/useExhaustiveDependencies(count): runs when the list changed.
  useEffect(() => {
    if (!answered.current) return;
    const focus = answerFocus(document.activeElement, document.body, panel.current);
    if (focus === "waiting") return;
    answered.current = false;
    if (focus === "elsewhere") return;
    const next = panel.current?.querySelector<HTMLButtonElement>(".conflict-actions button");
    if (next) next.focus();
    else onDone();
  }, [count, onDone]);

  /** Theirs: each cell takes their value, as one step of the undo history; mine: the edits stay, to be saved over theirs. */
  const resolve = (keep: "theirs" | "mine", chosen: { row: GridRow<Stored>; field: string }[]) => {
    const what = chosen.length === 1 ? nameOf(chosen[0]) : t("live.cells", { count: chosen.length });
    answered.current = true;
    if (keep === "mine") draft.keepMine(chosen.map(({ row, field }) => ({ id: row.id, field })));
    else {
      const change = draft.change(t("live.keepTheirsStep", { what }));
      for (const { row, field } of chosen) change.set(row, { ...change.current(row).cells, [field]: draft.storedCellsOf(row)?.[field] ?? "" });
      change.commit();
    }
    onSaid(t(keep === "theirs" ? "live.keptTheirs" : "live.keptYours", { what }));
  };

  if (!count) return null;
  return (
    <section className="live-conflicts" aria-labelledby="live-conflicts-title" ref={panel}>
      <h3 id="live-conflicts-title">{t("live.conflictsTitle", { count })}</h3>
      <p className="help">{t("live.conflictsHelp")}</p>
      <ul>
        {cells.slice(0, SHOWN).map((cell) => {
          const theirs = draft.storedCellsOf(cell.row)?.[cell.field];
          const name = nameOf(cell);
          return (
            <li key={`${cell.row.id}\n${cell.field}`}>
              <span className="conflict-cell">
                <button type="button" className="link" onClick={() => onShow(cell.row, cell.field) || onSaid(t("live.outsideSearch", { name }))}>
                  {name}
                </button>
                {tx("live.bothValues", { yours: <strong>{valueText(cell.row.cells[cell.field])}</strong>, theirs: <strong>{valueText(theirs)}</strong> })}
              </span>
              <span className="conflict-actions">
                <button type="button" onClick={() => resolve("theirs", [cell])} aria-label={t("live.keepTheirsFor", { name })}>
                  {t("live.keepTheirs")}
                </button>
                <button type="button" onClick={() => resolve("mine", [cell])} aria-label={t("live.keepMineFor", { name })}>
                  {t("live.keepMine")}
                </button>
              </span>
            </li>
          );
        })}
      </ul>
      {count > SHOWN && <p className="muted">{t("live.more", { count: count - SHOWN })}</p>}
      {count > 1 && (
        <p className="conflict-actions">
          <button type="button" onClick={() => resolve("theirs", cells)}>
            {t("live.keepTheirsAll", { count })}
          </button>
          <button type="button" onClick={() => resolve("mine", cells)}>
            {t("live.keepMineAll", { count })}
          </button>
        </p>
      )}
    </section>
  );
}
