import { useEffect, useImperativeHandle, useMemo, useState, type ReactNode, type Ref } from "react";
import "./grid.css";
import { EditingBar } from "./GridTools";
import type { DataGridHandle } from "./hooks/handle";
import { useGridClipboard } from "./hooks/useGridClipboard";
import type { GridDraft } from "./hooks/useGridDraft";
import { useGridEditing, type GridParts } from "./hooks/useGridEditing";
import { useGridKeyboard } from "./hooks/useGridKeyboard";
import { ROW_HEIGHT, useGridLayout } from "./hooks/useGridLayout";
import { useGridPointer } from "./hooks/useGridPointer";
import { useGridSelection } from "./hooks/useGridSelection";
import { editableCells, type GridColumn } from "./models/columns";
import type { GridRow } from "./models/draft";
import { cellsIn, holds, pendingCells, type Writable } from "./models/selection";
import { t } from "../i18n";

export type { DataGridHandle };

/**
 * The spreadsheet-like grid of the console (WAI-ARIA grid pattern, virtualized rows) over a draft of
 * unsaved edits (models/draft.ts): the lines of an Operation and the quota rules both use it, each with
 * its own columns, checks and save. Cells are addressed by their column's key, never by their place.
 * Each concern is a hook (hooks/: layout, selection, editing, keyboard, clipboard, pointer) over pure
 * models (models/: the draft, the selection's plans, the edits, the columns); this file draws them.
 */

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
  cellMarks,
  onActiveCell,
  appendable = true,
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
  /** What else a cell shows (who else is on it), after its value. */
  cellMarks?: (row: GridRow<Stored>, key: string) => ReactNode;
  /** The cell the person is on moved: its row and column, or no row while the focus is outside the grid. */
  onActiveCell?: (row: GridRow<Stored> | undefined, key: string) => void;
  /** Whether rows may be added (a paste past the end): false while only some columns of stored rows edit. */
  appendable?: boolean;
}) {
  const { rows, keyField } = draft;
  const keys = useMemo(() => columns.map((column) => column.key), [columns]);
  const indexOfKey = (key: string) => Math.max(0, keys.indexOf(key));
  const selection = useGridSelection(rows.length, indexOfKey(initialField));
  const { active, block } = selection;
  const { gridRef, headRef, headHeight, tracks, virtualizer } = useGridLayout(columns, rows, active, cellIdPrefix);
  const editable = useMemo(() => editableCells(columns, { readOnly, lockedWhenStored }), [columns, readOnly, lockedWhenStored]);
  const writable: Writable = (row, key) => key !== keyField && editable(row, key);
  const moveToPlace = (row: number, col: number, extend = false) => {
    const next = { row: Math.max(0, Math.min(rows.length - 1, row)), col: Math.max(0, Math.min(columns.length - 1, col)) };
    selection.setActive(next);
    if (!extend) selection.setAnchor(next);
    virtualizer.scrollToIndex(next.row, { align: "auto" });
  };
  const parts: GridParts<Stored> = {
    draft,
    columns,
    keys,
    readOnly,
    edits: { rows, columns, keyField, rowOfKey: draft.rowOfKey, editable, appendable },
    writable,
    selection,
    moveToPlace,
    gridRef,
    onNote,
  };
  const editing = useGridEditing(parts);
  const onKeyDown = useGridKeyboard(parts, editing);
  const { onCopy, onCut, onPaste } = useGridClipboard(parts, editing);
  const { onCellMouseDown, onCellMouseEnter, startFillDrag, fillTarget } = useGridPointer(parts, editing, headHeight);
  const { activeKey, said } = editing;
  /** The active cell's value while it is typed. */
  const typing = editing.editing;

  useImperativeHandle(ref, () => ({
    moveTo: (row, key, { focus = false } = {}) => {
      moveToPlace(row, indexOfKey(key));
      if (!focus) return;
      // The grid may stand below the fold: the page scrolls it whole into view once what the caller says above
      // it (a note) is drawn, and the focus has the cell's error said.
      gridRef.current?.focus({ preventScroll: true });
      requestAnimationFrame(() => gridRef.current?.scrollIntoView({ block: "nearest" }));
    },
    addRow: () => editing.addRow((row) => virtualizer.scrollToIndex(row)),
    focus: () => gridRef.current?.focus(),
    activeRow: () => rows[active.row],
  }));

  const activeRow = rows[active.row];
  const [focused, setFocused] = useState(false);
  const personOn = focused ? activeRow : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: told when the cell moves, not when its row's values change.
  useEffect(() => onActiveCell?.(personOn, activeKey), [personOn?.id, activeKey, onActiveCell]);
  const activeErrors = activeRow
    ? errorsOf(typing ? { ...activeRow, cells: { ...activeRow.cells, [activeKey]: typing.value } } : activeRow)
    : new Map<string, string>();
  const idBase = className || "grid";
  const helpId = `${idBase}-help`;
  const tipId = `${idBase}-cell-error`;
  const activeServerError = activeRow && draft.serverErrorOf(activeRow);
  // What is wrong with the active cell, shown right under it (and said by the live region below).
  const activeMessages = [activeErrors.get(activeKey), activeServerError && t("grid.serverSaid", { message: activeServerError })].filter(
    (message): message is string => Boolean(message),
  );
  // Below the cell, but above it on the last rows (the body is at least three rows high, so it fits either way).
  const tipAbove = active.row > 0 && active.row >= rows.length - 2;
  const tipRightAligned = active.col >= columns.length / 2;
  const storedCellsOf = draft.storedCellsOf as (row: GridRow<unknown>) => Record<string, string> | undefined;
  const unsavedCells = useMemo(() => pendingCells(draft.dirtyRows, keys, storedCellsOf).length, [draft.dirtyRows, keys, storedCellsOf]);
  const replaceable = columns.filter((column) => column.key !== keyField && !column.readOnly);
  const selected = cellsIn(block);

  return (
    <>
      {!readOnly && (
        <EditingBar
          id={idBase}
          draft={draft}
          columns={columns}
          replaceable={replaceable}
          rows={rows}
          activeKey={activeKey}
          writable={writable}
          editing={editing}
          canFillDown={block.bottom > 0}
          unsavedCells={unsavedCells}
          selected={selected}
          said={said}
          onClosed={() => gridRef.current?.focus()}
        />
      )}
      <div
        ref={gridRef}
        role="grid"
        tabIndex={0}
        aria-label={label}
        aria-rowcount={rows.length + 1}
        aria-colcount={columns.length}
        aria-multiselectable
        aria-readonly={readOnly || undefined}
        aria-describedby={readOnlyNoteId ? `${readOnlyNoteId} ${helpId}` : helpId}
        aria-activedescendant={!typing && activeRow ? `${cellIdPrefix}-${active.row}-${active.col}` : undefined}
        className={`grid${readOnly ? " readonly" : ""} ${className}`}
        style={tracks}
        onKeyDown={onKeyDown}
        onFocus={() => setFocused(true)}
        onBlur={(event) => setFocused(event.currentTarget.contains(event.relatedTarget))}
        onPaste={onPaste}
        onCopy={onCopy}
        onCut={onCut}
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
              const conflicts = draft.conflictsOf(row);
              const inFill = fillTarget !== null && item.index >= fillTarget.top && item.index <= fillTarget.bottom;
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
                    const isSelected = holds(block, item.index, col);
                    const error = errors.get(column.key) ?? (col === 0 ? serverError : undefined);
                    const place = { row: item.index, col };
                    const edges = isSelected
                      ? [
                          item.index === block.top && "sel-top",
                          item.index === block.bottom && "sel-bottom",
                          col === block.left && "sel-left",
                          col === block.right && "sel-right",
                        ]
                      : [];
                    const classes = [
                      column.numeric && "num",
                      isActive && "active",
                      isSelected && "selected",
                      ...edges,
                      inFill && col >= block.left && col <= block.right && "fill-target",
                      error && "invalid",
                      conflicts?.has(column.key) && "conflict",
                    ];
                    return (
                      <div
                        key={column.key}
                        id={`${cellIdPrefix}-${item.index}-${col}`}
                        role="gridcell"
                        aria-colindex={col + 1}
                        aria-selected={isSelected}
                        aria-invalid={error ? true : undefined}
                        aria-readonly={!editable(row, column.key) || undefined}
                        aria-describedby={isActive && activeMessages.length ? tipId : undefined}
                        title={error}
                        className={classes.filter(Boolean).join(" ")}
                        onMouseDown={(event) => onCellMouseDown(event, place)}
                        onMouseEnter={() => onCellMouseEnter(place)}
                        onDoubleClick={() => editing.startEditing()}
                      >
                        {isActive && typing ? (
                          <input
                            // biome-ignore lint/a11y/noAutofocus: the editor appears only when the person starts editing this cell (Enter, a double click, typing); focus belongs in it.
                            autoFocus
                            aria-label={t("grid.cellName", { column: column.key, row: item.index + 1 })}
                            aria-invalid={activeErrors.has(column.key) || undefined}
                            aria-describedby={activeMessages.length ? tipId : undefined}
                            inputMode={column.numeric ? "numeric" : undefined}
                            value={typing.value}
                            onChange={(e) => editing.setEditing({ value: e.target.value })}
                            onKeyDown={(e) => {
                              if (e.key === "Enter") {
                                e.preventDefault();
                                editing.commit([1, 0]);
                              } else if (e.key === "Escape") {
                                e.preventDefault();
                                editing.cancel();
                              } else if (e.key === "Tab") {
                                e.preventDefault();
                                editing.commit([0, e.shiftKey ? -1 : 1]);
                              }
                            }}
                          />
                        ) : (
                          <>
                            {column.display ? column.display(row) : row.cells[column.key]}
                            {col === 0 && dirty && <span className="sr-only"> {t("grid.unsaved")}</span>}
                            {conflicts?.has(column.key) && (
                              <span className="sr-only">
                                {" "}
                                {t("grid.conflictTheirs", { theirs: draft.storedCellsOf(row)?.[column.key] || t("grid.conflictEmpty") })}
                              </span>
                            )}
                          </>
                        )}
                        {cellMarks?.(row, column.key)}
                        {!readOnly && !typing && item.index === block.bottom && col === block.right && (
                          // The pointer's way to fill; the keyboard's is Ctrl+D (the help says so).
                          <span className="fill-handle" aria-hidden="true" onMouseDown={startFillDrag} />
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
        {/* The spreadsheet keys every editable grid has, said after the page's own help. */}
        {readOnly ? t("grid.readOnlyHelp") : `${help} ${t("grid.editHelp")}`}
      </p>
      <div role="status" aria-live="polite" className="sr-only">
        {readOnly && said && <p key={said.n}>{said.text}</p>}
        {[...activeErrors.entries()].map(([key, message]) => (
          <p key={key}>{t("grid.cellSaid", { row: active.row + 1, column: columns[indexOfKey(key)].label, message })}</p>
        ))}
        {activeServerError && <p>{t("grid.serverSaidAt", { row: active.row + 1, message: activeServerError })}</p>}
      </div>
    </>
  );
}
