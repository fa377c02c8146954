import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import openapi from "../../client/openapi.json";
import { LINES_SHEET } from "../../console/src/operations/linesSheet";
import { minorToGridText, rulesSheet } from "../../console/src/rules/rulesSheet";
import { numberValue, tableOfCsv, valuesOfCells, type SheetTable } from "../../console/src/shared/excel/sheet";
import { cellText, importSheetRows, readSheetRows, type SheetText } from "../../console/src/shared/excel/sheetImport";
import { readWorkbook, writeWorkbook } from "../../console/src/shared/excel/workbook";
import { editableCells, type GridColumn } from "../../console/src/shared/grid/models/columns";
import { beginChange, draftView, emptyDraft, reduceDraft, type DraftConfig, type GridRow } from "../../console/src/shared/grid/models/draft";
import { moneyInputText } from "../../console/src/labels/money";
import type { QuotaRule } from "../../console/src/api/rules";

/** The header of a list's CSV export, as the OpenAPI document shows it. */
const csvHeader = (path: string) => {
  const content = (openapi as unknown as { paths: Record<string, { get: { responses: { 200: { content: { "text/csv": { example: string } } } } } }> }).paths[
    path
  ].get.responses[200].content["text/csv"].example;
  return content.split(/\r?\n/)[0].split(",");
};

/** A sheet's values read back as a workbook reads them: each value as text, under the header row. */
const asRead = (table: SheetTable): SheetText => ({
  rows: [table.columns.map((column) => column.name), ...table.rows.map((values) => values.map((value) => cellText(value)))].map((cells, i) => ({
    line: i + 1,
    cells,
  })),
});

interface Line {
  variantExternalId: string;
  variantName: string;
  minQuantity: number;
  maxQuantity: number;
  recommendedQuantity: number | null;
  quantityIncrement: number;
  orderedQuantity: number;
}
const lineColumns: GridColumn[] = [
  { key: "variantExternalId", label: "Variant" },
  { key: "variantName", label: "Name" },
  { key: "minQuantity", label: "Min", numeric: true },
  { key: "maxQuantity", label: "Max", numeric: true },
  { key: "recommendedQuantity", label: "Rec", numeric: true },
  { key: "quantityIncrement", label: "Pack", numeric: true },
  { key: "orderedQuantity", label: "Ordered", numeric: true, readOnly: true },
];
const lineConfig: DraftConfig<Line> = {
  idOf: (line) => line.variantExternalId,
  cellsOf: (line) => Object.fromEntries(lineColumns.map(({ key }) => [key, String(line[key as keyof Line] ?? "")])) as Record<string, string>,
  fields: lineColumns.map((column) => column.key),
  keyField: "variantExternalId",
};
const storedLines: Line[] = [
  {
    variantExternalId: "A-1",
    variantName: '=HYPERLINK("http://x")',
    minQuantity: 0,
    maxQuantity: 12,
    recommendedQuantity: 6,
    quantityIncrement: 1,
    orderedQuantity: 40,
  },
  { variantExternalId: "A-2", variantName: "+1 pack", minQuantity: 2, maxQuantity: 4, recommendedQuantity: null, quantityIncrement: 2, orderedQuantity: 0 },
  { variantExternalId: "007", variantName: "-2+3", minQuantity: 1, maxQuantity: 9, recommendedQuantity: 3, quantityIncrement: 1, orderedQuantity: 0 },
];

/** Imports `sheet` into a draft over the stored lines: what it did, and the rows after it. */
function importLines(sheet: SheetText) {
  const read = readSheetRows(sheet, LINES_SHEET);
  if ("problem" in read) throw new Error(read.problem);
  let ids = 0;
  const state = emptyDraft<Line>();
  const view = draftView(lineConfig, state, storedLines);
  const change = beginChange(lineConfig, state, () => `new-${++ids}`);
  const editable = editableCells(lineColumns, { readOnly: false, lockedWhenStored: [] });
  const outcome = importSheetRows({ rows: view.rows, columns: lineColumns, editable }, change, read.rows, LINES_SHEET);
  const after = reduceDraft(lineConfig, state, change.action("Import"));
  return { outcome, after, rows: draftView(lineConfig, after, storedLines).rows };
}
const exportLines = (rows: GridRow<Line>[]): SheetTable => ({ columns: LINES_SHEET.columns, rows: rows.map(LINES_SHEET.valuesOf) });
const storedRows = () => draftView(lineConfig, emptyDraft<Line>(), storedLines).rows;

