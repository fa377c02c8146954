import ExcelJS from "exceljs";
import { XLSX_TYPE, type SheetCodec, type SheetTable } from "./sheet";
import { cellText, readSheetRows, type SheetRows, type SheetText, type WorkbookValue } from "./sheetImport";
import { EXCEL_WORDS } from "./words";

/**
 * The .xlsx files themselves, through exceljs. Only a dynamic import reaches this module (ExcelTools),
 * so it and the library are chunks of their own, loaded on the first Export or Import Excel: the
 * console's first load never carries them (test/node/console-budget.test.mjs holds it apart).
 */

export { importSheetRows } from "./sheetImport";

/** Excel's number format "Text": what is typed into such a cell stays text, so editing one never makes it a formula. */
const TEXT_FORMAT = "@";

/**
 * The table as an .xlsx of one sheet: the header row (bold, kept in view), then a row per row. Numbers
 * are number cells; every text is a text cell formatted as text, so a value starting with =, +, - or @
 * is never a formula, not even once its cell is edited in Excel.
 */
export async function writeWorkbook(table: SheetTable, sheetName: string): Promise<Blob> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet(sheetName, { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = table.columns.map(({ name, number }) => ({
    header: name,
    width: Math.min(40, Math.max(name.length + 2, number ? 10 : 16)),
    style: number ? {} : { numFmt: TEXT_FORMAT },
  }));
  sheet.getRow(1).font = { bold: true };
  for (const values of table.rows) {
    const row = sheet.addRow(values);
    // A text in a number column (a cell the grid would refuse) is text too.
    values.forEach((value, at) => {
      if (typeof value === "string" && table.columns[at].number) row.getCell(at + 1).numFmt = TEXT_FORMAT;
    });
  }
  // The fastest deflate: twice as quick as the default for a file about a fifth larger.
  return new Blob([await book.xlsx.writeBuffer({ zip: { compression: "DEFLATE", compressionOptions: { level: 1 } } })], { type: XLSX_TYPE });
}

/** The first sheet of an .xlsx, every cell as text (formulas as their own text, never evaluated); throws when it is not one. */
export async function readWorkbook(data: ArrayBuffer): Promise<SheetText> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(data as never);
  const rows: SheetText["rows"] = [];
  book.worksheets[0]?.eachRow((row, line) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      cells[column - 1] = cellText(cell.value as WorkbookValue, cell.formula);
    });
    rows.push({ line, cells: Array.from(cells, (text) => text ?? "") });
  });
  return { rows };
}

/** A file's rows by the grid's codec, or why it cannot be imported (a file that is not an .xlsx says so). */
export async function readSheet<Stored>(data: ArrayBuffer, codec: SheetCodec<Stored>): Promise<SheetRows> {
  let sheet: SheetText;
  try {
    sheet = await readWorkbook(data);
  } catch {
    return { problem: EXCEL_WORDS.notWorkbook() };
  }
  return readSheetRows(sheet, codec);
}
