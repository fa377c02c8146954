import { useMemo, useState } from "react";
import { ConfirmDialog, Dialog } from "../dialogs";
import { ListTable } from "../PagedList";
import type { GridDraft } from "./hooks/useGridDraft";
import type { GridEditing } from "./hooks/useGridEditing";
import type { GridColumn } from "./models/columns";
import type { GridRow } from "./models/draft";
import { pendingCells, planReplace, type FindOptions, type PendingCell, type Replacement, type Writable } from "./models/selection";
import { t } from "../i18n";

/** The editing bar above an editable grid, its find-and-replace panel and the review of pending changes (DataGrid renders them). */

const PREVIEW_ROWS = 100;
const REVIEW_PAGE = 200;
const shown = (value: string) => (value === "" ? <span className="muted">{t("grid.empty")}</span> : value);

/**
 * The editing bar: undo, redo, fill down, find and replace, review; the count of unsaved cells; and
 * a live region saying what the last action did, until the next change.
 */
export function EditingBar<Stored>({
  id,
  draft,
  columns,
  replaceable,
  rows,
  activeKey,
  writable,
  editing,
  canFillDown,
  unsavedCells,
  selected,
  said,
  onClosed,
}: {
  id: string;
  draft: GridDraft<Stored>;
  columns: readonly GridColumn[];
  /** The columns a replace may write. */
  replaceable: readonly GridColumn[];
  rows: readonly GridRow<Stored>[];
  activeKey: string;
  writable: Writable;
  editing: GridEditing;
  canFillDown: boolean;
  unsavedCells: number;
  selected: number;
  said: { text: string; n: number } | null;
  /** A panel closed: the focus goes back to the grid. */
  onClosed: () => void;
}) {
  const [finding, setFinding] = useState(false);
  const [reviewing, setReviewing] = useState(false);
  const firstKey = columns[0].key;
  return (
    <>
      <div className="grid-tools">
        <button
          type="button"
          onClick={() => editing.step("undo")}
          disabled={!draft.undoLabel}
          title={draft.undoLabel && t("grid.undoTitle", { step: draft.undoLabel })}
        >
          {t("grid.undo")}
        </button>
        <button
          type="button"
          onClick={() => editing.step("redo")}
          disabled={!draft.redoLabel}
          title={draft.redoLabel && t("grid.redoTitle", { step: draft.redoLabel })}
        >
          {t("grid.redo")}
        </button>
        <button type="button" onClick={editing.fillDown} disabled={!canFillDown}>
          {t("grid.fillDown")}
        </button>
        <button type="button" aria-expanded={finding} aria-controls={finding ? `${id}-find` : undefined} onClick={() => setFinding(!finding)}>
          {t("grid.findReplace")}
        </button>
        <button type="button" onClick={() => setReviewing(true)} disabled={unsavedCells === 0}>
          {t("grid.review")}
        </button>
        <span className="muted">
          {t("grid.unsavedCells", { count: unsavedCells })}
          {draft.hiddenDirtyCount > 0 && ` ${t("grid.hiddenEdited", { count: draft.hiddenDirtyCount })}`}
          {selected > 1 && ` · ${t("grid.selected", { count: selected })}`}
        </span>
        <span role="status" className="grid-said">
          {said && <span key={said.n}>{said.text}</span>}
        </span>
      </div>
      {finding && replaceable.length > 0 && (
        <div id={`${id}-find`}>
          <FindReplace
            id={`${id}-find`}
            rows={rows}
            columns={replaceable}
            initialKey={activeKey}
            writable={writable}
            labelOf={(row) => row.cells[firstKey]}
            onApply={editing.replace}
            onClose={() => {
              setFinding(false);
              onClosed();
            }}
          />
        </div>
      )}
      {reviewing && (
        <ReviewChanges
          rows={draft.dirtyRows}
          columns={columns}
          storedCellsOf={draft.storedCellsOf as (row: GridRow<unknown>) => Record<string, string> | undefined}
          hiddenCount={draft.hiddenDirtyCount}
          onClose={() => setReviewing(false)}
        />
      )}
    </>
  );
}

