import { describe, expect, it } from "vitest";
import {
  beginChange,
  type DraftAction,
  type DraftConfig,
  draftView,
  type DraftState,
  emptyDraft,
  reduceDraft,
} from "../../console/src/shared/grid/models/draft";

interface Line {
  variant: string;
  min: number;
  max: number;
}
const config: DraftConfig<Line> = {
  idOf: (line) => line.variant,
  cellsOf: (line) => ({ variant: line.variant, min: String(line.min), max: String(line.max) }),
  fields: ["variant", "min", "max"],
  keyField: "variant",
};
const stored: Line[] = [
  { variant: "A", min: 1, max: 10 },
  { variant: "B", min: 2, max: 20 },
  { variant: "C", min: 3, max: 30 },
];
const reduce = (state: DraftState<Line>, ...actions: DraftAction<Line>[]) => actions.reduce((next, action) => reduceDraft(config, next, action), state);
const view = (state: DraftState<Line>, items: Line[] = stored) => draftView(config, state, items);
const rowOf = (state: DraftState<Line>, variant: string, items: Line[] = stored) => view(state, items).rows.find((row) => row.id === variant)!;
let ids = 0;
const newId = () => `new-${++ids}`;

/** One change, as the grid makes one: `write` over a builder, committed as `label`. */
function change(state: DraftState<Line>, label: string, write: (builder: ReturnType<typeof beginChange<Line>>) => void) {
  const builder = beginChange(config, state, newId);
  write(builder);
  return reduce(state, builder.action(label));
}
const setCells = (state: DraftState<Line>, variant: string, cells: Record<string, string>) =>
  change(state, `Edit ${variant}`, (c) => {
    const row = rowOf(state, variant);
    c.set(row, { ...c.current(row).cells, ...cells });
  });