describe("a grid's rows as a sheet", () => {
  it("has the CSV export's columns, in its order", () => {
    expect(LINES_SHEET.columns.map((column) => column.name)).toEqual(csvHeader("/v1/operations/{operationId}/lines"));
    expect(rulesSheet("EUR").columns.map((column) => column.name)).toEqual(csvHeader("/v1/buying-policies/quotas/rules"));
    expect(csvHeader("/v1/operations/{operationId}/orders")).toEqual(expect.arrayContaining(["amount", "lineCount"]));
  });

  it("writes numbers as numbers, only where the text reads back the same, and every text as text, formulas' starts included", () => {
    expect([numberValue("12"), numberValue("0"), numberValue("-5"), numberValue("2.5")]).toEqual([12, 0, -5, 2.5]);
    expect([numberValue("007"), numberValue("1.50"), numberValue("1e3"), numberValue("12 "), numberValue("=1+1"), numberValue("")]).toEqual([
      "007",
      "1.50",
      "1e3",
      "12 ",
      "=1+1",
      null,
    ]);
    expect(exportLines(storedRows()).rows).toEqual([
      ["A-1", '=HYPERLINK("http://x")', 0, 12, 6, 1],
      ["A-2", "+1 pack", 2, 4, null, 2],
      ["007", "-2+3", 1, 9, 3, 1],
    ]);
    expect(valuesOfCells([{ name: "n", number: true }, { name: "t" }], { n: "@SUM(A1)", t: "42" })).toEqual(["@SUM(A1)", "42"]);
  });

  it("reads a cell as text: a formula as its own text (never its result), numbers, dates, rich text, links and errors", () => {
    expect(cellText({ formula: "A1+1", result: 2 }, "A1+1")).toBe("=A1+1");
    expect(cellText({ sharedFormula: "B2", result: 7 }, "B3*2")).toBe("=B3*2");
    expect(cellText({ sharedFormula: "B2", result: 7 })).toBe("=");
    expect(cellText(12)).toBe("12");
    expect(cellText(0.5)).toBe("0.5");
    expect(cellText(new Date("2026-03-01T00:00:00Z"))).toBe("2026-03-01");
    expect(cellText(new Date("2026-03-01T07:30:00Z"))).toBe("2026-03-01T07:30:00Z");
    expect(cellText({ richText: [{ text: "Linen " }, { text: "shirt" }] })).toBe("Linen shirt");
    expect(cellText({ text: "SKU-1", hyperlink: "http://example.test" })).toBe("SKU-1");
    expect(cellText({ error: "#N/A" })).toBe("#N/A");
    expect([cellText(true), cellText(null), cellText(undefined)]).toEqual(["TRUE", "", ""]);
  });

  it("imports an export unchanged as no change at all", () => {
    const { outcome, after } = importLines(asRead(exportLines(storedRows())));
    expect(outcome).toMatchObject({ read: 3, changed: 0, added: 0, written: [] });
    expect(after.pending.size).toBe(0);
    expect(after.undo).toEqual([]);
  });

  it("edits each row of the file's key with its filled cells, adds the others, and never writes a column the CSV lacks", () => {
    const { outcome, rows } = importLines({
      rows: [
        { line: 1, cells: ["maxQuantity", "variantExternalId", "recommendedQuantity"] },
        { line: 2, cells: ["20", " A-2 ", ""] },
        { line: 4, cells: ["", "", ""] },
        { line: 5, cells: ["abc", "NEW-1", "=A1*2"] },
      ],
    });
    expect(outcome).toMatchObject({ read: 2, changed: 2, added: 1 });
    expect(outcome.written.map(({ line }) => line)).toEqual([2, 5]);
    expect(rows.map((row) => [row.cells.variantExternalId, row.cells.maxQuantity, row.cells.recommendedQuantity, row.cells.orderedQuantity])).toEqual([
      ["A-1", "12", "6", "40"],
      ["A-2", "20", "", "0"],
      ["007", "9", "3", "0"],
      ["NEW-1", "abc", "=A1*2", ""],
    ]);
  });

  it("refuses a file whose header is not the CSV's, or that holds a key twice, whole", () => {
    const refusal = (rows: string[][]) => readSheetRows({ rows: rows.map((cells, i) => ({ line: i + 1, cells })) }, LINES_SHEET);
    expect(refusal([])).toEqual({ problem: "has no first row naming its columns" });
    expect(refusal([["variantExternalId", "Ordered"]])).toEqual({
      problem:
        "names a column the grid does not take (Ordered); the columns are variantExternalId, variantName, minQuantity, maxQuantity, recommendedQuantity, quantityIncrement",
    });
    expect(refusal([["minQuantity"], ["1"]])).toEqual({ problem: "lacks the column variantExternalId" });
    expect(refusal([["variantExternalId", "minQuantity", "minQuantity"]])).toEqual({ problem: "names minQuantity twice" });
    expect(refusal([["variantExternalId"], ["A-1"], ["B"], ["A-1 "]])).toEqual({ problem: "holds A-1 on rows 2, 4: each variant once" });
    // A column without a name and without a value (a spreadsheet's stray formatting) is no column.
    expect(
      refusal([
        ["variantExternalId", ""],
        ["A-1", ""],
      ]),
    ).toMatchObject({ rows: [{ line: 2 }] });
    expect(
      refusal([
        ["variantExternalId", ""],
        ["A-1", "x"],
      ]),
    ).toMatchObject({ problem: expect.stringContaining("column 2 (no name)") });
  });

  it("turns the API's CSV into a sheet of the same columns, texts as stored and numbers as numbers", () => {
    const table = tableOfCsv('id,amount,lineCount,cancelReason\r\nO-1,18000,3,\'=cmd|x\r\nO-2,500,1,"a, b"\r\n', ["amount", "lineCount"]);
    expect(table.columns).toEqual([
      { name: "id", number: false },
      { name: "amount", number: true },
      { name: "lineCount", number: true },
      { name: "cancelReason", number: false },
    ]);
    expect(table.rows).toEqual([
      ["O-1", 18000, 3, "=cmd|x"],
      ["O-2", 500, 1, "a, b"],
    ]);
  });
});

