import { t } from "../i18n";
import type { SheetKeyName } from "./sheet";

/**
 * Every sentence the Excel buttons say, in one place, from the catalogs (console/messages/<language>/excel.json)
 * in the language chosen. The columns are the CSV's, named as the API spells them.
 */
export const EXCEL_WORDS = {
  exportButton: () => t("excel.export"),
  importButton: () => t("excel.import"),
  importHint: (columns: readonly string[]) => t("excel.importHint", { columns: columns.join(", ") }),
  /** The undo step an import is. */
  importStep: (file: string) => t("excel.importStep", { file }),
  working: () => t("excel.working"),
  exported: (rows: number, file: string) => t("excel.exported", { count: rows, file }),
  imported: (file: string, read: number, changed: number, added: number) => t("excel.imported", { file, read, changed, added }),
  cellsToFix: (cells: number, rows: number, first: string) => t("excel.cellsToFix", { cells, rows, first }),
  rowNamed: (label: string, line: number, messages: readonly string[]) =>
    t("excel.rowNamed", { label: label || t("excel.rowWithoutKey"), line, messages: messages.join("; ") }),
  notExported: (error: unknown) => t("excel.notExported", { reason: error instanceof Error ? error.message : String(error) }),
  notImported: (file: string, why: string) => t("excel.notImported", { file, why }),
  notWorkbook: () => t("excel.notWorkbook"),
  noHeader: () => t("excel.noHeader"),
  unknownColumns: (names: readonly string[], columns: readonly string[]) =>
    t("excel.unknownColumns", { count: names.length, names: names.join(", "), columns: columns.join(", ") }),
  unnamedColumn: (at: number) => t("excel.unnamedColumn", { at }),
  missingColumns: (names: readonly string[]) => t("excel.missingColumns", { count: names.length, names: names.join(", ") }),
  repeatedColumns: (names: readonly string[]) => t("excel.repeatedColumns", { names: names.join(", ") }),
  /** `keyName`: what the grid's rows are found by, "variant" or "scope" (the catalogs say it in their language). */
  repeatedKeys: (key: string, lines: readonly number[], keyName: SheetKeyName) => t("excel.repeatedKeys", { key, lines: lines.join(", "), keyName }),
  tooManyRows: (max: number) => t("excel.tooManyRows", { max }),
} as const;
