import type { GridRow } from "./draft";

/** A column of the grid: which field its cells edit, and how it shows and tidies their values. */
export interface GridColumn {
  /** The field the column edits (its cells' key, and the API's field name). */
  key: string;
  label: string;
  /** The header on a phone's width, where the label does not fit (the label stays its accessible name). */
  short?: string;
  numeric?: boolean;
  /** A value as the column holds it once written (typed, pasted, filled, replaced): "180" → "180.00"; text it cannot read stays as typed. */
  normalize?: (text: string) => string;
  /** Its share of the room on a wide screen (CSS `fr`), 1 unless told. */
  grow?: number;
  /** Never cut on a wide screen either (as the first column): its widest value sets its width, past the usual cap (a read-only grid's names). */
  whole?: boolean;
  /** Shown, never edited, whatever the grid allows (figures the server keeps: what was ordered). */
  readOnly?: boolean;
  /** Edited on a stored row only (what belongs to an item the server holds: a line's pool waits until the line is saved). */
  storedOnly?: boolean;
  /**
   * What a cell shows while it is not edited ("2,000 · 1,640 left"), its value otherwise. The value
   * stays what is typed, copied, pasted and found; this is only read.
   */
  display?: (row: GridRow<unknown>) => string;
}

/** Whether the cell of `row` and `key` may be written. */
export type Editable = (row: GridRow<unknown> | undefined, key: string) => boolean;

/**
 * Which cells may be edited: none in a read-only grid, none of a read-only column, not a stored row's
 * key cells (`lockedWhenStored`: changing them would make it another item), and a `storedOnly`
 * column's on a stored row only.
 */
export function editableCells(
  columns: readonly GridColumn[],
  { readOnly, lockedWhenStored }: { readOnly: boolean; lockedWhenStored: readonly string[] },
): Editable {
  const fixed = new Set(columns.filter((column) => column.readOnly).map((column) => column.key));
  const storedOnly = new Set(columns.filter((column) => column.storedOnly).map((column) => column.key));
  return (row, key) => !readOnly && row !== undefined && !fixed.has(key) && (row.stored ? !lockedWhenStored.includes(key) : !storedOnly.has(key));
}