describe("the rules grid as a sheet", () => {
  const rule = (id: string, accountId: string | null, supplierId: string | null, minimum: number): QuotaRule =>
    ({ id, accountId, supplierId, storeId: null, minimum, enforcement: "BLOCK" }) as QuotaRule;
  const rowOf = (stored: QuotaRule, currency: string): GridRow<QuotaRule> => ({
    id: stored.id,
    stored,
    cells: {
      accountId: stored.accountId ?? "",
      supplierId: stored.supplierId ?? "",
      storeId: "",
      minimum: moneyInputText(stored.minimum, currency),
      enforcement: stored.enforcement,
    },
  });

  it("moves the minimum's digits between minor units and the grid's currency, exactly", () => {
    for (const minor of [0, 5, 99, 18000, 123456789, Number.MAX_SAFE_INTEGER]) {
      expect(minorToGridText(String(minor), "EUR")).toBe(moneyInputText(minor, "EUR"));
      expect(minorToGridText(String(minor), "JPY")).toBe(moneyInputText(minor, "JPY"));
    }
    expect([minorToGridText("12.5", "EUR"), minorToGridText("007", "EUR"), minorToGridText("-5", "EUR"), minorToGridText("abc", "EUR")]).toEqual([
      "0.125",
      "0.07",
      "-5",
      "abc",
    ]);
    expect(minorToGridText("12.5", null)).toBe("12.5");
  });

  it("writes the minimum in minor units as a number, and reads a row back to the rule of its scope, its id aside", () => {
    const codec = rulesSheet("EUR");
    const row = rowOf(rule("r-1", "A-1", null, 18000), "EUR");
    expect(codec.valuesOf(row)).toEqual(["r-1", "A-1", null, null, 18000, "BLOCK"]);
    expect(codec.valuesOf({ ...row, cells: { ...row.cells, minimum: "1,5" } })).toEqual(["r-1", "A-1", null, null, 150, "BLOCK"]);
    expect(codec.valuesOf({ ...row, cells: { ...row.cells, minimum: "=1+1" } })[4]).toBe("=1+1");
    const read = readSheetRows(asRead({ columns: codec.columns, rows: [codec.valuesOf(row)] }), codec);
    if ("problem" in read) throw new Error(read.problem);
    const [{ cells, key }] = read.rows;
    expect(Object.fromEntries(cells)).toEqual({ accountId: "A-1", supplierId: "", storeId: "", minimum: "180.00", enforcement: "BLOCK" });
    expect(key).toBe(codec.keyOf(row.cells));
    expect(key).toBe("A-1 / (any) / (any)");
    expect(codec.keyOf({ accountId: "", supplierId: "", storeId: "S-1" })).toBe("");
  });
});

describe("an .xlsx written and read back (exceljs)", () => {
  it("round-trips every value, numbers as number cells and texts as text cells formatted as text", async () => {
    const table = exportLines(storedRows());
    const blob = await writeWorkbook(table, "Lines");
    expect(blob.type).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    const bytes = await blob.arrayBuffer();
    expect(await readWorkbook(bytes)).toEqual(asRead(table));

    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes);
    const sheet = book.worksheets[0];
    const name = sheet.getCell("B2");
    expect([name.type, name.formula, name.value, name.numFmt]).toEqual([ExcelJS.ValueType.String, undefined, '=HYPERLINK("http://x")', "@"]);
    expect([sheet.getCell("C2").type, sheet.getCell("C2").value]).toEqual([ExcelJS.ValueType.Number, 0]);
    expect(sheet.getCell("A4").value).toBe("007");
  });

  it("reads a formula cell as its own text, whatever result the file kept", async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet("Lines");
    sheet.addRow(["variantExternalId", "maxQuantity"]);
    sheet.addRow(["A-1", { formula: "2*6", result: 12 }]);
    sheet.addRow(["A-2", { formula: "B2+1", result: 13 }]);
    sheet.getCell("B4").value = { sharedFormula: "B3", result: 14 } as ExcelJS.CellSharedFormulaValue;
    sheet.getCell("A4").value = "A-3";
    sheet.getCell("B3").value = { formula: "B2+1", result: 13, shareType: "shared", ref: "B3:B4" } as ExcelJS.CellFormulaValue;
    const read = await readWorkbook(await book.xlsx.writeBuffer());
    expect(read.rows.map((row) => row.cells)).toEqual([
      ["variantExternalId", "maxQuantity"],
      ["A-1", "=2*6"],
      ["A-2", "=B2+1"],
      ["A-3", "=B3+1"],
    ]);
  });

  it("refuses what is not a workbook", async () => {
    await expect(readWorkbook(new TextEncoder().encode("variantExternalId\nA-1\n").buffer)).rejects.toThrow();
  });
});
