import { defaultRangeExtractor, useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type CSSProperties } from "react";
import type { GridColumn } from "../models/columns";
import type { GridRow } from "../models/draft";
import type { Place } from "../models/selection";

/** The grid's geometry: the columns' tracks, the header's height, the virtualized rows, the active cell kept in view sideways. */

export const ROW_HEIGHT = 34;
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
    // What the cells show: their display where the column has one.
    const shown = rows.map((row) => column.display?.(row) ?? row.cells[column.key] ?? "");
    let longest = 0;
    for (const value of shown) longest = Math.max(longest, value.length);
    const candidates = new Set<string>();
    for (const value of shown) {
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

export function useGridLayout(columns: readonly GridColumn[], rows: readonly GridRow<unknown>[], active: Place, cellIdPrefix: string) {
  // The grid itself scrolls (under its sticky header row), so the element the keyboard focuses is the
  // one that scrolls, and the rows start below the header.
  const gridRef = useRef<HTMLDivElement>(null);
  const headRef = useRef<HTMLDivElement>(null);
  const [headHeight, setHeadHeight] = useState(ROW_HEIGHT);
  useLayoutEffect(() => {
    const height = headRef.current?.offsetHeight;
    if (height && height !== headHeight) setHeadHeight(height);
  });
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
  return { gridRef, headRef, headHeight, tracks, virtualizer };
}
