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
const contextOf = (state: DraftState<Line>, readOnly = false, appendable = true): EditContext<Line> => {
  const view = draftView(config, state, stored);
  return {
    rows: view.rows,
    columns,
    keyField: "variant",
    rowOfKey: view.rowOfKey,
    editable: editableCells(columns, { readOnly, lockedWhenStored: ["variant"] }),
    appendable,
  };
};
function edit(
  state: DraftState<Line>,
  write: (context: EditContext<Line>, change: ReturnType<typeof beginChange<Line>>) => unknown,
  readOnly = false,
  appendable = true,
) {
  const change = beginChange(config, state, () => `new-${++ids}`);
  const outcome = write(contextOf(state, readOnly, appendable), change);
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
    expect(outcome).toEqual({ added: 1, found: 0, width: 2, left: 0 });
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
    expect(outcome).toEqual({ added: 1, found: 2, width: 2, left: 0 });
    expect(cellsOf(state)).toEqual([
      { variant: "A", min: "5", ordered: "10" },
      { variant: "B", min: "2", ordered: "0" },
      { variant: "C", min: "3", ordered: "" },
    ]);
  });

  it("edits a stored-only column on a stored row only: a new row's waits until the row is saved", () => {
    const withPool: GridColumn[] = [...columns, { key: "pool", label: "Pool", numeric: true, storedOnly: true }];
    const editable = editableCells(withPool, { readOnly: false, lockedWhenStored: ["variant"] });
    expect(editable({ id: "A", stored: stored[0], cells: {} }, "pool")).toBe(true);
    expect(editable({ id: "new-x", cells: {} }, "pool")).toBe(false);
    expect(editable({ id: "new-x", cells: {} }, "min")).toBe(true);
  });

  it("leaves out the pasted rows that would be new rows in a grid that takes none, and edits the rows it holds", () => {
    const { state, outcome } = edit(
      emptyDraft(),
      (context, change) =>
        pasteBlock(
          context,
          change,
          [
            ["B", "4"],
            ["C", "3"],
            ["A", "6"],
          ],
          { row: 0, col: 0 },
        ),
      false,
      false,
    );
    expect(outcome).toEqual({ added: 0, found: 2, width: 2, left: 1 });
    expect(cellsOf(state)).toEqual([
      { variant: "A", min: "6", ordered: "10" },
      { variant: "B", min: "4", ordered: "0" },
    ]);
    const pastEnd = edit(emptyDraft(), (context, change) => pasteBlock(context, change, [["7"], ["8"], ["9"]], { row: 1, col: 1 }), false, false);
    expect(pastEnd.outcome).toEqual({ added: 0, found: 0, width: 1, left: 2 });
    expect(cellsOf(pastEnd.state).map((cells) => cells.min)).toEqual(["1", "7"]);
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
