import { useState, type RefObject } from "react";
import { plural } from "../../format";
import type { GridColumn } from "../models/columns";
import { editCell, writePlan, type EditContext } from "../models/edits";
import { planFillDown, planSet, type Plan, type Replacement, type Writable } from "../models/selection";
import type { GridSelection } from "./useGridSelection";
import type { GridDraft } from "./useGridDraft";

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

  /** Writes a plan as one undo step named `what` and says how many cells it changed (`done`: "filled"). */
  const write = (plan: Plan, what: string, done: string) => {
    if (!plan.cells) return say(`No cell changed: ${what.toLowerCase()} left every cell as it was.`);
    const change = draft.change(what);
    writePlan(edits, change, plan);
    change.commit(`${what} (${plural(plan.cells, "cell")})`);
    say(`${plural(plan.cells, "cell")} ${done}.`);
  };
  const clear = () => write(planSet(rows, keys, selection.block, "", edits.editable), "Clear", "cleared");
  const fillDown = () => write(planFillDown(rows, keys, selection.block, writable), "Fill down", "filled");
  const replace = (replacements: Replacement[], column: GridColumn) => {
    const plan: Plan = { writes: replacements.map(({ row, to }) => ({ row, cells: new Map([[column.key, to]]) })), cells: replacements.length };
    write(plan, `Replace in ${column.label}`, "replaced");
  };
  const step = (which: "undo" | "redo") => {
    const name = which === "undo" ? draft.undoLabel : draft.redoLabel;
    const touched = draft[which]();
    if (!touched) return say(which === "undo" ? "Nothing to undo." : "Nothing to redo.");
    say(`${which === "undo" ? "Undone" : "Redone"}: ${name}.`);
    // The first row it touched, wherever the sort or the search now shows it (if it does).
    const at = rows.findIndex((row) => row.id === touched[0]);
    if (at >= 0) moveToPlace(at, active.col);
  };
  /** Ends the edit of the active cell (written as one step) and moves by `move` (rows, columns). */
  const commit = (move: [number, number] | null) => {
    setEditing(null);
    gridRef.current?.focus();
    if (!editing || !rows[active.row]) return void (move && moveToPlace(active.row + move[0], active.col + move[1]));
    const change = draft.change(`Edit ${columns[active.col].label}`);
    const merged = editCell(edits, change, active.row, activeKey, editing.value);
    change.commit();
    if (merged) {
      onNote?.(`${merged.key} is already in the grid (row ${merged.row + 1}): that row was edited instead of adding another.`);
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
    const change = draft.change("Add a row");
    change.append();
    change.commit();
    selection.placeAt({ row: rows.length, col: 0 });
    setTimeout(() => scrollTo(rows.length), 0);
    setEditing({ value: "" });
  };
  return { editing, setEditing, said, say, write, clear, fillDown, replace, step, commit, startEditing, cancel, addRow, activeKey };
}

export type GridEditing = ReturnType<typeof useGridEditing>;
