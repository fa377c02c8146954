import { plural } from "../format";

/**
 * Every sentence the Excel buttons say, in one place (a catalog can take them as they are). The
 * columns are the CSV's, named as the API spells them.
 */
export const EXCEL_WORDS = {
  exportButton: "Export Excel",
  importButton: "Import Excel",
  importHint: (columns: readonly string[]) => `An .xlsx whose first row names its columns (${columns.join(", ")}), as Export Excel writes it`,
  working: "Reading the file…",
  exported: (rows: number, file: string) => `Exported ${plural(rows, "row")} to ${file}.`,
  imported: (file: string, read: number, changed: number, added: number) =>
    `Imported ${file}: ${plural(read, "row")} read, ${changed === 0 ? "nothing changed" : `${plural(changed, "row")} changed${added ? ` (${added} new)` : ""}`}. Nothing is saved until you save.`,
  cellsToFix: (cells: number, rows: number, first: string) =>
    `${plural(cells, "cell")} in ${plural(rows, "row")} ${cells === 1 ? "needs" : "need"} fixing, marked in red; the first: ${first}.`,
  rowNamed: (label: string, line: number, messages: readonly string[]) => `${label || "a row without its key"} (file row ${line}): ${messages.join("; ")}`,
  notExported: (error: unknown) => `Not exported: ${error instanceof Error ? error.message : String(error)}.`,
  notImported: (file: string, why: string) => `Not imported: ${file} ${why}. The grid is as it was.`,
  notWorkbook: "is not an Excel workbook (.xlsx)",
  noHeader: "has no first row naming its columns",
  unknownColumns: (names: readonly string[], columns: readonly string[]) =>
    `names ${names.length === 1 ? "a column" : "columns"} the grid does not take (${names.join(", ")}); the columns are ${columns.join(", ")}`,
  missingColumns: (names: readonly string[]) => `lacks the column${names.length === 1 ? "" : "s"} ${names.join(", ")}`,
  repeatedColumns: (names: readonly string[]) => `names ${names.join(", ")} twice`,
  repeatedKeys: (key: string, lines: readonly number[], keyName: string) => `holds ${key} on rows ${lines.join(", ")}: each ${keyName} once`,
  tooManyRows: (max: number) => `holds more than ${max.toLocaleString("en")} rows`,
} as const;
