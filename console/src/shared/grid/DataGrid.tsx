import { defaultRangeExtractor, useVirtualizer } from "@tanstack/react-virtual";
import {
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ClipboardEvent,
  type CSSProperties,
  type KeyboardEvent,
  type MouseEvent,
  type Ref,
} from "react";
import { plural } from "../format";
import type { DraftChange, GridDraft, GridRow } from "./draft";
import "./grid.css";
import type { GridColumn } from "./columns";
import { FindReplace, ReviewChanges } from "./GridTools";
import {
  blockOf,
  blockText,
  cellsIn,
  holds,
  parseBlock,
  pendingCells,
  planFill,
  planFillDown,
  planSet,
  type Place,
  type Plan,
  type Replacement,
  type Writable,
} from "./selection";

/**
 * The spreadsheet-like grid of the console (WAI-ARIA grid pattern, virtualized rows) over a draft of
 * unsaved edits (draft.ts): the lines of an Operation and the quota rules both use it, each with its
 * own columns, checks and save. Cells are addressed by their column's key, never by their place.
 */

export interface DataGridHandle {
  /** Makes the cell of row `row` (its place in the grid) and column `key` the active one, scrolled into view (`focus`: the page too, and the grid focused). */
  moveTo: (row: number, key: string, options?: { focus?: boolean }) => void;
  /** Appends an empty row and starts editing its first cell. */
  addRow: () => void;
}

const ROW_HEIGHT = 34;
const READ_ONLY_HELP = "Arrow keys, Page Up/Down and Ctrl+Home/End move from cell to cell · Shift with them selects · Ctrl+C copies.";
/** The spreadsheet keys every editable grid has, said under it after the page's own help. */
const EDIT_HELP =
  "Shift+arrows (or a drag) select · Ctrl+C copies, Ctrl+V pastes into the selection · Ctrl+D fills down (or drag the selection's corner) · Delete or Space clears · Ctrl+Z undoes, Ctrl+Shift+Z or Ctrl+Y redoes.";
/** A cell's padding and border, and room for the caret: on a phone (0.3rem a side), and wider (0.6rem). */
const NARROW_CELL_EXTRA = 16;
const WIDE_CELL_EXTRA = 22;
const MIN_COLUMN = 48;
/** On a wide screen no column but the first is made wider than this for its values (a long name may be cut there, never the first column's code). */
const WIDE_VALUE_CAP = 320;

/**
 * The columns' tracks, from the width of each column's widest value and header, measured in the grid
 * itself (its font, tabular figures for numbers): on a phone (`--narrow-columns`, under 640 px) each
 * column is exactly that wide, none is cut ("SKU-B…"), and the grid scrolls sideways under its first
 * column (sticky); wider (`--wide-columns`) each column takes its share (`grow`) of the room but never
 * less than its values. Only the longest values of each column are measured (50 at most): 5000 rows
 * cost a scan of their lengths and one layout.
 */
