import { defaultRangeExtractor, useVirtualizer } from "@tanstack/react-virtual";
import { useImperativeHandle, useLayoutEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent, type Ref } from "react";
import type { DraftChange, GridDraft, GridRow } from "./draft";

/**
 * The spreadsheet-like grid of the console (WAI-ARIA grid pattern, virtualized rows) over a draft of
 * unsaved edits (draft.ts): the lines of an Operation and the quota rules both use it, each with its
 * own columns, checks and save. Cells are addressed by their column's key, never by their place.
 */

export interface GridColumn {
  /** The field the column edits (its cells' key, and the API's field name). */
  key: string;
  label: string;
  /** The header on a phone's width, where the label does not fit (the label stays its accessible name). */
  short?: string;
  numeric?: boolean;
}

export interface DataGridHandle {
  /** Makes the cell of row `row` (its place in the grid) and column `key` the active one, scrolled into view. */
  moveTo: (row: number, key: string) => void;
  /** Appends an empty row and starts editing its first cell. */
  addRow: () => void;
}

const ROW_HEIGHT = 34;
const READ_ONLY_HELP = "Arrow keys, Page Up/Down and Ctrl+Home/End move from cell to cell.";
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

export function DataGrid<Stored>({
  ref,
  label,
  columns,
  draft,
  readOnly,
  readOnlyNoteId,
  errorsOf,
  lockedWhenStored = [columns[0].key],
  help,
  empty,
  className = "",
  onNote,
  initialField = columns[0].key,
  cellIdPrefix = "cell",
}: {
  ref?: Ref<DataGridHandle>;
  label: string;
  columns: readonly GridColumn[];
  draft: GridDraft<Stored>;
  readOnly: boolean;
  /** The id of the note saying why the grid is read-only. */
  readOnlyNoteId?: string;
  /** A row's errors by column key, as typed. */
  errorsOf: (row: GridRow<Stored>) => Map<string, string>;
  /** Columns a stored row cannot change (its key). */
  lockedWhenStored?: readonly string[];
  /** How to edit (shown while the grid is editable). */
  help: string;
  /** Said under the grid while it has no row. */
  empty: string;
  className?: string;
  /** A sentence on what a paste or an edit did beyond its cells (rows added, rows found by their key). */
  onNote?: (note: string) => void;
  /** The column the active cell starts in. */
  initialField?: string;
  /** Its cells' ids start with this (`cell-<row>-<column>`): two grids on one page take two. */
  cellIdPrefix?: string;
}) {
  const { rows, keyField } = draft;
  const indexOfKey = (key: string) =>
    Math.max(
      0,
      columns.findIndex((column) => column.key === key),
    );
  // The active cell is a place in the view (row and column as shown); what it edits is found by key.
  const [active, setActive] = useState(() => ({ row: 0, col: indexOfKey(initialField) }));
  const [editing, setEditing] = useState<{ value: string } | null>(null);
  // The grid itself scrolls (under its sticky header row): the element the keyboard focuses is the
  // one that scrolls, and the rows start below the header.
  const gridRef = useRef<HTMLDivElement>(null);
  const headRef = useRef<HTMLDivElement>(null);
  const [headHeight, setHeadHeight] = useState(ROW_HEIGHT);
  useLayoutEffect(() => {
    const height = headRef.current?.offsetHeight;
    if (height && height !== headHeight) setHeadHeight(height);
  });
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => gridRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    scrollMargin: headHeight,
    scrollPaddingStart: headHeight,
    // The active row is always rendered, wherever the grid is scrolled: aria-activedescendant names an
    // element that exists, and a row just added takes its editor (and the keys typed) at once.
    rangeExtractor: (range) => {
      const indexes = defaultRangeExtractor(range);
      return active.row < range.count && !indexes.includes(active.row) ? [...indexes, active.row].sort((a, b) => a - b) : indexes;
    },
  });
  const activeKey = columns[active.col].key;
  const editable = (row: GridRow<Stored> | undefined, key: string) => !readOnly && row !== undefined && (!row.stored || !lockedWhenStored.includes(key));
  const keyOf = (row: GridRow<Stored>) => (keyField === undefined ? "" : (row.cells[keyField] ?? "").trim());

  const moveToPlace = (row: number, col: number) => {
    const next = { row: Math.max(0, Math.min(rows.length - 1, row)), col: Math.max(0, Math.min(columns.length - 1, col)) };
    setActive(next);
    virtualizer.scrollToIndex(next.row, { align: "auto" });
  };
  useImperativeHandle(ref, () => ({
    moveTo: (row, key) => moveToPlace(row, indexOfKey(key)),
    addRow: () => {
      const change = draft.change("Add a row");
      change.append();
      change.commit();
      setActive({ row: rows.length, col: 0 });
      setTimeout(() => virtualizer.scrollToIndex(rows.length), 0);
      setEditing({ value: "" });
    },
  }));
  /** `given` cells (by key) written into `row` within `change`: all of them, or (`onlyFilled`) the non-empty ones; cells it cannot change are left. */
  const fill = (change: DraftChange<Stored>, row: GridRow<Stored>, given: Map<string, string>, onlyFilled: boolean) => {
    const now = change.current(row);
    const cells = { ...now.cells };
    for (const [key, value] of given) if (editable(now, key) && (value !== "" || !onlyFilled)) cells[key] = value;
    change.set(now, cells);
  };
  const commit = (move: [number, number] | null) => {
    const row = rows[active.row];
    setEditing(null);
    gridRef.current?.focus();
    if (!editing || !row) return void (move && moveToPlace(active.row + move[0], active.col + move[1]));
    const cells = { ...row.cells, [activeKey]: editing.value };
    const key = activeKey === keyField ? editing.value.trim() : "";
    const holder = key ? draft.rowOfKey(key) : undefined;
    const change = draft.change(`Edit ${columns[active.col].label}`);
    if (holder && holder.id !== row.id) {
      // The key is another row's already (a new row typed with a stored variant): that row takes
      // this one's filled cells, and this one goes, so no two rows ever share a key.
      fill(change, holder, new Map(Object.entries(cells).map(([field, value]) => [field, value.trim()])), true);
      change.remove(row);
      change.commit();
      const at = rows.findIndex((other) => other.id === holder.id);
      const target = at - (at > active.row ? 1 : 0);
      onNote?.(`${key} is already in the grid (row ${target + 1}): that row was edited instead of adding another.`);
      return moveToPlace(target, active.col + (move?.[1] ?? 0));
    }
    change.set(row, cells);
    change.commit();
    if (move) moveToPlace(active.row + move[0], active.col + move[1]);
  };
  const startEditing = (initial?: string) => {
    if (!editable(rows[active.row], activeKey)) return;
    setEditing({ value: initial ?? rows[active.row].cells[activeKey] });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (editing) return;
    const keys: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (keys[event.key]) {
      event.preventDefault();
      moveToPlace(active.row + keys[event.key][0], active.col + keys[event.key][1]);
    } else if (event.key === "PageDown" || event.key === "PageUp") {
      event.preventDefault();
      moveToPlace(active.row + (event.key === "PageDown" ? 15 : -15), active.col);
    } else if (event.key === "Home" && event.ctrlKey) moveToPlace(0, active.col);
    else if (event.key === "End" && event.ctrlKey) moveToPlace(rows.length - 1, active.col);
    else if (event.key === "Enter" || event.key === "F2") {
      event.preventDefault();
      startEditing();
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      startEditing(event.key);
    }
  };

  /**
   * A block of cells from a spreadsheet (tab-separated), from the active cell across rows and columns;
   * rows past the end are new rows. When the block holds the key column, each of its rows goes to the
   * row of its key: a key already in the grid edits that row (its filled cells only: an empty cell
   * keeps the value), a new key is a new row (it never overwrites a stored row of another key).
   */
  const onPaste = (event: ClipboardEvent<HTMLDivElement>) => {
    if (readOnly || editing) return;
    const text = event.clipboardData.getData("text/plain");
    if (!text) return;
    event.preventDefault();
    const block = text
      .replace(/\r\n?/g, "\n")
      .replace(/\n$/, "")
      .split("\n")
      .map((line) => line.split("\t"));
    const start = rows.length ? active : { row: 0, col: 0 };
    const keyAt = keyField === undefined ? -1 : indexOfKey(keyField) - start.col;
    const change = draft.change("Paste");
    // Rows keyed by this paste, found before the next render indexes them.
    const pasted = new Map<string, GridRow<Stored>>();
    const rowOfKey = (key: string) => {
      const found = pasted.get(key) ?? draft.rowOfKey(key);
      return found && keyOf(change.current(found)) === key ? found : undefined;
    };
    let added = 0;
    let found = 0;
    for (const [i, values] of block.entries()) {
      const given = new Map(values.flatMap((value, j) => (start.col + j < columns.length ? [[columns[start.col + j].key, value.trim()] as const] : [])));
      const key = keyAt >= 0 ? (values[keyAt] ?? "").trim() : "";
      let row: GridRow<Stored> | undefined = rows[start.row + i];
      const holder = key ? rowOfKey(key) : undefined;
      if (holder) {
        fill(change, holder, given, true);
        found++;
        continue;
      }
      if (key && row?.stored) row = undefined;
      if (!row) {
        row = change.append();
        added++;
      }
      fill(change, row, given, false);
      if (key) pasted.set(key, row);
    }
    change.commit();
    onNote?.(
      `Pasted ${plural(block.length, "row")}` +
        (added ? `, ${added} of them new` : "") +
        (found
          ? `; ${plural(found, "row")} named a ${columns[indexOfKey(keyField ?? columns[0].key)].label.toLowerCase()} already in the grid and edited its row (filled cells only)`
          : "") +
        ".",
    );
  };

  const activeRow = rows[active.row];
  const activeErrors = activeRow
    ? errorsOf(editing ? { ...activeRow, cells: { ...activeRow.cells, [activeKey]: editing.value } } : activeRow)
    : new Map<string, string>();
  const idBase = className || "grid";
  const helpId = `${idBase}-help`;
  const tipId = `${idBase}-cell-error`;
  const activeServerError = activeRow && draft.serverErrorOf(activeRow);
  // What is wrong with the active cell, shown right under it (and said by the live region below).
  const activeMessages = [activeErrors.get(activeKey), activeServerError && `Server: ${activeServerError}`].filter((message): message is string =>
    Boolean(message),
  );
  // Below the cell, but above it on the last rows (the body is at least three rows high, so it fits either way).
  const tipAbove = active.row > 0 && active.row >= rows.length - 2;
  const tipRightAligned = active.col >= columns.length / 2;

  return (
    <>
      <div
        ref={gridRef}
        role="grid"
        tabIndex={0}
        aria-label={label}
        aria-rowcount={rows.length + 1}
        aria-colcount={columns.length}
        aria-readonly={readOnly || undefined}
        aria-describedby={readOnlyNoteId ? `${readOnlyNoteId} ${helpId}` : helpId}
        aria-activedescendant={!editing && activeRow ? `${cellIdPrefix}-${active.row}-${active.col}` : undefined}
        className={`grid${readOnly ? " readonly" : ""} ${className}`}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      >
        <div role="rowgroup" className="grid-head" ref={headRef}>
          <div role="row" aria-rowindex={1} className="grid-row">
            {columns.map((column) => (
              <div key={column.key} role="columnheader" className={column.numeric ? "num" : undefined}>
                {column.short ? (
                  <>
                    <span className="label-full">{column.label}</span>
                    <span className="label-short" aria-hidden="true">
                      {column.short}
                    </span>
                  </>
                ) : (
                  column.label
                )}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" className="grid-body">
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              const errors = errorsOf(row);
              const serverError = draft.serverErrorOf(row);
              const dirty = draft.isDirty(row);
              return (
                <div
                  key={row.id}
                  role="row"
                  aria-rowindex={item.index + 2}
                  className={`grid-row${dirty ? " dirty" : ""}${serverError ? " server-error" : ""}`}
                  style={{ transform: `translateY(${item.start - headHeight}px)`, height: ROW_HEIGHT }}
                >
                  {columns.map((column, col) => {
                    const isActive = active.row === item.index && active.col === col;
                    const error = errors.get(column.key) ?? (col === 0 ? serverError : undefined);
                    return (
                      <div
                        key={column.key}
                        id={`${cellIdPrefix}-${item.index}-${col}`}
                        role="gridcell"
                        aria-colindex={col + 1}
                        aria-selected={isActive}
                        aria-invalid={error ? true : undefined}
                        aria-readonly={!editable(row, column.key) || undefined}
                        aria-describedby={isActive && activeMessages.length ? tipId : undefined}
                        title={error}
                        className={`${column.numeric ? "num" : ""}${isActive ? " active" : ""}${error ? " invalid" : ""}`}
                        onMouseDown={() => {
                          if (editing) commit(null);
                          setActive({ row: item.index, col });
                        }}
                        onDoubleClick={() => startEditing()}
                      >
                        {isActive && editing ? (
                          <input
                            // biome-ignore lint/a11y/noAutofocus: the editor appears only when the person starts editing this cell (Enter, a double click, typing); focus belongs in it.
                            autoFocus
                            aria-label={`${column.key}, row ${item.index + 1}`}
                            aria-invalid={activeErrors.has(column.key) || undefined}
                            aria-describedby={activeMessages.length ? tipId : undefined}
                            inputMode={column.numeric ? "numeric" : undefined}
                            value={editing.value}
                            onChange={(e) => setEditing({ value: e.target.value })}
                            onKeyDown={(e) => {
                              if (e.key === "Enter") {
                                e.preventDefault();
                                commit([1, 0]);
                              } else if (e.key === "Escape") {
                                e.preventDefault();
                                setEditing(null);
                                gridRef.current?.focus();
                              } else if (e.key === "Tab") {
                                e.preventDefault();
                                commit([0, e.shiftKey ? -1 : 1]);
                              }
                            }}
                          />
                        ) : (
                          <>
                            {row.cells[column.key]}
                            {col === 0 && dirty && <span className="sr-only"> (unsaved)</span>}
                          </>
                        )}
                      </div>
                    );
                  })}
                </div>
              );
            })}
            {activeMessages.length > 0 && (
              // Hidden from the accessibility tree: the active cell is described by it, and the live region says it.
              <div
                aria-hidden="true"
                className={`grid-row cell-tip-track${tipAbove ? " above" : ""}`}
                style={{ transform: `translateY(${(active.row + (tipAbove ? 0 : 1)) * ROW_HEIGHT}px)` }}
              >
                <div
                  id={tipId}
                  className={`cell-tip${tipRightAligned ? " end" : ""}`}
                  style={{ gridColumn: tipRightAligned ? `1 / ${active.col + 2}` : `${active.col + 1} / -1` }}
                >
                  {activeMessages.map((message) => (
                    <p key={message}>{message}</p>
                  ))}
                </div>
              </div>
            )}
          </div>
        </div>
      </div>
      {rows.length === 0 && <p className="muted grid-empty">{empty}</p>}
      <p id={helpId} className="muted help">
        {readOnly ? READ_ONLY_HELP : help}
      </p>
      <div role="status" aria-live="polite" className="sr-only">
        {[...activeErrors.entries()].map(([key, message]) => (
          <p key={key}>
            Row {active.row + 1}, {columns[indexOfKey(key)].label}: {message}
          </p>
        ))}
        {activeServerError && (
          <p>
            Row {active.row + 1}, server: {activeServerError}
          </p>
        )}
      </div>
    </>
  );
}
