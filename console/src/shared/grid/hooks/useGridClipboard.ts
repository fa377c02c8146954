import type { ClipboardEvent } from "react";
import { plural } from "../../format";
import { pasteBlock } from "../models/edits";
import { blockText, cellsIn, parseBlock, planSet } from "../models/selection";
import type { GridEditing, GridParts } from "./useGridEditing";

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
    editing.say(`${plural(cellsIn(block), "cell")} copied.`);
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
      return editing.write(planSet(rows, keys, block, cells[0][0].trim(), writable), "Paste", "pasted");
    }
    const start = rows.length ? { row: block.top, col: block.left } : { row: 0, col: 0 };
    const change = draft.change("Paste");
    const { added, found, width, left } = pasteBlock(edits, change, cells, start);
    change.commit(`Paste (${plural(cells.length, "row")})`);
    // The pasted block becomes the selection (as far as the grid shows it: keyed rows may stand
    // elsewhere), the active cell staying at its first cell, as spreadsheets do.
    selection.setAnchor({ row: start.row + cells.length - 1, col: start.col + Math.max(0, width - 1) });
    selection.setActive(start);
    editing.say(`${plural(cells.length, "row")} pasted.`);
    const keyLabel = (columns.find((column) => column.key === draft.keyField) ?? columns[0]).label.toLowerCase();
    onNote?.(
      `Pasted ${plural(cells.length, "row")}` +
        (added ? `, ${added} of them new` : "") +
        (found ? `; ${plural(found, "row")} named a ${keyLabel} already in the grid and edited its row (filled cells only)` : "") +
        (left ? `; ${plural(left, "row")} left out: no row can be added to this grid now` : "") +
        ".",
    );
  };
  return { onCopy, onCut, onPaste };
}
