import { defaultRangeExtractor, useVirtualizer } from "@tanstack/react-virtual";
import { useImperativeHandle, useLayoutEffect, useMemo, useReducer, useRef, useState, type ClipboardEvent, type KeyboardEvent, type Ref } from "react";

/**
 * The spreadsheet-like grid of the console (WAI-ARIA grid pattern, virtualized rows) and the draft of
 * unsaved edits behind it: the lines of an Operation and the quota rules both use it, each with its
 * own columns, checks and save.
 */

export interface GridColumn {
  field: string;
  label: string;
  /** The header on a phone's width, where the label does not fit (the label stays its accessible name). */
  short?: string;
  numeric?: boolean;
}

/** A row as the grid shows it: `stored` is what the server holds (absent for a new row), `cells` what is typed. */
export interface GridRow<Stored> {
  id: string;
  stored?: Stored;
  cells: string[];
}

export interface GridDraft<Stored> {
  rows: GridRow<Stored>[];
  /** The column holding a row's key (a line's variant): no two rows share one. */
  keyColumn?: number;
  /** The row whose key cell holds `key` (trimmed), as of this render. */
  rowOfKey: (key: string) => GridRow<Stored> | undefined;
  /** Rows not yet sent to the server (new rows and stored rows with changed cells). */
  dirtyRows: GridRow<Stored>[];
  isDirty: (row: GridRow<Stored>) => boolean;
  /** Rows appended after the stored ones (new rows). */
  addedCount: number;
  setCells: (row: GridRow<Stored>, cells: string[]) => void;
  /** A new empty row at the end (call refresh() after a batch of changes). */
  appendRow: () => GridRow<Stored>;
  /** Drops a row added in the grid (not a stored one). */
  removeRow: (row: GridRow<Stored>) => void;
  /**
   * A row added in the grid turns out to be stored already (the server knows its key): it becomes an
   * edit of that stored item, keeping only the cells typed in it (empty cells take the stored values).
   */
  adopt: (row: GridRow<Stored>, stored: Stored) => void;
  serverErrorOf: (row: GridRow<Stored>) => string | undefined;
  setServerError: (row: GridRow<Stored>, message: string) => void;
  /** The rows the server took: their edits are dropped (the stored data is reloaded by the caller). */
  settle: (saved: GridRow<Stored>[]) => void;
  discard: () => void;
  refresh: () => void;
}

/** The unsaved state of a grid over `items`: edits by row id, rows added, the server's errors by row id. */
export function useGridDraft<Stored>(
  items: Stored[],
  idOf: (item: Stored) => string,
  cellsOf: (item: Stored) => string[],
  width: number,
  { keyColumn }: { keyColumn?: number } = {},
): GridDraft<Stored> {
  const state = useRef({ edits: new Map<string, string[]>(), added: [] as GridRow<Stored>[], serverErrors: new Map<string, string>() }).current;
  const [revision, refresh] = useReducer((n: number) => n + 1, 0);
  // biome-ignore lint/correctness/useExhaustiveDependencies(revision): the draft is changed in place (state); a new revision is what recomputes the rows.
  return useMemo(() => {
    const rows = items
      .map((item): GridRow<Stored> => {
        const id = idOf(item);
        return { id, stored: item, cells: state.edits.get(id) ?? cellsOf(item) };
      })
      .concat(state.added);
    const added = new Set(state.added);
    const isDirty = (row: GridRow<Stored>) => added.has(row) || state.edits.has(row.id);
    const keyOf = (row: GridRow<Stored>) => (keyColumn === undefined ? "" : row.cells[keyColumn].trim());
    const byKey = new Map(keyColumn === undefined ? [] : rows.filter(keyOf).map((row) => [keyOf(row), row]));
    return {
      rows,
      keyColumn,
      rowOfKey: (key) => byKey.get(key),
      dirtyRows: rows.filter(isDirty),
      isDirty,
      addedCount: state.added.length,
      setCells: (row, cells) => {
        if (row.stored && !added.has(row)) {
          const original = cellsOf(row.stored);
          if (cells.every((value, i) => value === original[i])) state.edits.delete(row.id);
          else state.edits.set(row.id, cells);
        } else row.cells = cells;
        state.serverErrors.delete(row.id);
      },
      appendRow: () => {
        const row: GridRow<Stored> = { id: `new-${crypto.randomUUID()}`, cells: Array.from({ length: width }, () => "") };
        state.added.push(row);
        return row;
      },
      removeRow: (row) => {
        state.added = state.added.filter((other) => other !== row);
        state.serverErrors.delete(row.id);
      },
      adopt: (row, stored) => {
        const storedCells = cellsOf(stored);
        row.stored = stored;
        row.cells = row.cells.map((value, i) => (value.trim() === "" ? storedCells[i] : value));
      },
      serverErrorOf: (row) => state.serverErrors.get(row.id),
      setServerError: (row, message) => void state.serverErrors.set(row.id, message),
      settle: (saved) => {
        const settled = new Set(saved);
        for (const row of saved) state.edits.delete(row.id);
        state.added = state.added.filter((row) => !settled.has(row));
      },
      discard: () => {
        state.edits.clear();
        state.added.length = 0;
        state.serverErrors.clear();
        refresh();
      },
      refresh,
    };
  }, [items, revision, state, width, keyColumn, idOf, cellsOf]);
}