/**
 * Find text in one column of the rows shown and replace it: the cells it would change are previewed
 * (from → to) as you type, and `Replace` writes them as one undo step.
 */
export function FindReplace({
  id,
  rows,
  columns,
  initialKey,
  writable,
  labelOf,
  onApply,
  onClose,
}: {
  id: string;
  rows: readonly GridRow<unknown>[];
  /** The columns a replace may write. */
  columns: readonly GridColumn[];
  initialKey: string;
  writable: Writable;
  /** How a row is named in the preview (its key). */
  labelOf: (row: GridRow<unknown>) => string;
  onApply: (replacements: Replacement[], column: GridColumn) => void;
  onClose: () => void;
}) {
  const [key, setKey] = useState(columns.some((column) => column.key === initialKey) ? initialKey : columns[0].key);
  const [options, setOptions] = useState<FindOptions>({ find: "", replace: "", matchCase: false, wholeCell: false });
  const set = (patch: Partial<FindOptions>) => setOptions((now) => ({ ...now, ...patch }));
  const column = columns.find((c) => c.key === key) ?? columns[0];
  const found = useMemo(() => planReplace(rows, key, options, writable, column.normalize), [rows, key, options, writable, column]);
  const label = (row: number) => (rows[row] && labelOf(rows[row])) || t("grid.rowN", { row: row + 1 });
  const nothing = !options.find && !options.wholeCell;

  return (
    <section className="find-replace" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t("grid.findReplace")}</h3>
      <form
        className="find-replace-fields"
        onSubmit={(e) => {
          e.preventDefault();
          if (found.length) onApply(found, column);
        }}
      >
        <label>
          {t("grid.column")}
          <select value={key} onChange={(e) => setKey(e.target.value)}>
            {columns.map((c) => (
              <option key={c.key} value={c.key}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("grid.find")}
          {/* biome-ignore lint/a11y/noAutofocus: the panel opens on the person's request, to type what to find. */}
          <input type="search" autoFocus value={options.find} onChange={(e) => set({ find: e.target.value })} />
        </label>
        <label>
          {t("grid.replaceWith")}
          <input type="text" value={options.replace} onChange={(e) => set({ replace: e.target.value })} />
        </label>
        <label className="check">
          <input type="checkbox" checked={options.matchCase} onChange={(e) => set({ matchCase: e.target.checked })} />
          {t("grid.matchCase")}
        </label>
        <label className="check">
          <input type="checkbox" checked={options.wholeCell} onChange={(e) => set({ wholeCell: e.target.checked })} />
          {t("grid.wholeCell")}
        </label>
        <span className="find-replace-actions">
          <button type="submit" className="primary" disabled={!found.length}>
            {t("grid.replaceCells", { count: found.length })}
          </button>
          <button type="button" onClick={onClose}>
            {t("common.close")}
          </button>
        </span>
      </form>
      <p role="status" className="muted">
        {nothing
          ? t("grid.typeToFind", { column: column.label })
          : found.length
            ? t("grid.willChange", { count: found.length, column: column.label, shown: found.length > PREVIEW_ROWS ? PREVIEW_ROWS : 0 })
            : t("grid.noneWouldChange", { column: column.label })}
      </p>
      {found.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the preview scrolls; the keyboard must reach it to scroll it.
        <div className="find-preview" tabIndex={0} role="region" aria-label={t("grid.preview")}>
          <ListTable
            label={t("grid.previewLabel", { column: column.label })}
            columns={[
              { header: t("grid.row"), cell: (r: Replacement) => `${r.row + 1} · ${label(r.row)}` },
              { header: t("grid.from"), cell: (r: Replacement) => shown(r.from), wrap: true },
              { header: t("grid.to"), cell: (r: Replacement) => shown(r.to), wrap: true },
            ]}
            items={found.slice(0, PREVIEW_ROWS)}
            rowKey={(r) => r.id}
            empty=""
          />
        </div>
      )}
    </section>
  );
}