describe("the grid's draft", () => {
  it("keeps an edit by row id, undoes and redoes it, and an edit back to the stored values is none", () => {
    const edited = setCells(emptyDraft(), "B", { min: "5" });
    expect(view(edited).dirtyRows.map((row) => [row.id, row.cells.min])).toEqual([["B", "5"]]);
    expect(edited.undo.map((step) => step.label)).toEqual(["Edit B"]);
    const undone = reduce(edited, { type: "undo" });
    expect(view(undone).dirtyRows).toEqual([]);
    expect(undone.redo).toHaveLength(1);
    expect(rowOf(reduce(undone, { type: "redo" }), "B").cells.min).toBe("5");
    const back = setCells(edited, "B", { min: "2" });
    expect(back.pending.size).toBe(0);
    expect(back.undo).toHaveLength(2);
  });

  it("shows the view's rows, then the rows added; an edit outside the view stays and is counted", () => {
    let state = change(emptyDraft(), "Add", (c) => c.append({ variant: "D", min: "4", max: "40" }));
    state = setCells(state, "C", { max: "33" });
    const filtered = view(state, stored.slice(0, 2));
    expect(filtered.rows.map((row) => row.cells.variant)).toEqual(["A", "B", "D"]);
    expect(filtered.hiddenDirtyCount).toBe(1);
    expect(filtered.dirtyRows.map((row) => row.cells.variant)).toEqual(["D", "C"]);
    expect(filtered.addedCount).toBe(1);
    expect(filtered.rowOfKey("C")?.cells.max).toBe("33");
  });

  it("makes one step of a change touching many rows, and a change that changes nothing no step", () => {
    const state = change(emptyDraft(), "Fill", (c) => {
      for (const variant of ["A", "B", "C"]) c.set(rowOf(emptyDraft(), variant), { ...rowOf(emptyDraft(), variant).cells, max: "99" });
    });
    expect(state.pending.size).toBe(3);
    expect(state.undo).toHaveLength(1);
    const same = change(state, "Nothing", (c) => c.set(rowOf(state, "A"), rowOf(state, "A").cells));
    expect(same.undo).toHaveLength(1);
    expect(reduce(state, { type: "undo" }).pending.size).toBe(0);
  });

  it("discards every edit as one step that undo brings back, and settles saved rows with the history", () => {
    const state = setCells(setCells(emptyDraft(), "A", { min: "0" }), "B", { min: "0" });
    const discarded = reduce(state, { type: "discard" });
    expect(discarded.pending.size).toBe(0);
    expect(discarded.undo.at(-1)?.label).toBe("Discard (2 rows)");
    expect(reduce(discarded, { type: "undo" }).pending.size).toBe(2);
    const settled = reduce(state, { type: "settle", ids: ["A"] });
    expect([...settled.pending.keys()]).toEqual(["B"]);
    expect(settled.undo).toEqual([]);
    expect(settled.edits).toBeGreaterThan(state.edits);
  });

  it("keeps the server's error on its row until the row is written again", () => {
    const state = reduce(setCells(emptyDraft(), "A", { min: "50" }), { type: "serverError", id: "A", message: "min > max" });
    expect(state.serverErrors.get("A")).toBe("min > max");
    expect(setCells(state, "A", { min: "5" }).serverErrors.has("A")).toBe(false);
  });

  it("adopts a new row as an edit of the stored item, keeping only the cells typed in it", () => {
    const state = change(emptyDraft(), "Add", (c) => c.append({ variant: "B", min: "", max: "25" }));
    const [id] = state.pending.keys();
    const adopted = reduce(state, { type: "adopt", id, stored: stored[1] });
    expect(adopted.pending.get(id)).toMatchObject({ stored: stored[1], cells: { variant: "B", min: "2", max: "25" } });
  });

  describe("a change from outside (live updates)", () => {
    const remote = (...lines: (Partial<Line> & { variant: string })[]): DraftAction<Line> => ({
      type: "remote",
      items: lines.map((line) => ({ ...stored.find((item) => item.variant === line.variant)!, ...line })),
    });

    it("keeps the local edit, takes the other cells, and marks a cell both sides changed differently", () => {
      const edited = setCells(emptyDraft(), "B", { min: "5" });
      const kept = reduce(edited, remote({ variant: "B", max: 25 }));
      expect(kept.pending.get("B")).toMatchObject({ cells: { variant: "B", min: "5", max: "25" }, stored: { variant: "B", min: 2, max: 25 } });
      expect(kept.conflicts.has("B")).toBe(false);
      const clash = reduce(edited, remote({ variant: "B", min: 7 }));
      expect(clash.pending.get("B")?.cells.min).toBe("5");
      expect([...(clash.conflicts.get("B") ?? [])]).toEqual(["min"]);
    });

    it("drops the edit when the other side wrote the same values, and leaves rows without an edit alone", () => {
      const edited = setCells(emptyDraft(), "B", { min: "5" });
      const agreed = reduce(edited, remote({ variant: "B", min: 5 }));
      expect(agreed.pending.size).toBe(0);
      expect(reduce(edited, remote({ variant: "A", min: 9 }))).toBe(edited);
    });

    it("keeps undo on the new values: undoing the local edit never brings back what the other side replaced", () => {
      const edited = setCells(emptyDraft(), "B", { min: "5" });
      const moved = reduce(edited, remote({ variant: "B", max: 25 }));
      const now = { ...stored[1], max: 25 };
      const undone = reduce(moved, { type: "undo" });
      expect(undone.pending.size).toBe(0);
      const redone = reduce(undone, { type: "redo" });
      expect(rowOf(redone, "B", [stored[0], now, stored[2]]).cells).toEqual({ variant: "B", min: "5", max: "25" });
    });

    it("keeps a conflict when told the same change twice, and when another cell changes after it", () => {
      const clash = reduce(setCells(emptyDraft(), "B", { min: "5" }), remote({ variant: "B", min: 7 }));
      // Sent with the change, then read again after a reconnect: nothing new.
      expect(reduce(clash, remote({ variant: "B", min: 7 }))).toBe(clash);
      const later = reduce(clash, remote({ variant: "B", min: 7, max: 40 }));
      expect([...(later.conflicts.get("B") ?? [])]).toEqual(["min"]);
      expect(later.pending.get("B")?.cells).toEqual({ variant: "B", min: "5", max: "40" });
      // The other side came round to the same value: nothing left to answer.
      expect(reduce(later, remote({ variant: "B", min: 5, max: 40 })).conflicts.size).toBe(0);
    });

    it("lists the conflicts, shown or not, with their cells", () => {
      const edited = setCells(setCells(emptyDraft(), "B", { min: "5", max: "21" }), "C", { max: "33" });
      // One change of both lines, and one of a line without an edit here.
      const clashes = reduce(edited, remote({ variant: "B", min: 7, max: 22 }, { variant: "C", max: 31 }, { variant: "A", max: 11 }));
      const listed = view(clashes, [stored[0]]).conflicts;
      expect(listed.map(({ row, fields }) => [row.id, row.cells.max, fields])).toEqual([
        ["B", "21", ["min", "max"]],
        ["C", "33", ["max"]],
      ]);
    });

    it("answers a conflict: theirs is an edit of the cell (one undo step), mine keeps the edit to save over theirs", () => {
      const edited = setCells(emptyDraft(), "B", { min: "5", max: "21" });
      const clash = reduce(edited, remote({ variant: "B", min: 7, max: 22 }));
      const items = [stored[0], { ...stored[1], min: 7, max: 22 }, stored[2]];
      const theirs = change(clash, "Keep theirs (B · min)", (c) => {
        const row = draftView(config, clash, items).rows[1];
        c.set(row, { ...c.current(row).cells, min: "7" });
      });
      expect(theirs.pending.get("B")?.cells).toEqual({ variant: "B", min: "7", max: "21" });
      expect([...(theirs.conflicts.get("B") ?? [])]).toEqual(["max"]);
      expect(theirs.undo.at(-1)?.label).toBe("Keep theirs (B · min)");
      expect(reduce(theirs, { type: "undo" }).pending.get("B")?.cells.min).toBe("5");
      const mine = reduce(theirs, { type: "keepMine", cells: [{ id: "B", field: "max" }] });
      expect(mine.conflicts.size).toBe(0);
      expect(mine.pending.get("B")?.cells).toEqual({ variant: "B", min: "7", max: "21" });
      expect(mine.undo).toHaveLength(theirs.undo.length);
      // Every cell back to theirs: no edit is left, nor a conflict.
      const all = change(clash, "Keep theirs (2 cells)", (c) => {
        const row = draftView(config, clash, items).rows[1];
        c.set(row, { ...c.current(row).cells, min: "7", max: "22" });
      });
      expect(all.pending.size).toBe(0);
      expect(all.conflicts.size).toBe(0);
    });

    it("keeps a conflict while the person writes another cell of its row", () => {
      const clash = reduce(setCells(emptyDraft(), "B", { min: "5" }), remote({ variant: "B", min: 7 }));
      const items = [stored[0], { ...stored[1], min: 7 }, stored[2]];
      const builder = beginChange(config, clash, newId);
      const row = draftView(config, clash, items).rows[1];
      builder.set(row, { ...row.cells, max: "23" });
      expect([...(reduce(clash, builder.action("Edit")).conflicts.get("B") ?? [])]).toEqual(["min"]);
    });

    it("clears a row's conflict once the person writes it", () => {
      const clash = reduce(setCells(emptyDraft(), "B", { min: "5" }), remote({ variant: "B", min: 7 }));
      const items = [stored[0], { ...stored[1], min: 7 }, stored[2]];
      const builder = beginChange(config, clash, newId);
      const row = draftView(config, clash, items).rows[1];
      builder.set(row, { ...row.cells, min: "6" });
      expect(reduce(clash, builder.action("Edit")).conflicts.has("B")).toBe(false);
    });
  });
});
