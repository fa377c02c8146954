import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Line, Operation } from "../../api/operations";
import type { GridDraft } from "../../shared/grid/hooks/useGridDraft";
import type { GridRow } from "../../shared/grid/models/draft";
import { t, tx } from "../../shared/i18n";
import type { LiveState, LiveViewer } from "./liveClient";
import { useLiveOperation } from "./useLiveOperation";
import "./live.css";

/**
 * The lines grid on the Operation's live connection: a change saved by someone else moves the
 * unsaved edits made here onto it (the draft marks the cells both changed), the cell the person is
 * on is told to the others, and the cells the others are on are marked. The connection is the one
 * the page's header holds (useLiveOperation.ts).
 */
export function useLiveLines<Stored>(operation: Operation, draft: GridDraft<Stored>, storedOf: (line: Line) => Stored) {
  const live = useLiveOperation(operation);
  const handle = live?.handle;
  const [others, setOthers] = useState<readonly LiveViewer[]>([]);
  // What the connection's callbacks read: the draft as it is when a change comes.
  const latest = useRef({ draft, storedOf });
  latest.current = { draft, storedOf };

  useEffect(() => {
    if (!handle) return;
    const showOthers = (state: LiveState) => setOthers(state.viewers.filter((viewer) => viewer.id !== state.you));
    showOthers(handle.client.current);
    // Lines changed elsewhere: the edits made here over them move onto their new values.
    const stops = [
      handle.client.onState(showOthers),
      handle.onEditedLines(
        () => new Set(latest.current.draft.dirtyRows.filter((row) => row.stored).map((row) => row.id)),
        (lines) => latest.current.draft.receive(lines.map(latest.current.storedOf)),
      ),
    ];
    return () => {
      for (const stop of stops) stop();
      handle.client.setFocus(null);
    };
  }, [handle]);

  /** Who is on which cell: by variant and column. */
  const here = useMemo(() => {
    const byCell = new Map<string, LiveViewer[]>();
    for (const viewer of others) {
      if (!viewer.focus) continue;
      const cell = `${viewer.focus.variantExternalId}\n${viewer.focus.field}`;
      byCell.set(cell, [...(byCell.get(cell) ?? []), viewer]);
    }
    return byCell;
  }, [others]);

  const cellMarks = useCallback(
    (row: GridRow<Stored>, key: string) => {
      const viewers = row.stored && here.get(`${row.id}\n${key}`);
      return viewers && live ? <live.views.HereMark viewers={viewers} words={{ t, tx }} /> : null;
    },
    [here, live],
  );

  /** The person's cell, for the others (a new row has no variant yet: none). */
  const onActiveCell = useCallback(
    (row: GridRow<Stored> | undefined, key: string) => handle?.client.setFocus(row?.stored ? { variantExternalId: row.id, field: key } : null),
    [handle],
  );

  return { cellMarks, onActiveCell, Conflicts: live?.views.LiveConflicts };
}
