import type { Editable, GridColumn } from "./columns";
import type { DraftChange, GridRow } from "./draft";
import type { Place, Plan } from "./selection";

/**
 * What the grid's actions write into a change of its draft (one undo step each): a plan of cells, a
 * cell edited, a block pasted. Pure over the change: the grid commits it and says what it did.
 * Rows are keyed (a line by its variant): no action ever leaves two rows with one key.
 */

/** The rows and columns as the grid shows them, and what may be written. */
export interface EditContext<Stored> {
  rows: readonly GridRow<Stored>[];
  columns: readonly GridColumn[];
  keyField?: string;
  /** The row holding `key` (trimmed), shown or not. */
  rowOfKey: (key: string) => GridRow<Stored> | undefined;
  editable: Editable;
  /** Whether rows may be added (false: a paste's rows past the end, or of keys no row holds, are left out). */
  appendable?: boolean;
}

/** Writes a change may hold: the model's change, or the draft hook's (which adds commit). */
type Change<Stored> = Pick<DraftChange<Stored>, "set" | "append" | "remove" | "current">;

/** A value as its column holds it once written (`normalize`: "180" → "180.00"). */
const writtenValue = (columns: readonly GridColumn[], key: string, value: string) => columns.find((column) => column.key === key)?.normalize?.(value) ?? value;

const keyOf = <Stored>(context: EditContext<Stored>, row: GridRow<Stored>) =>
  context.keyField === undefined ? "" : (row.cells[context.keyField] ?? "").trim();

/** `given` cells (by key) written into `row`: all of them, or (`onlyFilled`) the non-empty ones; cells it may not change are left. */
export function fillRow<Stored>(context: EditContext<Stored>, change: Change<Stored>, row: GridRow<Stored>, given: Map<string, string>, onlyFilled: boolean) {
  const now = change.current(row);
  const cells = { ...now.cells };
  for (const [key, value] of given) if (context.editable(now, key) && (value !== "" || !onlyFilled)) cells[key] = writtenValue(context.columns, key, value);
  change.set(now, cells);
}

/** A plan (selection.ts) written by row place and column key. */
export function writePlan<Stored>(context: EditContext<Stored>, change: Change<Stored>, plan: Plan) {
  for (const { row, cells } of plan.writes) fillRow(context, change, context.rows[row], cells, false);
}

/**
 * The active cell's edit committed. Typing a key another row holds (a new row given a stored
 * variant) edits that row instead: it takes this row's filled cells and this one goes. Answers
 * that row's key and place once this one is gone, or null for a plain edit.
 */
export function editCell<Stored>(
  context: EditContext<Stored>,
  change: Change<Stored>,
  place: number,
  key: string,
  value: string,
): { key: string; row: number } | null {
  const row = context.rows[place];
  const cells = { ...row.cells, [key]: writtenValue(context.columns, key, value) };
  const typedKey = key === context.keyField ? value.trim() : "";
  const holder = typedKey ? context.rowOfKey(typedKey) : undefined;
  if (holder && holder.id !== row.id) {
    fillRow(context, change, holder, new Map(Object.entries(cells).map(([field, text]) => [field, text.trim()])), true);
    change.remove(row);
    const at = context.rows.findIndex((other) => other.id === holder.id);
    return { key: typedKey, row: at - (at > place ? 1 : 0) };
  }
  change.set(row, cells);
  return null;
}

/** What a paste did. */
export interface Pasted {
  added: number;
  /** Rows of the block whose key another row held: that row was edited (its filled cells). */
  found: number;
  /** The widest row of the block, in columns the grid has. */
  width: number;
  /** Rows of the block left out: they would have been new rows, and the grid takes none now. */
  left: number;
}

/**
 * A block of cells (a spreadsheet's rows) from `start` across rows and columns; rows past the end are
 * new rows. When the block holds the key column, each of its rows goes to the row of its key: a key
 * already in the grid edits that row (its filled cells only: an empty cell keeps the value), a new key
 * is a new row (it never overwrites a stored row of another key). A grid that takes no new row
 * leaves those rows out.
 */
export function pasteBlock<Stored>(context: EditContext<Stored>, change: Change<Stored>, block: readonly string[][], start: Place): Pasted {
  const { columns, rows } = context;
  const keyAt = context.keyField === undefined ? -1 : columns.findIndex((column) => column.key === context.keyField) - start.col;
  // Rows keyed by this paste, found before the draft indexes them.
  const pasted = new Map<string, GridRow<Stored>>();
  const rowOfKey = (key: string) => {
    const found = pasted.get(key) ?? context.rowOfKey(key);
    return found && keyOf(context, change.current(found)) === key ? found : undefined;
  };
  const outcome = { added: 0, found: 0, width: 0, left: 0 };
  for (const [i, values] of block.entries()) {
    const given = new Map(values.flatMap((value, j) => (start.col + j < columns.length ? [[columns[start.col + j].key, value.trim()] as const] : [])));
    outcome.width = Math.max(outcome.width, given.size);
    const key = keyAt >= 0 ? (values[keyAt] ?? "").trim() : "";
    const holder = key ? rowOfKey(key) : undefined;
    if (holder) {
      fillRow(context, change, holder, given, true);
      outcome.found++;
      continue;
    }
    let row: GridRow<Stored> | undefined = rows[start.row + i];
    if (key && row?.stored) row = undefined;
    if (!row && context.appendable === false) {
      outcome.left++;
      continue;
    }
    if (!row) {
      row = change.append();
      outcome.added++;
    }
    fillRow(context, change, row, given, false);
    if (key) pasted.set(key, row);
  }
  return outcome;
}
