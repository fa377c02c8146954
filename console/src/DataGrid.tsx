import { useVirtualizer } from "@tanstack/react-virtual";
import { useImperativeHandle, useMemo, useReducer, useRef, useState, type ClipboardEvent, type KeyboardEvent, type Ref } from "react";

/**
 * The spreadsheet-like grid of the console (WAI-ARIA grid pattern, virtualized rows) and the draft of
 * unsaved edits behind it: the lines of an Operation and the quota rules both use it, each with its
 * own columns, checks and save.
 */

export interface GridColumn {
  field: string;
  label: string;
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
  /** Rows not yet sent to the server (new rows and stored rows with changed cells). */
  dirtyRows: GridRow<Stored>[];
  isDirty: (row: GridRow<Stored>) => boolean;
  /** Rows appended after the stored ones (new rows). */
  addedCount: number;
  setCells: (row: GridRow<Stored>, cells: string[]) => void;
  /** A new empty row at the end (call refresh() after a batch of changes). */
  appendRow: () => GridRow<Stored>;
  serverErrorOf: (row: GridRow<Stored>) => string | undefined;
  setServerError: (row: GridRow<Stored>, message: string) => void;
  /** The rows the server took: their edits are dropped (the stored data is reloaded by the caller). */
  settle: (saved: GridRow<Stored>[]) => void;
  discard: () => void;
  refresh: () => void;
}

/** The unsaved state of a grid over `items`: edits by row id, rows added, the server's errors by row id. */
export function useGridDraft<Stored>(items: Stored[], idOf: (item: Stored) => string, cellsOf: (item: Stored) => string[], width: number): GridDraft<Stored> {
  const state = useRef({ edits: new Map<string, string[]>(), added: [] as GridRow<Stored>[], serverErrors: new Map<string, string>() }).current;
  const [revision, refresh] = useReducer((n: number) => n + 1, 0);
  return useMemo(() => {
    const rows = items.map((item): GridRow<Stored> => {
      const id = idOf(item);
      return { id, stored: item, cells: state.edits.get(id) ?? cellsOf(item) };
    }).concat(state.added);
    const isDirty = (row: GridRow<Stored>) => !row.stored || state.edits.has(row.id);
    return {
      rows,
      dirtyRows: rows.filter(isDirty),
      isDirty,
      addedCount: state.added.length,
      setCells: (row, cells) => {
        if (row.stored) {
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
      serverErrorOf: (row) => state.serverErrors.get(row.id),
      setServerError: (row, message) => void state.serverErrors.set(row.id, message),
      settle: (saved) => {
        const savedNew = new Set(saved.filter((row) => !row.stored));
        for (const row of saved) if (row.stored) state.edits.delete(row.id);
        state.added = state.added.filter((row) => !savedNew.has(row));
      },
      discard: () => {
        state.edits.clear();
        state.added.length = 0;
        state.serverErrors.clear();
        refresh();
      },
      refresh,
    };
    // idOf and cellsOf are module functions; a new revision recomputes the rows.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [items, revision, state, width]);
}

export interface DataGridHandle {
  moveTo: (row: number, col: number) => void;
  /** Appends an empty row and starts editing its first cell. */
  addRow: () => void;
}

const ROW_HEIGHT = 34;

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
  className = "",
  onPasted,
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
  help: string;
  className?: string;
  onPasted?: (rows: number) => void;
  initialColumn?: number;
}) {
  const { rows } = draft;
  const [active, setActive] = useState({ row: 0, col: initialColumn });
  const [editing, setEditing] = useState<{ value: string } | null>(null);
  const gridRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const editable = (row: GridRow<Stored> | undefined, col: number) => !readOnly && row !== undefined && (!row.stored || !lockedWhenStored.includes(col));

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
  const commit = (move: [number, number] | null) => {
    const row = rows[active.row];
    if (editing && row) {
      const cells = [...row.cells];
      cells[active.col] = editing.value;
      draft.setCells(row, cells);
      draft.refresh();
    }
    setEditing(null);
    gridRef.current?.focus();
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

  /** A block of cells from a spreadsheet (tab-separated), from the active cell across rows and columns; rows past the end are new rows. */
  const onPaste = (event: ClipboardEvent<HTMLDivElement>) => {
    if (readOnly || editing) return;
    const text = event.clipboardData.getData("text/plain");
    if (!text) return;
    event.preventDefault();
    const block = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n").map((line) => line.split("\t"));
    const start = rows.length ? active : { row: 0, col: 0 };
    block.forEach((values, i) => {
      const row = rows[start.row + i] ?? draft.appendRow();
      const cells = [...row.cells];
      values.forEach((value, j) => {
        const col = start.col + j;
        if (col < columns.length && editable(row, col)) cells[col] = value.trim();
      });
      draft.setCells(row, cells);
    });
    draft.refresh();
    onPasted?.(block.length);
  };

  const activeRow = rows[active.row];
  const activeErrors = activeRow ? errorsOf(editing ? { ...activeRow, cells: Object.assign([...activeRow.cells], { [active.col]: editing.value }) } : activeRow) : new Map<number, string>();
  const helpId = `${className || "grid"}-help`;
  const activeServerError = activeRow && draft.serverErrorOf(activeRow);

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
        aria-describedby={readOnlyNoteId ?? helpId}
        aria-activedescendant={!editing && activeRow ? `cell-${active.row}-${active.col}` : undefined}
        className={`grid${readOnly ? " readonly" : ""} ${className}`}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      >
        <div role="rowgroup" className="grid-head">
          <div role="row" aria-rowindex={1} className="grid-row">
            {columns.map((column) => (
              <div key={column.field} role="columnheader" className={column.numeric ? "num" : undefined}>
                {column.label}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" ref={scrollRef} className="grid-body">
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
                  style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
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
                            autoFocus
                            aria-label={`${column.field}, row ${item.index + 1}`}
                            aria-invalid={activeErrors.has(col) || undefined}
                            inputMode={column.numeric ? "numeric" : undefined}
                            value={editing.value}
                            onChange={(e) => setEditing({ value: e.target.value })}
                            onKeyDown={(e) => {
                              if (e.key === "Enter") (e.preventDefault(), commit([1, 0]));
                              else if (e.key === "Escape") (e.preventDefault(), setEditing(null), gridRef.current?.focus());
                              else if (e.key === "Tab") (e.preventDefault(), commit([0, e.shiftKey ? -1 : 1]));
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
          </div>
        </div>
      </div>
      <p id={helpId} className="muted help">
        {help}
      </p>
      <div role="status" aria-live="polite" className="cell-errors">
        {[...activeErrors.entries()].map(([col, message]) => (
          <p key={col} className="error-text">
            Row {active.row + 1}, {columns[col].field}: {message}
          </p>
        ))}
        {activeServerError && <p className="error-text">Server: {activeServerError}</p>}
      </div>
    </>
  );
}
