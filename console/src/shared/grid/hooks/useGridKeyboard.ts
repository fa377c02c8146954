import type { KeyboardEvent } from "react";
import type { Place } from "../models/selection";
import type { GridEditing, GridParts } from "./useGridEditing";

/** Rows a Page Up or Down moves. */
const PAGE = 15;

/**
 * The grid's keys while it has the focus (not while a cell is edited): moving and selecting, the
 * Ctrl shortcuts (undo, redo, fill down, select all), clearing, and starting an edit.
 */
export function useGridKeyboard<Stored>(parts: GridParts<Stored>, editing: GridEditing) {
  const { columns, readOnly, selection, moveToPlace, edits } = parts;
  const { active } = selection;
  const rowCount = edits.rows.length;
  return (event: KeyboardEvent<HTMLDivElement>) => {
    if (editing.editing) return;
    const ctrl = event.ctrlKey || event.metaKey;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const command: Record<string, (() => void) | undefined> = ctrl
      ? {
          z: readOnly ? undefined : () => editing.step(event.shiftKey ? "redo" : "undo"),
          y: readOnly ? undefined : () => editing.step("redo"),
          d: readOnly ? undefined : editing.fillDown,
          a: () => {
            selection.setAnchor({ row: 0, col: 0 });
            moveToPlace(rowCount - 1, columns.length - 1, true);
          },
        }
      : {};
    if (command[key]) {
      event.preventDefault();
      return command[key]();
    }
    const moves: Record<string, Place> = {
      ArrowUp: { row: active.row - 1, col: active.col },
      ArrowDown: { row: active.row + 1, col: active.col },
      ArrowLeft: { row: active.row, col: active.col - 1 },
      ArrowRight: { row: active.row, col: active.col + 1 },
      PageUp: { row: active.row - PAGE, col: active.col },
      PageDown: { row: active.row + PAGE, col: active.col },
      Home: ctrl ? { row: 0, col: active.col } : { row: active.row, col: 0 },
      End: ctrl ? { row: rowCount - 1, col: active.col } : { row: active.row, col: columns.length - 1 },
    };
    const target = moves[event.key];
    if (target) {
      event.preventDefault();
      return moveToPlace(target.row, target.col, event.shiftKey);
    }
    if (readOnly) return;
    if (event.key === "Delete" || event.key === "Backspace" || (event.key === " " && !ctrl && !event.altKey)) {
      event.preventDefault();
      editing.clear();
    } else if (event.key === "Enter" || event.key === "F2") {
      event.preventDefault();
      editing.startEditing();
    } else if (event.key.length === 1 && !ctrl && !event.altKey) {
      event.preventDefault();
      editing.startEditing(event.key);
    }
  };
}
