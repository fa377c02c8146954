import type { Cells, GridRow } from "./draft";

/**
 * The spreadsheet operations of the grid as pure functions over the rows shown: a block of selected
 * cells, its text for the clipboard (tab-separated, as spreadsheets copy), and what a fill, a clear or
 * a find-and-replace would write where. They only plan: DataGrid writes the plan into the draft as one
 * undo step, by row id and column key.
 */

/** A cell by its place in the view (row as shown, column as shown). */
export interface Place {
  row: number;
  col: number;
}

/** A rectangle of cells, bounds included. */
export interface Block {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

export const blockOf = (a: Place, b: Place): Block => ({
  top: Math.min(a.row, b.row),
  bottom: Math.max(a.row, b.row),
  left: Math.min(a.col, b.col),
  right: Math.max(a.col, b.col),
});

export const cellsIn = (block: Block) => (block.bottom - block.top + 1) * (block.right - block.left + 1);

export const holds = (block: Block, row: number, col: number) => row >= block.top && row <= block.bottom && col >= block.left && col <= block.right;

/** The block as text a spreadsheet pastes: a tab between cells, a line per row (tabs and line breaks inside a cell become spaces). */
export function blockText(rows: readonly GridRow<unknown>[], keys: readonly string[], block: Block): string {
  const lines: string[] = [];
  for (let r = block.top; r <= block.bottom; r++) {
    const cells = rows[r]?.cells ?? {};
    lines.push(
      keys
        .slice(block.left, block.right + 1)
        .map((key) => (cells[key] ?? "").replace(/[\t\r\n]+/g, " "))
        .join("\t"),
    );
  }
  return lines.join("\n");
}

/** Clipboard text as rows of cells (a trailing line break, as spreadsheets add, is no extra row). */
export const parseBlock = (text: string): string[][] =>
  text
    .replace(/\r\n?/g, "\n")
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.split("\t"));

/** Writes for one row: its new cells by key (only those that change). */
export interface RowWrite {
  row: number;
  cells: Map<string, string>;
}

/** A plan of writes and how many cells it changes. */
export interface Plan {
  writes: RowWrite[];
  cells: number;
}

/** Whether the cell of `row` and `key` may be written (not read-only, not a stored row's key). */
export type Writable = (row: GridRow<unknown>, key: string) => boolean;

function planOf(
  rows: readonly GridRow<unknown>[],
  targets: Iterable<number>,
  valueAt: (row: number, key: string) => string,
  keys: readonly string[],
  writable: Writable,
): Plan {
  const writes: RowWrite[] = [];
  let cells = 0;
  for (const r of targets) {
    const row = rows[r];
    if (!row) continue;
    const changed = new Map<string, string>();
    for (const key of keys) {
      const value = valueAt(r, key);
      if (writable(row, key) && (row.cells[key] ?? "") !== value) changed.set(key, value);
    }
    if (changed.size) {
      writes.push({ row: r, cells: changed });
      cells += changed.size;
    }
  }
  return { writes, cells };
}

function* span(from: number, to: number) {
  for (let r = from; r <= to; r++) yield r;
}

/**
 * Fills rows `target` (top to bottom, inclusive) of the block's columns with the rows of `source`
 * repeated in order, as a fill handle dragged over them does (downwards: from the source's first row;
 * upwards: so that the pattern ends on the source's first row).
 */
export function planFill(
  rows: readonly GridRow<unknown>[],
  keys: readonly string[],
  source: Block,
  target: { top: number; bottom: number },
  writable: Writable,
): Plan {
  const height = source.bottom - source.top + 1;
  const columns = keys.slice(source.left, source.right + 1);
  const from = (r: number) => {
    const offset = r > source.bottom ? r - source.bottom - 1 : height - 1 - ((source.top - 1 - r) % height);
    return rows[source.top + (offset % height)];
  };
  return planOf(rows, span(target.top, target.bottom), (r, key) => from(r)?.cells[key] ?? "", columns, writable);
}

/** Ctrl+D: the block's first row copied into the rows under it; a block of one row takes the row above it. */
export function planFillDown(rows: readonly GridRow<unknown>[], keys: readonly string[], block: Block, writable: Writable): Plan {
  const source = block.top === block.bottom ? block.top - 1 : block.top;
  if (source < 0) return { writes: [], cells: 0 };
  return planFill(rows, keys, { ...block, top: source, bottom: source }, { top: source + 1, bottom: block.bottom }, writable);
}

/** Every cell of the block set to `value` (empty: a clear). */
export function planSet(rows: readonly GridRow<unknown>[], keys: readonly string[], block: Block, value: string, writable: Writable): Plan {
  return planOf(rows, span(block.top, block.bottom), () => value, keys.slice(block.left, block.right + 1), writable);
}

export interface FindOptions {
  find: string;
  replace: string;
  matchCase: boolean;
  /** The whole cell must equal `find` (an empty `find` then finds the empty cells). */
  wholeCell: boolean;
}

/** One cell a replace changes: its row's place and id, before and after. */
export interface Replacement {
  row: number;
  id: string;
  from: string;
  to: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The cells of column `key` (the rows shown) that replacing would change, in the grid's order (`to` as the column holds it: `normalize`). */
export function planReplace(
  rows: readonly GridRow<unknown>[],
  key: string,
  options: FindOptions,
  writable: Writable,
  normalize: (text: string) => string = (text) => text,
): Replacement[] {
  const { find, replace, matchCase, wholeCell } = options;
  if (!find && !wholeCell) return [];
  const pattern = new RegExp(wholeCell ? `^${escapeRegExp(find)}$` : escapeRegExp(find), matchCase ? "g" : "gi");
  const found: Replacement[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const from = row.cells[key] ?? "";
    pattern.lastIndex = 0;
    if (!pattern.test(from)) continue;
    // A function replacer: `$&` or `$1` typed in the replacement are text, not patterns.
    const to = normalize(from.replace(pattern, () => replace));
    if (to !== from && writable(row, key)) found.push({ row: r, id: row.id, from, to });
  }
  return found;
}

/** One pending change of one cell, for "Review changes": the row's label, the column, before and after. */
export interface PendingCell {
  id: string;
  label: string;
  key: string;
  from: string;
  to: string;
  added: boolean;
}

/** The cells where `rows` differ from what is stored (a new row: its filled cells). */
export function pendingCells(
  rows: readonly GridRow<unknown>[],
  keys: readonly string[],
  storedCellsOf: (row: GridRow<unknown>) => Cells | undefined,
): PendingCell[] {
  const changes: PendingCell[] = [];
  for (const row of rows) {
    const stored = storedCellsOf(row);
    const label = row.cells[keys[0]]?.trim() || stored?.[keys[0]] || "";
    for (const key of keys) {
      const to = row.cells[key] ?? "";
      const from = stored ? (stored[key] ?? "") : "";
      if (to !== from) changes.push({ id: row.id, label, key, from, to, added: !stored });
    }
  }
  return changes;
}