/**
 * Every pending change before Save, each cell from → to, the rows the view does not show included
 * (a sort or a search does not drop an edit).
 */
export function ReviewChanges({
  rows,
  columns,
  storedCellsOf,
  hiddenCount,
  onClose,
}: {
  rows: readonly GridRow<unknown>[];
  columns: readonly GridColumn[];
  storedCellsOf: (row: GridRow<unknown>) => Record<string, string> | undefined;
  hiddenCount: number;
  onClose: () => void;
}) {
  const changes = useMemo(
    () =>
      pendingCells(
        rows,
        columns.map((column) => column.key),
        storedCellsOf,
      ),
    [rows, columns, storedCellsOf],
  );
  const [limit, setLimit] = useState(REVIEW_PAGE);
  const labelOf = new Map(columns.map((column) => [column.key, column.label]));
  const added = new Set(changes.filter((change) => change.added).map((change) => change.id)).size;
  return (
    <Dialog title={t("grid.review")} onClose={onClose}>
      <p>{t("grid.reviewSummary", { cells: changes.length, rows: rows.length, added, hidden: hiddenCount })}</p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the list scrolls; the keyboard must reach it to scroll it. */}
      <div className="review-list" tabIndex={0} role="region" aria-label={t("grid.pendingScrollable")}>
        <ListTable
          label={t("grid.pending")}
          columns={[
            { header: t("grid.row"), cell: (c: PendingCell) => (c.added ? t("grid.newRowLabel", { label: c.label || t("grid.noKey") }) : c.label) },
            { header: t("grid.column"), cell: (c: PendingCell) => labelOf.get(c.key) },
            { header: t("grid.from"), cell: (c: PendingCell) => (c.added ? <span className="muted">{t("grid.newRow")}</span> : shown(c.from)), wrap: true },
            { header: t("grid.to"), cell: (c: PendingCell) => shown(c.to), wrap: true },
          ]}
          items={changes.slice(0, limit)}
          rowKey={(c) => `${c.id}\u0000${c.key}`}
          empty={t("grid.noUnsaved")}
        />
      </div>
      <div className="actions">
        {changes.length > limit && (
          <button type="button" onClick={() => setLimit((n) => n + REVIEW_PAGE * 5)}>
            {t("grid.showMore", { count: changes.length - limit })}
          </button>
        )}
        <button type="button" className="primary" onClick={onClose}>
          {t("common.close")}
        </button>
      </div>
    </Dialog>
  );
}

/**
 * Drops every unsaved edit of a grid (and the last check of them), shown or not. In an editable grid it
 * is one step of the undo history (Ctrl+Z brings them back), so it asks nothing; in a read-only one
 * (edits kept after the Operation left DRAFT) nothing could bring them back, so it asks first.
 */
export function DiscardButton({
  draft,
  saving,
  dirtyCount,
  undoable,
}: {
  draft: { discard: () => number };
  saving: { reset: () => void; setNote: (note: string) => void };
  dirtyCount: number;
  undoable: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const discard = () => {
    const dropped = draft.discard();
    saving.reset();
    saving.setNote(t(undoable ? "grid.discardedUndoable" : "grid.discarded", { count: dropped }));
  };
  return (
    <>
      <button type="button" onClick={() => (undoable ? discard() : setAsking(true))} disabled={dirtyCount === 0}>
        {t("grid.discard")}
      </button>
      {asking && (
        <ConfirmDialog
          title={t("grid.discardTitle", { count: dirtyCount })}
          confirm={t("grid.discardThem")}
          onConfirm={() => {
            setAsking(false);
            discard();
          }}
          onClose={() => setAsking(false)}
        >
          <p>{t("grid.discardReadOnly")}</p>
        </ConfirmDialog>
      )}
    </>
  );
}