function columnTracks(element: HTMLElement | null, columns: readonly GridColumn[], rows: readonly GridRow<unknown>[]): CSSProperties | undefined {
  if (!element) return undefined;
  const ruler = document.createElement("div");
  ruler.className = "grid-ruler";
  const measure = (text: string, className: string) => {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = text;
    ruler.appendChild(span);
    return span;
  };
  const spans = columns.map((column) => {
    let longest = 0;
    for (const row of rows) longest = Math.max(longest, (row.cells[column.key] ?? "").length);
    const candidates = new Set<string>();
    for (const row of rows) {
      const value = row.cells[column.key] ?? "";
      if (value.length >= longest * 0.75 && candidates.size < 50) candidates.add(value);
    }
    return {
      values: [...candidates].map((value) => measure(value, column.numeric ? "num" : "")),
      short: measure(column.short ?? column.label, "grid-ruler-head"),
      full: measure(column.label, "grid-ruler-head"),
    };
  });
  element.appendChild(ruler);
  const widthOf = (measured: HTMLElement[]) => Math.max(0, ...measured.map((span) => span.getBoundingClientRect().width));
  const widths = spans.map(({ values, short, full }) => ({ values: widthOf(values), short: widthOf([short]), full: widthOf([full]) }));
  ruler.remove();
  const last = columns.length - 1;
  const narrow = widths.map(({ values, short }, i) => {
    const width = Math.max(MIN_COLUMN, Math.ceil(Math.max(values, short) + NARROW_CELL_EXTRA));
    // The last column takes what is left when they all fit (one flexible track keeps every row's tracks equal).
    return i === last ? `minmax(${width}px, 1fr)` : `${width}px`;
  });
  const wide = widths.map(({ values, full }, i) => {
    const width = Math.max(MIN_COLUMN, Math.ceil(Math.max(i === 0 || columns[i].whole ? values : Math.min(values, WIDE_VALUE_CAP), full) + WIDE_CELL_EXTRA));
    return `minmax(${width}px, ${columns[i].grow ?? 1}fr)`;
  });
  return { "--narrow-columns": narrow.join(" "), "--wide-columns": wide.join(" ") } as CSSProperties;
}

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
  const keys = useMemo(() => columns.map((column) => column.key), [columns]);
  const indexOfKey = (key: string) =>
    Math.max(
      0,
      columns.findIndex((column) => column.key === key),
    );
  // The active cell and the selection's other corner are places in the view (row and column as
  // shown): they move with the keys; what a change writes is found by row id and column key.
  const [active, setActive] = useState<Place>(() => ({ row: 0, col: indexOfKey(initialField) }));
  const [anchor, setAnchor] = useState<Place>(active);
  const [editing, setEditing] = useState<{ value: string } | null>(null);
  const [finding, setFinding] = useState(false);
  const [reviewing, setReviewing] = useState(false);
  // What the last action did, for the live region ("5000 cells filled."), until the draft changes again;
  // `n` makes a repeat a new announcement.
  const [lastSaid, setSaid] = useState<{ text: string; n: number; edits: number } | null>(null);
  const say = (text: string) => setSaid((last) => ({ text, n: (last?.n ?? 0) + 1, edits: draft.editCount() }));
  const said = lastSaid?.edits === draft.editCount() ? lastSaid : null;
  // The fill handle's drag: the row the pointer is over (the selection grows to it when released).
  const [fillTo, setFillTo] = useState<number | null>(null);
  const dragging = useRef<"select" | "fill" | null>(null);
  // The grid itself scrolls (under its sticky header row): the element the keyboard focuses is the
  // one that scrolls, and the rows start below the header.
  const gridRef = useRef<HTMLDivElement>(null);
  const headRef = useRef<HTMLDivElement>(null);
  const [headHeight, setHeadHeight] = useState(ROW_HEIGHT);
  useLayoutEffect(() => {
    const height = headRef.current?.offsetHeight;
    if (height && height !== headHeight) setHeadHeight(height);
  });
  // Rows gone (an undo took added rows away, a search shows fewer): the selection stays inside the grid.
  const last = Math.max(0, rows.length - 1);
  if (active.row > last || anchor.row > last) {
    setActive({ ...active, row: Math.min(active.row, last) });
    setAnchor({ ...anchor, row: Math.min(anchor.row, last) });
  }
  const selection = blockOf(anchor, active);
  const [mounted, setMounted] = useState(false);
  useLayoutEffect(() => setMounted(true), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies(mounted): measured once the grid is in the page (its font known).
  const tracks = useMemo(() => columnTracks(gridRef.current, columns, rows), [columns, rows, mounted]);
  // On a phone the grid scrolls sideways: the active cell is brought into view beside the sticky first column.
  useEffect(() => {
    const grid = gridRef.current;
    const cell = document.getElementById(`${cellIdPrefix}-${active.row}-${active.col}`);
    if (!grid || !cell || grid.scrollWidth <= grid.clientWidth) return;
    const sticky = active.col === 0 ? 0 : (grid.querySelector<HTMLElement>('[role="columnheader"]')?.offsetWidth ?? 0);
    const left = cell.offsetLeft - sticky;
    const right = cell.offsetLeft + cell.offsetWidth;
    if (left < grid.scrollLeft) grid.scrollLeft = left;
    else if (right > grid.scrollLeft + grid.clientWidth) grid.scrollLeft = right - grid.clientWidth;
  }, [active.row, active.col, cellIdPrefix]);
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
  // What a fill, a replace or one value pasted over many cells may write: never a row's key, since
  // one value copied into several rows would give them all the same key.
  const writable: Writable = (row, key) => key !== keyField && editable(row as GridRow<Stored>, key);
  const normalizers = useMemo(() => new Map(columns.flatMap((column) => (column.normalize ? [[column.key, column.normalize] as const] : []))), [columns]);
  const written = (key: string, value: string) => normalizers.get(key)?.(value) ?? value;
  const keyOf = (row: GridRow<Stored>) => (keyField === undefined ? "" : (row.cells[keyField] ?? "").trim());

  const moveToPlace = (row: number, col: number, extend = false) => {
    const next = { row: Math.max(0, Math.min(rows.length - 1, row)), col: Math.max(0, Math.min(columns.length - 1, col)) };
    setActive(next);
    if (!extend) setAnchor(next);
    virtualizer.scrollToIndex(next.row, { align: "auto" });
  };
  const select = (from: Place, to: Place) => {
    setAnchor(from);
    moveToPlace(to.row, to.col, true);
  };
  useImperativeHandle(ref, () => ({
    moveTo: (row, key, { focus = false } = {}) => {
      moveToPlace(row, indexOfKey(key));
      if (!focus) return;
      // The grid may stand below the fold: the page scrolls it whole into view once what the caller says above
      // it (a note) is drawn, and the focus has the cell's error said.
      gridRef.current?.focus({ preventScroll: true });
      requestAnimationFrame(() => gridRef.current?.scrollIntoView({ block: "nearest" }));
    },
    addRow: () => {
      const change = draft.change("Add a row");
      change.append();
      change.commit();
      const added = { row: rows.length, col: 0 };
      setActive(added);
      setAnchor(added);
      setTimeout(() => virtualizer.scrollToIndex(rows.length), 0);
      setEditing({ value: "" });
    },
  }));
  /** `given` cells (by key) written into `row` within `change`: all of them, or (`onlyFilled`) the non-empty ones; cells it cannot change are left. */
  const fill = (change: DraftChange<Stored>, row: GridRow<Stored>, given: Map<string, string>, onlyFilled: boolean) => {
    const now = change.current(row);
    const cells = { ...now.cells };
    for (const [key, value] of given) if (editable(now, key) && (value !== "" || !onlyFilled)) cells[key] = written(key, value);
    change.set(now, cells);
  };
  /** Writes a plan (selection.ts) as one undo step named `what` and says how many cells it changed (`done`: "filled"). */
  const write = (plan: Plan, what: string, done: string) => {
    if (!plan.cells) return say(`No cell changed: ${what.toLowerCase()} left every cell as it was.`);
    const change = draft.change(what);
    for (const { row, cells } of plan.writes) fill(change, rows[row], cells, false);
    change.commit(`${what} (${plural(plan.cells, "cell")})`);
    say(`${plural(plan.cells, "cell")} ${done}.`);
  };
  const clear = () =>
    write(
      planSet(rows, keys, selection, "", (row, key) => editable(row as GridRow<Stored>, key)),
      "Clear",
      "cleared",
    );
  const fillDown = () => write(planFillDown(rows, keys, selection, writable), "Fill down", "filled");
  const replace = (replacements: Replacement[], column: GridColumn) => {
    const plan: Plan = { writes: replacements.map(({ row, to }) => ({ row, cells: new Map([[column.key, to]]) })), cells: replacements.length };
    write(plan, `Replace in ${column.label}`, "replaced");
  };
  const step = (which: "undo" | "redo") => {
    const name = which === "undo" ? draft.undoLabel : draft.redoLabel;
    const touched = draft[which]();
    if (!touched) return say(which === "undo" ? "Nothing to undo." : "Nothing to redo.");
    say(`${which === "undo" ? "Undone" : "Redone"}: ${name}.`);
    // The first row it touched, wherever the sort or the search now shows it (if it does).
    const at = rows.findIndex((row) => row.id === touched[0]);
    if (at >= 0) moveToPlace(at, active.col);
  };
  const commit = (move: [number, number] | null) => {
    const row = rows[active.row];
    setEditing(null);
    gridRef.current?.focus();
    if (!editing || !row) return void (move && moveToPlace(active.row + move[0], active.col + move[1]));
    const cells = { ...row.cells, [activeKey]: written(activeKey, editing.value) };
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
    setAnchor(active);
    setEditing({ value: initial ?? rows[active.row].cells[activeKey] });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (editing) return;
    const ctrl = event.ctrlKey || event.metaKey;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const command: Record<string, (() => void) | undefined> = ctrl
      ? {
          z: readOnly ? undefined : () => step(event.shiftKey ? "redo" : "undo"),
          y: readOnly ? undefined : () => step("redo"),
          d: readOnly ? undefined : fillDown,
          a: () => select({ row: 0, col: 0 }, { row: rows.length - 1, col: columns.length - 1 }),
        }
      : {};
    if (command[key]) {
      event.preventDefault();
      return command[key]();
    }
    const page = 15;
    const moves: Record<string, Place> = {
      ArrowUp: { row: active.row - 1, col: active.col },
      ArrowDown: { row: active.row + 1, col: active.col },
      ArrowLeft: { row: active.row, col: active.col - 1 },
      ArrowRight: { row: active.row, col: active.col + 1 },
      PageUp: { row: active.row - page, col: active.col },
      PageDown: { row: active.row + page, col: active.col },
      Home: ctrl ? { row: 0, col: active.col } : { row: active.row, col: 0 },
      End: ctrl ? { row: rows.length - 1, col: active.col } : { row: active.row, col: columns.length - 1 },
    };
    const target = moves[event.key];
    if (target) {
      event.preventDefault();
      return moveToPlace(target.row, target.col, event.shiftKey);
    }
    if (readOnly) return;
    if (event.key === "Delete" || event.key === "Backspace" || (event.key === " " && !ctrl && !event.altKey)) {
      event.preventDefault();
      clear();
    } else if (event.key === "Enter" || event.key === "F2") {
      event.preventDefault();
      startEditing();
    } else if (event.key.length === 1 && !ctrl && !event.altKey) {
      event.preventDefault();
      startEditing(event.key);
    }
  };

  const onCopy = (event: ClipboardEvent<HTMLDivElement>) => {
    if (editing || !rows.length) return;
    event.preventDefault();
    event.clipboardData.setData("text/plain", blockText(rows, keys, selection));
    say(`${plural(cellsIn(selection), "cell")} copied.`);
  };
  const onCut = (event: ClipboardEvent<HTMLDivElement>) => {
    if (editing || readOnly || !rows.length) return;
    onCopy(event);
    clear();
  };

  /**
   * A block of cells from a spreadsheet (tab-separated), from the selection's first cell across rows
   * and columns; rows past the end are new rows. One value pasted over a selection of several cells
   * fills them all. When the block holds the key column, each of its rows goes to the row of its key:
   * a key already in the grid edits that row (its filled cells only: an empty cell keeps the value), a
   * new key is a new row (it never overwrites a stored row of another key).
   */
  const onPaste = (event: ClipboardEvent<HTMLDivElement>) => {
    if (readOnly || editing) return;
    const text = event.clipboardData.getData("text/plain");
    if (!text) return;
    event.preventDefault();
    const block = parseBlock(text);
    if (block.length === 1 && block[0].length === 1 && cellsIn(selection) > 1) {
      return write(planSet(rows, keys, selection, block[0][0].trim(), writable), "Paste", "pasted");
    }
    const start = rows.length ? { row: selection.top, col: selection.left } : { row: 0, col: 0 };
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
    let width = 0;
    for (const [i, values] of block.entries()) {
      const given = new Map(values.flatMap((value, j) => (start.col + j < columns.length ? [[columns[start.col + j].key, value.trim()] as const] : [])));
      width = Math.max(width, given.size);
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
    change.commit(`Paste (${plural(block.length, "row")})`);
    // The pasted block becomes the selection (as far as the grid shows it: keyed rows may stand
    // elsewhere), the active cell staying at its first cell, as spreadsheets do.
    setAnchor({ row: start.row + block.length - 1, col: start.col + Math.max(0, width - 1) });
    setActive(start);
    say(`${plural(block.length, "row")} pasted.`);
    onNote?.(
      `Pasted ${plural(block.length, "row")}` +
        (added ? `, ${added} of them new` : "") +
        (found
          ? `; ${plural(found, "row")} named a ${columns[indexOfKey(keyField ?? columns[0].key)].label.toLowerCase()} already in the grid and edited its row (filled cells only)`
          : "") +
        ".",
    );
  };

  // The pointer: a press selects a cell (Shift extends), a drag selects a block, and the fill handle
  // (the selection's corner) dragged up or down fills the rows it passes with the selection's rows.
  const onCellMouseDown = (event: MouseEvent, place: Place) => {
    if (event.button !== 0) return;
    if (editing) {
      if (place.row === active.row && place.col === active.col) return;
      commit(null);
    }
    event.preventDefault();
    // Not scrolled: a page that scrolled under the pointer would carry the press on to other cells.
    gridRef.current?.focus({ preventScroll: true });
    dragging.current = "select";
    startEdgeScroll(event.clientY);
    if (event.shiftKey) moveToPlace(place.row, place.col, true);
    else {
      setActive(place);
      setAnchor(place);
    }
  };
  const onCellMouseEnter = (place: Place) => {
    if (dragging.current === "select") setActive(place);
    else if (dragging.current === "fill") setFillTo(place.row);
  };
  const startFillDrag = (event: MouseEvent) => {
    event.preventDefault();
    event.stopPropagation();
    dragging.current = "fill";
    setFillTo(selection.bottom);
    startEdgeScroll(event.clientY);
  };
  // A drag held past the grid's top or bottom edge scrolls it (faster the further out), and the
  // selection (or the fill) follows to the row at that edge: a block longer than the grid shows can
  // be dragged over. The pointer leaves the cells, so no cell's mouseenter says where it is.
  const pointerY = useRef(0);
  const edgeFrame = useRef(0);
  const edgeScroll = useRef<() => void>(() => {});
  edgeScroll.current = () => {
    const grid = gridRef.current;
    if (!dragging.current || !grid) {
      edgeFrame.current = 0;
      return;
    }
    edgeFrame.current = requestAnimationFrame(() => edgeScroll.current());
    const box = grid.getBoundingClientRect();
    const top = box.top + grid.clientTop + headHeight;
    const bottom = box.top + grid.clientTop + grid.clientHeight;
    const y = pointerY.current;
    const beyond = y < top ? y - top : y > bottom ? y - bottom : 0;
    if (beyond === 0) return;
    grid.scrollTop += Math.sign(beyond) * Math.min(Math.abs(beyond) / 2, ROW_HEIGHT);
    const atEdge = beyond < 0 ? top : bottom - 1;
    const row = Math.max(0, Math.min(rows.length - 1, Math.floor((grid.scrollTop + atEdge - box.top - grid.clientTop - headHeight) / ROW_HEIGHT)));
    if (dragging.current === "select") setActive((place) => (place.row === row ? place : { ...place, row }));
    else setFillTo(row);
  };
  const startEdgeScroll = (clientY: number) => {
    pointerY.current = clientY;
    if (!edgeFrame.current) edgeFrame.current = requestAnimationFrame(() => edgeScroll.current());
  };
  const fillTarget =
    fillTo === null
      ? null
      : fillTo > selection.bottom
        ? { top: selection.bottom + 1, bottom: fillTo }
        : fillTo < selection.top
          ? { top: fillTo, bottom: selection.top - 1 }
          : null;
  const release = useRef<() => void>(() => {});
  release.current = () => {
    if (dragging.current === "fill" && fillTarget) {
      write(planFill(rows, keys, selection, fillTarget, writable), "Fill", "filled");
      const top = Math.min(selection.top, fillTarget.top);
      const bottom = Math.max(selection.bottom, fillTarget.bottom);
      setAnchor({ row: top, col: selection.left });
      setActive({ row: bottom, col: selection.right });
    }
    dragging.current = null;
    setFillTo(null);
  };
  useEffect(() => {
    const onUp = () => release.current();
    const onMove = (event: globalThis.MouseEvent) => {
      pointerY.current = event.clientY;
    };
    window.addEventListener("mouseup", onUp);
    window.addEventListener("mousemove", onMove);
    return () => {
      window.removeEventListener("mouseup", onUp);
      window.removeEventListener("mousemove", onMove);
      cancelAnimationFrame(edgeFrame.current);
    };
  }, []);

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
  const storedCellsOf = draft.storedCellsOf as (row: GridRow<unknown>) => Record<string, string> | undefined;
  const unsavedCells = useMemo(() => pendingCells(draft.dirtyRows, keys, storedCellsOf).length, [draft.dirtyRows, keys, storedCellsOf]);
  const replaceable = columns.filter((column) => column.key !== keyField);
  const selected = cellsIn(selection);

  return (
    <>
      {!readOnly && (
        <div className="grid-tools">
          <button type="button" onClick={() => step("undo")} disabled={!draft.undoLabel} title={draft.undoLabel && `Undo ${draft.undoLabel} (Ctrl+Z)`}>
            Undo
          </button>
          <button type="button" onClick={() => step("redo")} disabled={!draft.redoLabel} title={draft.redoLabel && `Redo ${draft.redoLabel} (Ctrl+Shift+Z)`}>
            Redo
          </button>
          <button type="button" onClick={fillDown} disabled={selection.bottom === 0}>
            Fill down
          </button>
          <button type="button" aria-expanded={finding} aria-controls={finding ? `${idBase}-find` : undefined} onClick={() => setFinding(!finding)}>
            Find and replace
          </button>
          <button type="button" onClick={() => setReviewing(true)} disabled={unsavedCells === 0}>
            Review changes
          </button>
          <span className="muted">
            {plural(unsavedCells, "unsaved cell")}
            {draft.hiddenDirtyCount > 0 && ` (${plural(draft.hiddenDirtyCount, "edited row")} outside this view)`}
            {selected > 1 && ` · ${plural(selected, "cell")} selected`}
          </span>
          <span role="status" className="grid-said">
            {said && <span key={said.n}>{said.text}</span>}
          </span>
        </div>
      )}
      {finding && !readOnly && replaceable.length > 0 && (
        <div id={`${idBase}-find`}>
          <FindReplace
            id={`${idBase}-find`}
            rows={rows}
            columns={replaceable}
            initialKey={activeKey}
            writable={writable}
            labelOf={(row) => row.cells[keys[0]]}
            onApply={replace}
            onClose={() => {
              setFinding(false);
              gridRef.current?.focus();
            }}
          />
        </div>
      )}
      {reviewing && (
        <ReviewChanges
          rows={draft.dirtyRows}
          columns={columns}
          storedCellsOf={storedCellsOf}
          hiddenCount={draft.hiddenDirtyCount}
          onClose={() => setReviewing(false)}
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
        aria-activedescendant={!editing && activeRow ? `${cellIdPrefix}-${active.row}-${active.col}` : undefined}
        className={`grid${readOnly ? " readonly" : ""} ${className}`}
        style={tracks}
        onKeyDown={onKeyDown}
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
                    const isSelected = holds(selection, item.index, col);
                    const error = errors.get(column.key) ?? (col === 0 ? serverError : undefined);
                    const place = { row: item.index, col };
                    const edges = isSelected
                      ? [
                          item.index === selection.top && "sel-top",
                          item.index === selection.bottom && "sel-bottom",
                          col === selection.left && "sel-left",
                          col === selection.right && "sel-right",
                        ]
                      : [];
                    const classes = [
                      column.numeric && "num",
                      isActive && "active",
                      isSelected && "selected",
                      ...edges,
                      inFill && col >= selection.left && col <= selection.right && "fill-target",
                      error && "invalid",
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
                        {!readOnly && !editing && item.index === selection.bottom && col === selection.right && (
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
        {readOnly ? READ_ONLY_HELP : `${help} ${EDIT_HELP}`}
      </p>
      <div role="status" aria-live="polite" className="sr-only">
        {readOnly && said && <p key={said.n}>{said.text}</p>}
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
