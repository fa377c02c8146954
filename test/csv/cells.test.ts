import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neutralizeCell, restoreCell } from "../../src/common/csv-cells";

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const tricky = fc.stringMatching(/^['=+\-@\t\r0-9a-z .]{0,8}$/);

describe("formula neutralizing of CSV cells", () => {
  it("never exports a cell a spreadsheet would run, other than a plain number", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), tricky), (value) => {
        const cell = neutralizeCell(value);
        expect(FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("imports back exactly what was exported, quotes of the value's own included", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), tricky), (value) => {
        expect(restoreCell(neutralizeCell(value))).toBe(value);
      }),
      { numRuns: 2000 },
    );
    expect(neutralizeCell("=1+1")).toBe("'=1+1");
    expect(neutralizeCell("-5")).toBe("-5");
    expect(neutralizeCell("'=x")).toBe("''=x");
    expect(neutralizeCell("it's")).toBe("it's");
  });
});