export interface DataGridHandle {
  moveTo: (row: number, col: number) => void;
  /** Appends an empty row and starts editing its first cell. */
  addRow: () => void;
}

const ROW_HEIGHT = 34;
const READ_ONLY_HELP = "Arrow keys, Page Up/Down and Ctrl+Home/End move from cell to cell.";

export function DataGrid<Stored>({
  ref,
  label,
  columns,
  draft,
  readOnly,
  readOnlyNoteId,
  errorsOf,
  lockedWhenStored = [0],
  help,
  empty,
  className = "",
  onNote,
  initialColumn = 0,
}: {
  ref?: Ref<DataGridHandle>;
  label: string;
  columns: readonly GridColumn[];
  draft: GridDraft<Stored>;
  readOnly: boolean;
  /** The id of the note saying why the grid is read-only. */
  readOnlyNoteId?: string;
  /** A row's errors per column, as typed. */
  errorsOf: (row: GridRow<Stored>) => Map<number, string>;
  /** Columns a stored row cannot change (its key). */
  lockedWhenStored?: readonly number[];
  /** How to edit (shown while the grid is editable). */
  help: string;
  /** Said under the grid while it has no row. */
  empty: string;
  className?: string;
  /** A sentence on what a paste or an edit did beyond its cells (rows added, rows found by their key). */
  onNote?: (note: string) => void;
  initialColumn?: number;
}) {
  const { rows, keyColumn } = draft;
  const [active, setActive] = useState({ row: 0, col: initialColumn });
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
  const editable = (row: GridRow<Stored> | undefined, col: number) => !readOnly && row !== undefined && (!row.stored || !lockedWhenStored.includes(col));
  const keyOf = (row: GridRow<Stored>) => (keyColumn === undefined ? "" : row.cells[keyColumn].trim());

  const moveTo = (row: number, col: number) => {
    const next = { row: Math.max(0, Math.min(rows.length - 1, row)), col: Math.max(0, Math.min(columns.length - 1, col)) };
    setActive(next);
    virtualizer.scrollToIndex(next.row, { align: "auto" });
  };
  useImperativeHandle(ref, () => ({
    moveTo,
    addRow: () => {
      draft.appendRow();
      draft.refresh();
      setActive({ row: rows.length, col: 0 });
      setTimeout(() => virtualizer.scrollToIndex(rows.length), 0);
      setEditing({ value: "" });
    },
  }));
  /** `cells` given for `row`: every one of them, or (`onlyFilled`) the non-empty ones; cells it cannot change are left. */
  const fill = (row: GridRow<Stored>, given: Map<number, string>, onlyFilled: boolean) => {
    const cells = [...row.cells];
    for (const [col, value] of given) if (editable(row, col) && (value !== "" || !onlyFilled)) cells[col] = value;
    draft.setCells(row, cells);
  };
  const commit = (move: [number, number] | null) => {
    const row = rows[active.row];
    setEditing(null);
    gridRef.current?.focus();
    if (!editing || !row) return void (move && moveTo(active.row + move[0], active.col + move[1]));
    const cells = [...row.cells];
    cells[active.col] = editing.value;
    const key = active.col === keyColumn ? editing.value.trim() : "";
    const holder = key ? draft.rowOfKey(key) : undefined;
    if (holder && holder !== row) {
      // The key is another row's already (a new row typed with a stored variant): that row takes
      // this one's filled cells, and this one goes, so no two rows ever share a key.
      fill(holder, new Map(cells.map((value, col) => [col, value.trim()])), true);
      draft.removeRow(row);
      draft.refresh();
      const target = rows.indexOf(holder) - (rows.indexOf(holder) > active.row ? 1 : 0);
      onNote?.(`${key} is already in the grid (row ${target + 1}): that row was edited instead of adding another.`);
      return moveTo(target, active.col + (move?.[1] ?? 0));
    }
    draft.setCells(row, cells);
    draft.refresh();
    if (move) moveTo(active.row + move[0], active.col + move[1]);
  };
  const startEditing = (initial?: string) => {
    if (!editable(rows[active.row], active.col)) return;
    setEditing({ value: initial ?? rows[active.row].cells[active.col] });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (editing) return;
    const keys: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (keys[event.key]) {
      event.preventDefault();
      moveTo(active.row + keys[event.key][0], active.col + keys[event.key][1]);
    } else if (event.key === "PageDown" || event.key === "PageUp") {
      event.preventDefault();
      moveTo(active.row + (event.key === "PageDown" ? 15 : -15), active.col);
    } else if (event.key === "Home" && event.ctrlKey) moveTo(0, active.col);
    else if (event.key === "End" && event.ctrlKey) moveTo(rows.length - 1, active.col);
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
    const keyAt = keyColumn === undefined ? -1 : keyColumn - start.col;
    // Rows keyed by this paste, found before the next render indexes them.
    const pasted = new Map<string, GridRow<Stored>>();
    const rowOfKey = (key: string) => {
      const found = pasted.get(key) ?? draft.rowOfKey(key);
      return found && keyOf(found) === key ? found : undefined;
    };
    let added = 0;
    let found = 0;
    for (const [i, values] of block.entries()) {
      const given = new Map(values.map((value, j) => [start.col + j, value.trim()] as const).filter(([col]) => col < columns.length));
      const key = keyAt >= 0 ? (values[keyAt] ?? "").trim() : "";
      let row: GridRow<Stored> | undefined = rows[start.row + i];
      const holder = key ? rowOfKey(key) : undefined;
      if (holder) {
        fill(holder, given, true);
        found++;
        continue;
      }
      if (key && row?.stored && !holder) row = undefined;
      if (!row) {
        row = draft.appendRow();
        added++;
      }
      fill(row, given, false);
      if (key) pasted.set(key, row);
    }
    draft.refresh();
    const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
    onNote?.(
      `Pasted ${plural(block.length, "row")}` +
        (added ? `, ${added} of them new` : "") +
        (found
          ? `; ${plural(found, "row")} named a ${columns[keyColumn ?? 0].label.toLowerCase()} already in the grid and edited its row (filled cells only)`
          : "") +
        ".",
    );
  };

  const activeRow = rows[active.row];
  const activeErrors = activeRow
    ? errorsOf(editing ? { ...activeRow, cells: Object.assign([...activeRow.cells], { [active.col]: editing.value }) } : activeRow)
    : new Map<number, string>();
  const idBase = className || "grid";
  const helpId = `${idBase}-help`;
  const tipId = `${idBase}-cell-error`;
  const activeServerError = activeRow && draft.serverErrorOf(activeRow);
  // What is wrong with the active cell, shown right under it (and said by the live region below).
  const activeMessages = [activeErrors.get(active.col), activeServerError && `Server: ${activeServerError}`].filter((message): message is string =>
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
        aria-activedescendant={!editing && activeRow ? `cell-${active.row}-${active.col}` : undefined}
        className={`grid${readOnly ? " readonly" : ""} ${className}`}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      >
        <div role="rowgroup" className="grid-head" ref={headRef}>
          <div role="row" aria-rowindex={1} className="grid-row">
            {columns.map((column) => (
              <div key={column.field} role="columnheader" className={column.numeric ? "num" : undefined}>
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
                    const error = errors.get(col) ?? (col === 0 ? serverError : undefined);
                    return (
                      <div
                        key={column.field}
                        id={`cell-${item.index}-${col}`}
                        role="gridcell"
                        aria-colindex={col + 1}
                        aria-selected={isActive}
                        aria-invalid={error ? true : undefined}
                        aria-readonly={!editable(row, col) || undefined}
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
                            aria-label={`${column.field}, row ${item.index + 1}`}
                            aria-invalid={activeErrors.has(col) || undefined}
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
                            {row.cells[col]}
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
        {[...activeErrors.entries()].map(([col, message]) => (
          <p key={col}>
            Row {active.row + 1}, {columns[col].label}: {message}
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
