import type { Editable, GridColumn } from "../grid/models/columns";
import type { DraftChange, GridRow } from "../grid/models/draft";
import { fillRow } from "../grid/models/edits";
import type { SheetCodec } from "./sheet";
import { EXCEL_WORDS } from "./words";

/**
 * A sheet read back, pure: its cells as text (formulas as their own text, never evaluated), its rows by
 * the header's column names, then written into the grid's draft as one undoable change, each row to
 * the row of its key, where the grid's own checks mark what is wrong cell by cell before Save's dry
 * run. Loaded with the library (workbook.ts), outside the console's first load.
 */

/** A sheet as read: every cell as text (a formula as its own text), each row with its number in the file. */
export interface SheetText {
  rows: { line: number; cells: string[] }[];
}

/** The most rows a file may hold: more would hold the page for long, and no grid saves that many at once. */
export const MAX_SHEET_ROWS = 50_000;

/** What a cell of a workbook holds, as the library reads it. */
export type WorkbookValue =
  | null
  | undefined
  | string
  | number
  | boolean
  | Date
  | { richText: { text: string }[] }
  | { text: unknown; hyperlink: string }
  | { error: string }
  | { formula?: string; sharedFormula?: string; result?: unknown };

/** ISO 8601 for a date, its day alone at midnight UTC (a spreadsheet's date without a time). */
const dateText = (date: Date) =>
  date
    .toISOString()
    .replace(/T00:00:00\.000Z$/, "")
    .replace(/\.000Z$/, "Z");

/**
 * A cell as text, as a CSV would hold it: a number in its shortest form, a date in ISO 8601, rich text
 * joined, a link by its text, an error by its code, and a formula (`formula`, as the library gives it,
 * shared ones translated) as its own text ("=A1+1"), never evaluated: its last result is not read.
 */
export function cellText(value: WorkbookValue, formula?: string): string {
  if (formula) return `=${formula}`;
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "" : dateText(value);
  if ("richText" in value) return value.richText.map((run) => run.text).join("");
  if ("hyperlink" in value) return cellText(value.text as WorkbookValue);
  if ("error" in value) return value.error;
  // A formula the library could not name (its master cell gone): its text is lost, and its result is never taken.
  if ("formula" in value || "sharedFormula" in value) return `=${value.formula ?? ""}`;
  return "";
}

/** A file's row as the grid cells it writes (by the codec), with its key and its row in the file. */
export interface SheetRow {
  line: number;
  cells: Map<string, string>;
  key: string;
}

/** A file's rows, or why it cannot be imported (a sentence's end: "lacks the column minimum"). */
export type SheetRows = { rows: SheetRow[] } | { problem: string };

/**
 * A sheet's first row names its columns (in any order, as the CSV's header does); the rows under it
 * are read by those names, blank rows skipped. Refused whole, as the CSV import refuses: an unknown,
 * repeated or missing required column, two rows of one key, more than MAX_SHEET_ROWS rows.
 */
export function readSheetRows<Stored>(sheet: SheetText, codec: SheetCodec<Stored>): SheetRows {
  const [head, ...body] = sheet.rows.filter((row) => row.cells.some((cell) => cell.trim() !== ""));
  if (!head) return { problem: EXCEL_WORDS.noHeader() };
  const known = codec.columns.map((column) => column.name);
  const names = head.cells.map((cell) => cell.trim());
  // A column without a name is left out when it is empty all the way down (a spreadsheet's stray formatting).
  const used = names.flatMap((name, at) => (name !== "" || body.some((row) => (row.cells[at] ?? "").trim() !== "") ? [{ name, at }] : []));
  const unknown = used.filter(({ name }) => !known.includes(name)).map(({ name, at }) => name || EXCEL_WORDS.unnamedColumn(at + 1));
  if (unknown.length) return { problem: EXCEL_WORDS.unknownColumns(unknown, known) };
  const repeated = [...new Set(used.filter(({ name }, i) => used.findIndex((other) => other.name === name) !== i).map(({ name }) => name))];
  if (repeated.length) return { problem: EXCEL_WORDS.repeatedColumns(repeated) };
  const missing = codec.required.filter((name) => !names.includes(name));
  if (missing.length) return { problem: EXCEL_WORDS.missingColumns(missing) };
  if (body.length > MAX_SHEET_ROWS) return { problem: EXCEL_WORDS.tooManyRows(MAX_SHEET_ROWS) };
  const rows = body.map(({ line, cells: texts }): SheetRow => {
    const cells = codec.cellsOf(new Map(used.map(({ name, at }) => [name, (texts[at] ?? "").trim()])));
    return { line, cells, key: codec.keyOf(Object.fromEntries(cells)) };
  });
  const linesOfKey = new Map<string, number[]>();
  for (const { line, key } of rows) if (key) linesOfKey.set(key, [...(linesOfKey.get(key) ?? []), line]);
  const twice = [...linesOfKey].find(([, lines]) => lines.length > 1);
  if (twice) return { problem: EXCEL_WORDS.repeatedKeys(twice[0], twice[1], codec.keyName) };
  return { rows };
}

/** Where a sheet's rows go: the grid's rows (the hidden edited ones too), and what may be written. */
export interface ImportTarget<Stored> {
  rows: readonly GridRow<Stored>[];
  columns: readonly GridColumn[];
  editable: Editable;
}

/** What an import wrote: each written row as the change left it, with its row in the file. */
export interface Imported<Stored> {
  read: number;
  changed: number;
  added: number;
  written: { line: number; row: GridRow<Stored> }[];
}

type Change<Stored> = Pick<DraftChange<Stored>, "set" | "append" | "remove" | "current">;

/**
 * A file's rows written into a change of the draft: a row whose key the grid holds edits that row with
 * the file's filled cells (an empty cell keeps the value, as in a CSV); any other is a new row. A row
 * already as the file says is left alone, so an export imported unchanged changes nothing.
 */
export function importSheetRows<Stored>(
  target: ImportTarget<Stored>,
  change: Change<Stored>,
  rows: readonly SheetRow[],
  codec: SheetCodec<Stored>,
): Imported<Stored> {
  const byKey = new Map<string, GridRow<Stored>>();
  for (const row of target.rows) {
    const key = codec.keyOf(row.cells);
    if (key) byKey.set(key, row);
  }
  const context = { ...target, rowOfKey: (key: string) => byKey.get(key) };
  const outcome: Imported<Stored> = { read: rows.length, changed: 0, added: 0, written: [] };
  for (const { line, cells: given, key } of rows) {
    const holder = key ? byKey.get(key) : undefined;
    if (holder) {
      const before = change.current(holder).cells;
      fillRow(context, change, holder, given, true);
      const after = change.current(holder);
      if (Object.keys(after.cells).some((key) => after.cells[key] !== before[key])) {
        outcome.changed++;
        outcome.written.push({ line, row: after });
      }
    } else {
      const row = change.append();
      fillRow(context, change, row, given, false);
      outcome.changed++;
      outcome.added++;
      outcome.written.push({ line, row: change.current(row) });
    }
  }
  return outcome;
}
