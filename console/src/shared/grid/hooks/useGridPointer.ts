import { useEffect, useRef, useState, type MouseEvent } from "react";
import { planFill, type Place } from "../models/selection";
import type { GridEditing, GridParts } from "./useGridEditing";
import { ROW_HEIGHT } from "./useGridLayout";

/**
 * The pointer: a press selects a cell (Shift extends), a drag selects a block, and the fill handle
 * (the selection's corner) dragged up or down fills the rows it passes with the selection's rows. A
 * drag held past the grid's top or bottom edge scrolls it (faster the further out), and the selection
 * (or the fill) follows to the row at that edge.
 */
export function useGridPointer<Stored>(parts: GridParts<Stored>, editing: GridEditing, headHeight: number) {
  const { keys, edits, writable, selection, moveToPlace, gridRef } = parts;
  const { rows } = edits;
  const { active, block } = selection;
  // The fill handle's drag: the row the pointer is over (the selection grows to it when released).
  const [fillTo, setFillTo] = useState<number | null>(null);
  const dragging = useRef<"select" | "fill" | null>(null);

  // The pointer leaves the cells past the edge, so no cell's mouseenter says where it is: the window's moves do.
  const pointerY = useRef(0);
  const edgeFrame = useRef(0);
  const edgeScroll = useRef<() => void>(() => {});
  edgeScroll.current = () => {
    const grid = gridRef.current;
    if (!dragging.current || !grid) {
      edgeFrame.current = 0;
      return;
    }
    edgeFrame.current = requestAnimationFrame(() => edgeScroll.current());
    const box = grid.getBoundingClientRect();
    const top = box.top + grid.clientTop + headHeight;
    const bottom = box.top + grid.clientTop + grid.clientHeight;
    const y = pointerY.current;
    const beyond = y < top ? y - top : y > bottom ? y - bottom : 0;
    if (beyond === 0) return;
    grid.scrollTop += Math.sign(beyond) * Math.min(Math.abs(beyond) / 2, ROW_HEIGHT);
    const atEdge = beyond < 0 ? top : bottom - 1;
    const row = Math.max(0, Math.min(rows.length - 1, Math.floor((grid.scrollTop + atEdge - box.top - grid.clientTop - headHeight) / ROW_HEIGHT)));
    if (dragging.current === "select") selection.setActive((place) => (place.row === row ? place : { ...place, row }));
    else setFillTo(row);
  };
  const startEdgeScroll = (clientY: number) => {
    pointerY.current = clientY;
    if (!edgeFrame.current) edgeFrame.current = requestAnimationFrame(() => edgeScroll.current());
  };

  const onCellMouseDown = (event: MouseEvent, place: Place) => {
    if (event.button !== 0) return;
    if (editing.editing) {
      if (place.row === active.row && place.col === active.col) return;
      editing.commit(null);
    }
    event.preventDefault();
    // Not scrolled: a page that scrolled under the pointer would carry the press on to other cells.
    gridRef.current?.focus({ preventScroll: true });
    dragging.current = "select";
    startEdgeScroll(event.clientY);
    if (event.shiftKey) moveToPlace(place.row, place.col, true);
    else selection.placeAt(place);
  };
  const onCellMouseEnter = (place: Place) => {
    if (dragging.current === "select") selection.setActive(place);
    else if (dragging.current === "fill") setFillTo(place.row);
  };
  const startFillDrag = (event: MouseEvent) => {
    event.preventDefault();
    event.stopPropagation();
    dragging.current = "fill";
    setFillTo(block.bottom);
    startEdgeScroll(event.clientY);
  };
  /** The rows the fill handle has been dragged over, outside the selection. */
  const fillTarget =
    fillTo === null
      ? null
      : fillTo > block.bottom
        ? { top: block.bottom + 1, bottom: fillTo }
        : fillTo < block.top
          ? { top: fillTo, bottom: block.top - 1 }
          : null;
  const release = useRef<() => void>(() => {});
  release.current = () => {
    if (dragging.current === "fill" && fillTarget) {
      editing.write(planFill(rows, keys, block, fillTarget, writable), "fill");
      selection.setAnchor({ row: Math.min(block.top, fillTarget.top), col: block.left });
      selection.setActive({ row: Math.max(block.bottom, fillTarget.bottom), col: block.right });
    }
    dragging.current = null;
    setFillTo(null);
  };
  useEffect(() => {
    const onUp = () => release.current();
    const onMove = (event: globalThis.MouseEvent) => {
      pointerY.current = event.clientY;
    };
    window.addEventListener("mouseup", onUp);
    window.addEventListener("mousemove", onMove);
    return () => {
      window.removeEventListener("mouseup", onUp);
      window.removeEventListener("mousemove", onMove);
      cancelAnimationFrame(edgeFrame.current);
    };
  }, []);

  return { onCellMouseDown, onCellMouseEnter, startFillDrag, fillTarget };
}
