import { describe, expect, it } from "vitest";
import type { GridRow } from "../../console/src/shared/grid/models/draft";
import {
  blockOf,
  blockText,
  cellsIn,
  holds,
  parseBlock,
  pendingCells,
  planFill,
  planFillDown,
  planReplace,
  planSet,
  type Writable,
} from "../../console/src/shared/grid/models/selection";

const keys = ["code", "name", "min"];
const rows: GridRow<unknown>[] = [
  { id: "1", stored: {}, cells: { code: "A", name: "Apple", min: "1" } },
  { id: "2", stored: {}, cells: { code: "B", name: "Banana", min: "2" } },
  { id: "3", stored: {}, cells: { code: "C", name: "cherry apple", min: "3" } },
  { id: "4", stored: {}, cells: { code: "D", name: "", min: "4" } },
];
const any: Writable = () => true;
const notCode: Writable = (_row, key) => key !== "code";
const written = (plan: ReturnType<typeof planSet>) => plan.writes.map(({ row, cells }) => [row, Object.fromEntries(cells)]);

describe("the grid's selection and its plans", () => {
  it("makes a block of two corners in any order, and counts and holds its cells", () => {
    const block = blockOf({ row: 3, col: 0 }, { row: 1, col: 2 });
    expect(block).toEqual({ top: 1, bottom: 3, left: 0, right: 2 });
    expect(cellsIn(block)).toBe(9);
    expect(holds(block, 2, 1)).toBe(true);
    expect(holds(block, 0, 1)).toBe(false);
  });

  it("copies a block as a spreadsheet pastes it, and reads it back", () => {
    const text = blockText(rows, keys, { top: 0, bottom: 1, left: 1, right: 2 });
    expect(text).toBe("Apple\t1\nBanana\t2");
    expect(parseBlock(`${text}\r\n`)).toEqual([
      ["Apple", "1"],
      ["Banana", "2"],
    ]);
    expect(blockText([{ id: "x", cells: { code: "a\tb\nc" } }], ["code"], { top: 0, bottom: 0, left: 0, right: 0 })).toBe("a b c");
  });

  it("fills down from the block's first row, or from the row above a one-row block", () => {
    expect(written(planFillDown(rows, keys, { top: 0, bottom: 2, left: 2, right: 2 }, any))).toEqual([
      [1, { min: "1" }],
      [2, { min: "1" }],
    ]);
    expect(written(planFillDown(rows, keys, { top: 3, bottom: 3, left: 1, right: 2 }, any))).toEqual([[3, { name: "cherry apple", min: "3" }]]);
    expect(planFillDown(rows, keys, { top: 0, bottom: 0, left: 0, right: 0 }, any).cells).toBe(0);
  });

  it("repeats the source rows over a fill dragged down or up, leaving cells it may not write", () => {
    const down = planFill(rows, keys, { top: 0, bottom: 1, left: 0, right: 2 }, { top: 2, bottom: 3 }, notCode);
    expect(written(down)).toEqual([
      [2, { name: "Apple", min: "1" }],
      [3, { name: "Banana", min: "2" }],
    ]);
    // Upwards, the pattern ends on the source's first row.
    const up = planFill(rows, keys, { top: 2, bottom: 3, left: 2, right: 2 }, { top: 0, bottom: 1 }, any);
    expect(written(up)).toEqual([
      [0, { min: "3" }],
      [1, { min: "4" }],
    ]);
  });

  it("sets or clears a block, counting only the cells that change", () => {
    const plan = planSet(rows, keys, { top: 2, bottom: 3, left: 1, right: 1 }, "", any);
    expect(written(plan)).toEqual([[2, { name: "" }]]);
    expect(plan.cells).toBe(1);
  });

  it("finds and replaces in one column: case, whole cell, the replacement as text, normalized", () => {
    const find = { find: "apple", replace: "Pear", matchCase: false, wholeCell: false };
    expect(planReplace(rows, "name", find, any).map(({ row, to }) => [row, to])).toEqual([
      [0, "Pear"],
      [2, "cherry Pear"],
    ]);
    expect(planReplace(rows, "name", { ...find, matchCase: true }, any).map(({ row }) => row)).toEqual([2]);
    expect(planReplace(rows, "name", { ...find, find: "", replace: "(none)", wholeCell: true }, any).map(({ row, to }) => [row, to])).toEqual([[3, "(none)"]]);
    expect(planReplace(rows, "name", { ...find, replace: "$&!" }, any)[0].to).toBe("$&!");
    expect(planReplace(rows, "min", { ...find, find: "1", replace: "5" }, any, (text) => `${text}.00`)[0].to).toBe("5.00");
    expect(planReplace(rows, "name", find, () => false)).toEqual([]);
    expect(planReplace(rows, "name", { ...find, find: "" }, any)).toEqual([]);
  });

  it("lists the pending cells of edited rows, a new row's filled cells from nothing", () => {
    const edited: GridRow<unknown>[] = [
      { id: "2", stored: {}, cells: { code: "B", name: "Blueberry", min: "2" } },
      { id: "new-1", cells: { code: "E", name: "", min: "5" } },
    ];
    const stored = (row: GridRow<unknown>) => (row.stored ? rows.find((r) => r.id === row.id)?.cells : undefined);
    expect(pendingCells(edited, keys, stored).map(({ label, key, from, to, added }) => [label, key, from, to, added])).toEqual([
      ["B", "name", "Banana", "Blueberry", false],
      ["E", "code", "", "E", true],
      ["E", "min", "", "5", true],
    ]);
  });
});
