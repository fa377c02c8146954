import { useState, type RefObject } from "react";
import type { GridColumn } from "../models/columns";
import { editCell, writePlan, type EditContext } from "../models/edits";
import { planFillDown, planSet, type Plan, type Replacement, type Writable } from "../models/selection";
import type { GridSelection } from "./useGridSelection";
import type { GridDraft } from "./useGridDraft";
import { type MessageKey, t } from "../../i18n";

/** What the grid's hooks share: its draft, what may be written, the selection and how to move it. */
export interface GridParts<Stored> {
  draft: GridDraft<Stored>;
  columns: readonly GridColumn[];
  keys: readonly string[];
  readOnly: boolean;
  edits: EditContext<Stored>;
  /** What a fill, a replace or one value pasted over many cells may write: never a row's key (rows would share it). */
  writable: Writable;
  selection: GridSelection;
  moveToPlace: (row: number, col: number, extend?: boolean) => void;
  gridRef: RefObject<HTMLDivElement | null>;
  /** A sentence on what a paste or an edit did beyond its cells (rows added, rows found by their key). */
  onNote?: (note: string) => void;
}

/** Each way a plan is written: its undo step's name, what it says when done, and when it changed nothing. */
const GRID_WRITES = {
  clear: { step: "grid.clearStep", done: "grid.cleared", nothing: "grid.clearNothing" },
  fill: { step: "grid.fillStep", done: "grid.filled", nothing: "grid.fillNothing" },
  fillDown: { step: "grid.fillDown", done: "grid.filled", nothing: "grid.fillDownNothing" },
  paste: { step: "grid.pasteStep", done: "grid.pastedCells", nothing: "grid.pasteNothing" },
  replace: { step: "grid.replaceStep", done: "grid.replaced", nothing: "grid.replaceNothing" },
} satisfies Record<string, Record<"step" | "done" | "nothing", MessageKey>>;
export type GridWrite = keyof typeof GRID_WRITES;

/**
 * The grid's writes into its draft, each one undo step: the cell being edited and its commit, plans
 * (clear, fill down, replace), undo and redo; and what the last of them did, for the live region
 * ("5000 cells filled."), said until the draft changes again.
 */
export function useGridEditing<Stored>(parts: GridParts<Stored>) {
  const { draft, columns, keys, edits, writable, selection, moveToPlace, gridRef, onNote } = parts;
  const { rows } = edits;
  const { active } = selection;
  const activeKey = columns[active.col].key;
  const [editing, setEditing] = useState<{ value: string } | null>(null);
  // `n` makes a repeat a new announcement; `edits` keeps it only until the next change of the draft.
  const [lastSaid, setSaid] = useState<{ text: string; n: number; edits: number } | null>(null);
  const say = (text: string) => setSaid((last) => ({ text, n: (last?.n ?? 0) + 1, edits: draft.editCount() }));
  const said = lastSaid?.edits === draft.editCount() ? lastSaid : null;

  /** Writes a plan as one undo step (`how`: its name and what it says) and says how many cells it changed. */
  const write = (plan: Plan, how: GridWrite, column?: GridColumn) => {
    const what = t(GRID_WRITES[how].step, { column: column?.label ?? "" });
    if (!plan.cells) return say(t(GRID_WRITES[how].nothing, { column: column?.label ?? "" }));
    const change = draft.change(what);
    writePlan(edits, change, plan);
    change.commit(t("grid.stepCells", { step: what, count: plan.cells }));
    say(t(GRID_WRITES[how].done, { count: plan.cells }));
  };
  const clear = () => write(planSet(rows, keys, selection.block, "", edits.editable), "clear");
  const fillDown = () => write(planFillDown(rows, keys, selection.block, writable), "fillDown");
  const replace = (replacements: Replacement[], column: GridColumn) => {
    const plan: Plan = { writes: replacements.map(({ row, to }) => ({ row, cells: new Map([[column.key, to]]) })), cells: replacements.length };
    write(plan, "replace", column);
  };
  const step = (which: "undo" | "redo") => {
    const name = which === "undo" ? draft.undoLabel : draft.redoLabel;
    const touched = draft[which]();
    if (!touched) return say(t(which === "undo" ? "grid.nothingToUndo" : "grid.nothingToRedo"));
    say(t(which === "undo" ? "grid.undone" : "grid.redone", { step: name ?? "" }));
    // The first row it touched, wherever the sort or the search now shows it (if it does).
    const at = rows.findIndex((row) => row.id === touched[0]);
    if (at >= 0) moveToPlace(at, active.col);
  };
  /** Ends the edit of the active cell (written as one step) and moves by `move` (rows, columns). */
  const commit = (move: [number, number] | null) => {
    setEditing(null);
    gridRef.current?.focus();
    if (!editing || !rows[active.row]) return void (move && moveToPlace(active.row + move[0], active.col + move[1]));
    const change = draft.change(t("grid.editStep", { column: columns[active.col].label }));
    const merged = editCell(edits, change, active.row, activeKey, editing.value);
    change.commit();
    if (merged) {
      onNote?.(t("grid.merged", { key: merged.key, row: merged.row + 1 }));
      return moveToPlace(merged.row, active.col + (move?.[1] ?? 0));
    }
    if (move) moveToPlace(active.row + move[0], active.col + move[1]);
  };
  const startEditing = (initial?: string) => {
    if (!edits.editable(rows[active.row], activeKey)) return;
    selection.setAnchor(active);
    setEditing({ value: initial ?? rows[active.row].cells[activeKey] });
  };
  const cancel = () => {
    setEditing(null);
    gridRef.current?.focus();
  };
  /** Appends an empty row and starts editing its first cell (`scrollTo` once it is drawn). */
  const addRow = (scrollTo: (row: number) => void) => {
    const change = draft.change(t("grid.addRowStep"));
    change.append();
    change.commit();
    selection.placeAt({ row: rows.length, col: 0 });
    setTimeout(() => scrollTo(rows.length), 0);
    setEditing({ value: "" });
  };
  return { editing, setEditing, said, say, write, clear, fillDown, replace, step, commit, startEditing, cancel, addRow, activeKey };
}

export type GridEditing = ReturnType<typeof useGridEditing>;
