import type { ClipboardEvent } from "react";
import { pasteBlock } from "../models/edits";
import { blockText, cellsIn, parseBlock, planSet } from "../models/selection";
import type { GridEditing, GridParts } from "./useGridEditing";
import { t } from "../../i18n";

/**
 * Copy, cut and paste as spreadsheets do (tab-separated text): a copy takes the selection, a paste
 * writes a block from the selection's first cell (models/edits.ts), one value pasted over several
 * cells fills them all.
 */
export function useGridClipboard<Stored>(parts: GridParts<Stored>, editing: GridEditing) {
  const { draft, columns, keys, readOnly, edits, writable, selection, onNote } = parts;
  const { rows } = edits;
  const block = selection.block;

  const onCopy = (event: ClipboardEvent<HTMLDivElement>) => {
    if (editing.editing || !rows.length) return;
    event.preventDefault();
    event.clipboardData.setData("text/plain", blockText(rows, keys, block));
    editing.say(t("grid.copied", { count: cellsIn(block) }));
  };
  const onCut = (event: ClipboardEvent<HTMLDivElement>) => {
    if (editing.editing || readOnly || !rows.length) return;
    onCopy(event);
    editing.clear();
  };
  const onPaste = (event: ClipboardEvent<HTMLDivElement>) => {
    if (readOnly || editing.editing) return;
    const text = event.clipboardData.getData("text/plain");
    if (!text) return;
    event.preventDefault();
    const cells = parseBlock(text);
    if (cells.length === 1 && cells[0].length === 1 && cellsIn(block) > 1) {
      return editing.write(planSet(rows, keys, block, cells[0][0].trim(), writable), "paste");
    }
    const start = rows.length ? { row: block.top, col: block.left } : { row: 0, col: 0 };
    const change = draft.change(t("grid.pasteStep"));
    const { added, found, width, left } = pasteBlock(edits, change, cells, start);
    change.commit(t("grid.pasteRowsStep", { count: cells.length }));
    // The pasted block becomes the selection (as far as the grid shows it: keyed rows may stand
    // elsewhere), the active cell staying at its first cell, as spreadsheets do.
    selection.setAnchor({ row: start.row + cells.length - 1, col: start.col + Math.max(0, width - 1) });
    selection.setActive(start);
    editing.say(t("grid.pastedRows", { count: cells.length }));
    const keyLabel = (columns.find((column) => column.key === draft.keyField) ?? columns[0]).label;
    onNote?.(t("grid.pasteNote", { count: cells.length, added, found, key: keyLabel, left }));
  };
  return { onCopy, onCut, onPaste };
}
