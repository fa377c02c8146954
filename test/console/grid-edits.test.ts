import { describe, expect, it } from "vitest";
import { editableCells, type GridColumn } from "../../console/src/shared/grid/models/columns";
import { beginChange, type DraftConfig, type DraftState, draftView, emptyDraft, reduceDraft } from "../../console/src/shared/grid/models/draft";
import { editCell, type EditContext, pasteBlock } from "../../console/src/shared/grid/models/edits";

interface Line {
  variant: string;
  min: number;
  ordered: number;
}
const columns: GridColumn[] = [
  { key: "variant", label: "Variant" },
  { key: "min", label: "Min", numeric: true, normalize: (text) => text.replace(/^0+(?=\d)/, "") },
  { key: "ordered", label: "Ordered", numeric: true, readOnly: true },
];
const config: DraftConfig<Line> = {
  idOf: (line) => line.variant,
  cellsOf: (line) => ({ variant: line.variant, min: String(line.min), ordered: String(line.ordered) }),
  fields: columns.map((column) => column.key),
  keyField: "variant",
};
const stored: Line[] = [
  { variant: "A", min: 1, ordered: 10 },
  { variant: "B", min: 2, ordered: 0 },
];
let ids = 0;
const contextOf = (state: DraftState<Line>, readOnly = false): EditContext<Line> => {
  const view = draftView(config, state, stored);
  return {
    rows: view.rows,
    columns,
    keyField: "variant",
    rowOfKey: view.rowOfKey,
    editable: editableCells(columns, { readOnly, lockedWhenStored: ["variant"] }),
  };
};
function edit(state: DraftState<Line>, write: (context: EditContext<Line>, change: ReturnType<typeof beginChange<Line>>) => unknown, readOnly = false) {
  const change = beginChange(config, state, () => `new-${++ids}`);
  const outcome = write(contextOf(state, readOnly), change);
  return { state: reduceDraft(config, state, change.action("Edit")), outcome };
}
const cellsOf = (state: DraftState<Line>) => draftView(config, state, stored).rows.map((row) => row.cells);

describe("what the grid's actions write", () => {
  it("never writes a read-only column, a stored row's key, or anything in a read-only grid", () => {
    const editable = editableCells(columns, { readOnly: false, lockedWhenStored: ["variant"] });
    const storedRow = { id: "A", stored: stored[0], cells: {} };
    const newRow = { id: "new-x", cells: {} };
    expect([editable(storedRow, "min"), editable(storedRow, "variant"), editable(storedRow, "ordered")]).toEqual([true, false, false]);
    expect([editable(newRow, "variant"), editable(newRow, "ordered"), editable(undefined, "min")]).toEqual([true, false, false]);
    expect(editableCells(columns, { readOnly: true, lockedWhenStored: [] })(newRow, "min")).toBe(false);
  });

  it("pastes a block across rows and columns, skipping the read-only column, rows past the end new", () => {
    const { state, outcome } = edit(emptyDraft(), (context, change) =>
      pasteBlock(
        context,
        change,
        [
          ["007", "99"],
          ["8", "99"],
        ],
        { row: 1, col: 1 },
      ),
    );
    expect(outcome).toEqual({ added: 1, found: 0, width: 2 });
    expect(cellsOf(state)).toEqual([
      { variant: "A", min: "1", ordered: "10" },
      { variant: "B", min: "7", ordered: "0" },
      { variant: "", min: "8", ordered: "" },
    ]);
  });

  it("sends a pasted row holding a key to the row of that key (filled cells only), and a new key to a new row", () => {
    const { state, outcome } = edit(emptyDraft(), (context, change) =>
      pasteBlock(
        context,
        change,
        [
          ["B", ""],
          ["A", "5"],
          ["C", "3"],
        ],
        { row: 0, col: 0 },
      ),
    );
    expect(outcome).toEqual({ added: 1, found: 2, width: 2 });
    expect(cellsOf(state)).toEqual([
      { variant: "A", min: "5", ordered: "10" },
      { variant: "B", min: "2", ordered: "0" },
      { variant: "C", min: "3", ordered: "" },
    ]);
  });

  it("edits the row of a key typed into a new row, and drops the new row", () => {
    const added = edit(emptyDraft(), (_context, change) => change.append({ variant: "", min: "9", ordered: "" })).state;
    const { state, outcome } = edit(added, (context, change) => editCell(context, change, 2, "variant", " A "));
    expect(outcome).toEqual({ key: "A", row: 0 });
    expect(cellsOf(state)).toEqual([
      { variant: "A", min: "9", ordered: "10" },
      { variant: "B", min: "2", ordered: "0" },
    ]);
    const plain = edit(emptyDraft(), (context, change) => editCell(context, change, 1, "min", "0012"));
    expect(plain.outcome).toBeNull();
    expect(cellsOf(plain.state)[1].min).toBe("12");
  });
});
