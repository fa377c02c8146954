import { describe, expect, it } from "vitest";
import { allocationOf, changesAllocation, linesIn, namesInText, type GridLine, type LineRow } from "../../console/src/operations/lineRows";

const { cellsOf, changesLine, errorsOf, inputOf, refusedRows } = linesIn("en");

const stored: GridLine = {
  variantExternalId: "JACKET-M",
  variantId: null,
  variantName: { en: "Jacket M" },
  minQuantity: 0,
  maxQuantity: 500,
  recommendedQuantity: null,
  quantityIncrement: 1,
  orderedQuantity: 30,
  poolQuantity: 2000,
  maxPerAccount: null,
  poolRemaining: 1970,
};
/** The stored line's row with `cells` typed over it. */
const edited = (cells: Record<string, string>, line: GridLine = stored): LineRow => ({
  id: line.variantExternalId,
  stored: line,
  cells: { ...cellsOf(line), ...cells },
});
const added = (cells: Record<string, string>): LineRow => ({
  id: "new-1",
  cells: { ...Object.fromEntries(Object.keys(cellsOf(stored)).map((key) => [key, ""])), ...cells },
});
const refusal = (problem: object) => ({ status: 409, problem: { code: "refused", title: "Refused", ...problem } }) as never;

describe("a row of the lines grid, by what it changes", () => {
  it("sends a changed pool or cap per account to …/allocations only, empty as null, the line's own fields to …/lines", () => {
    const pool = edited({ poolQuantity: "2500", maxPerAccount: "" });
    expect(changesAllocation(pool)).toBe(true);
    expect(changesLine(pool)).toBe(false);
    expect(allocationOf(pool)).toEqual({ variantExternalId: "JACKET-M", poolQuantity: 2500 });
    expect(allocationOf(edited({ poolQuantity: "", maxPerAccount: "12" }))).toEqual({ variantExternalId: "JACKET-M", poolQuantity: null, maxPerAccount: 12 });

    const bounds = edited({ maxQuantity: "400" });
    expect(changesLine(bounds)).toBe(true);
    expect(changesAllocation(bounds)).toBe(false);
    expect(inputOf(bounds)).toEqual({ variantExternalId: "JACKET-M", maxQuantity: 400 });
  });

  it("never sends a new line's pool (it waits until the line is saved)", () => {
    const row = added({ variantExternalId: "CAP", minQuantity: "0", maxQuantity: "60" });
    expect(changesAllocation(row)).toBe(false);
    expect(changesLine(row)).toBe(true);
  });
});

describe("a variant's name, in the grid's language", () => {
  const named: GridLine = { ...stored, variantName: { en: "Jacket M", fr: "Veste M" } };
  const row = (language: string, cells: Record<string, string>, line: GridLine = named): LineRow => ({
    id: line.variantExternalId,
    stored: line,
    cells: { ...linesIn(language).cellsOf(line), ...cells },
  });

  it("shows the name in that language, else in English, else the first there is", () => {
    expect(linesIn("fr").cellsOf(named).variantName).toBe("Veste M");
    expect(linesIn("de").cellsOf(named).variantName).toBe("Jacket M");
    expect(linesIn("it").cellsOf({ ...stored, variantName: { fr: "Veste M", es: "Chaqueta M" } }).variantName).toBe("Chaqueta M");
  });

  it("sends nothing for a name shown in another language and left alone", () => {
    const quantityOnly = row("de", { maxQuantity: "400" });
    expect(linesIn("de").changesLine(row("de", {}))).toBe(false);
    expect(linesIn("de").inputOf(quantityOnly)).toEqual({ variantExternalId: "JACKET-M", maxQuantity: 400 });
  });

  it("saves an edited name as that language's text and keeps the others", () => {
    const german = linesIn("de");
    expect(german.changesLine(row("de", { variantName: "Jacke M" }))).toBe(true);
    expect(german.inputOf(row("de", { variantName: " Jacke M " }))).toEqual({
      variantExternalId: "JACKET-M",
      variantName: { en: "Jacket M", fr: "Veste M", de: "Jacke M" },
    });
    // In French the French text is the one edited; English is untouched.
    expect(linesIn("fr").inputOf(row("fr", { variantName: "Veste courte M" })).variantName).toEqual({ en: "Jacket M", fr: "Veste courte M" });
  });

  it("names a new line in that language only", () => {
    const cells = {
      variantExternalId: "JACKE-S",
      variantName: "Jacke S",
      minQuantity: "0",
      maxQuantity: "10",
      recommendedQuantity: "",
      quantityIncrement: "1",
    };
    expect(linesIn("de").inputOf({ id: "new-1", cells }).variantName).toEqual({ de: "Jacke S" });
  });

  it("says which language the names are in", () => {
    expect(namesInText("de")).toBe("Variant names in German");
    expect(namesInText("en")).toBe("Variant names in English");
  });
});

