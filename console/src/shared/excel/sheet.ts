import { restoreCell } from "@campaign-policy/common/csv-cells";
import { parseTable } from "../csv";
import type { Cells, GridRow } from "../grid/models/draft";

/**
 * A grid's rows as an Excel sheet, pure: the columns are the CSV's, numbers are numbers, a text is a
 * text cell (never a formula). What reads a sheet back (sheetImport.ts) and the workbook itself
 * (workbook.ts) load with the library, on first use; this part is in the console's first load.
 */

/** The media type of an .xlsx workbook. */
export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** A cell as written: a number, a text (always a text cell, whatever it starts with), or nothing. */
export type SheetValue = string | number | null;

/** A column of a sheet: its name in the header row (the CSV's column) and whether its values are numbers. */
export interface SheetColumn {
  name: string;
  number?: boolean;
}

/** What a sheet holds: its columns (the header row), then its rows in the columns' order. */
export interface SheetTable {
  columns: readonly SheetColumn[];
  rows: SheetValue[][];
}

/** What a sheet's rows are found by, as a sentence names it. */
export type SheetKeyName = "variant" | "scope";

/** How a grid's rows become a sheet's and back, by the CSV's columns. */
export interface SheetCodec<Stored> {
  /** The sheet's name in the workbook, in the language chosen when it is written. */
  sheet: () => string;
  columns: readonly SheetColumn[];
  /** The columns a file must have (those the CSV import requires). */
  required: readonly string[];
  /** What a row's key is called in a sentence: a line's variant, a rule's scope (the catalogs say it). */
  keyName: SheetKeyName;
  /** A grid row as the sheet's values, in the order of `columns`. */
  valuesOf: (row: GridRow<Stored>) => SheetValue[];
  /** A file's row (its texts by column name) as the grid cells it writes, only of the columns the file has. */
  cellsOf: (texts: ReadonlyMap<string, string>) => Map<string, string>;
  /** What a row is found by, and named by in a sentence (a line's variant, a rule's scope); "" for none: such a row is always a new one. */
  keyOf: (cells: Cells) => string;
}

const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** A number column's value: the number the text is, when it reads back as the same text; else the text, as a text cell. */
export function numberValue(text: string): SheetValue {
  if (text === "") return null;
  return PLAIN_NUMBER.test(text) && String(Number(text)) === text ? Number(text) : text;
}

/** A text column's value: the text itself (a text cell, never a formula), or nothing. */
export const textValue = (text: string): SheetValue => (text === "" ? null : text);

/** The grid's cells as a sheet row of `columns`: numbers by `numberValue`, texts as they are. */
export const valuesOfCells = (columns: readonly SheetColumn[], cells: Cells): SheetValue[] =>
  columns.map(({ name, number }) => (number ? numberValue : textValue)((cells[name] ?? "").trim()));

/** The codec of a grid whose columns are the CSV's, by the same names (a line's): each row found by its `keyField`. */
export function sameColumnsCodec(
  sheet: () => string,
  columns: readonly SheetColumn[],
  { required, keyField, keyName }: { required: readonly string[]; keyField: string; keyName: SheetKeyName },
): SheetCodec<unknown> {
  return {
    sheet,
    columns,
    required,
    keyName,
    valuesOf: (row) => valuesOfCells(columns, row.cells),
    cellsOf: (texts) => new Map(texts),
    keyOf: (cells) => (cells[keyField] ?? "").trim(),
  };
}

/**
 * A CSV the API exported, as a sheet of the same columns: the `numbers` among them as numbers, and
 * every text as it is stored (the export's neutralizing quote taken off: a text cell needs none).
 */
export function tableOfCsv(text: string, numbers: readonly string[]): SheetTable {
  const [header = [], ...rows] = parseTable(text);
  const columns = header.map((name) => ({ name, number: numbers.includes(name) }));
  return { columns, rows: rows.map((cells) => columns.map(({ number }, at) => (number ? numberValue : textValue)(restoreCell(cells[at] ?? "")))) };
}
