import type { GridRow } from "../models/draft";

/** What a page may ask of its grid, through a ref to DataGrid (a save going to the row it refused). */
export interface DataGridHandle {
  /** Makes the cell of row `row` (its place in the grid) and column `key` the active one, scrolled into view (`focus`: the page too, and the grid focused). */
  moveTo: (row: number, key: string, options?: { focus?: boolean }) => void;
  /** Appends an empty row and starts editing its first cell. */
  addRow: () => void;
  /** Gives the grid the focus, its active cell where it was. */
  focus: () => void;
  /** The row of the active cell (undefined in a grid without rows). */
  activeRow: () => GridRow<unknown> | undefined;
}