describe("a row's errors before anything is sent", () => {
  it("refuses a pool below what is ordered, a cap per account below 1, and what is not a whole number, in the grid's words", () => {
    expect([...errorsOf(edited({ poolQuantity: "20" }))]).toEqual([["poolQuantity", "Pool 20 is below the 30 already ordered."]]);
    expect([...errorsOf(edited({ poolQuantity: "1.5", maxPerAccount: "0" }))]).toEqual([
      ["poolQuantity", "a whole number ≥ 0 (empty: no pool)"],
      ["maxPerAccount", "a whole number ≥ 1 (empty: no cap)"],
    ]);
    expect([...errorsOf(edited({ poolQuantity: "", maxPerAccount: "25" }))]).toEqual([]);
  });

  it("leaves a stored pool already below what is ordered alone while it is not edited", () => {
    expect([...errorsOf(edited({ maxPerAccount: "40" }, { ...stored, poolQuantity: 10 }))]).toEqual([]);
  });

  it("checks a line's bounds only where its own fields changed", () => {
    const inverted = { ...stored, minQuantity: 9, maxQuantity: 5 };
    expect([...errorsOf(edited({ poolQuantity: "100" }, inverted))]).toEqual([]);
    expect(errorsOf(edited({ minQuantity: "600" })).get("minQuantity")).toBe("Min 600 is greater than Max 500");
  });
});

describe("a refused save, on its rows", () => {
  const pool = edited({ poolQuantity: "40" });
  const bounds = edited({ maxQuantity: "400" }, { ...stored, variantExternalId: "JACKET-L" });
  const both = edited({ maxQuantity: "300", maxPerAccount: "0" }, { ...stored, variantExternalId: "JACKET-S" });
  const chunk = [pool, bounds, both];

  it("puts each line of a 409 below ordered, and each variant no longer a line, on its row by variant", () => {
    const problem = {
      lines: [{ variantExternalId: "JACKET-M", field: "poolQuantity", value: 40, ordered: 50 }],
      unknownVariantExternalIds: ["JACKET-S"],
    };
    expect(refusedRows(refusal(problem), chunk)).toEqual([
      [pool, "Pool 40 is below the 50 already ordered."],
      [both, "Not a line of this Operation any more (removed since the page loaded)."],
    ]);
  });

  it("reads errors[] by their index among the rows sent to the PUT that refused", () => {
    const lines = { errors: [{ index: 1, field: "body.1.maxQuantity", message: "maxQuantity 300 is below minQuantity 400" }] };
    expect(refusedRows(refusal(lines), chunk)).toEqual([[both, "Max 300 is below Min 400"]]);
    const allocations = { errors: [{ index: 0, field: "body.0.poolQuantity", message: "poolQuantity is too big" }] };
    expect(refusedRows(refusal(allocations), chunk)).toEqual([[pool, "Pool is too big"]]);
  });
});
