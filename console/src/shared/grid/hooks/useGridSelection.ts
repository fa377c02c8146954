import { useState } from "react";
import { blockOf, type Place } from "../models/selection";

/**
 * The active cell and the selection's other corner: places in the view (row and column as shown),
 * which move with the keys and the pointer; what a change writes is found by row id and column key.
 */
export function useGridSelection(rowCount: number, initialCol: number) {
  const [active, setActive] = useState<Place>(() => ({ row: 0, col: initialCol }));
  const [anchor, setAnchor] = useState<Place>(active);
  // Rows gone (an undo took added rows away, a search shows fewer): the selection stays inside the grid.
  const last = Math.max(0, rowCount - 1);
  if (active.row > last || anchor.row > last) {
    setActive({ ...active, row: Math.min(active.row, last) });
    setAnchor({ ...anchor, row: Math.min(anchor.row, last) });
  }
  return {
    active,
    anchor,
    block: blockOf(anchor, active),
    setActive,
    setAnchor,
    /** One cell, active and selected alone. */
    placeAt: (place: Place) => {
      setActive(place);
      setAnchor(place);
    },
  };
}

export type GridSelection = ReturnType<typeof useGridSelection>;
