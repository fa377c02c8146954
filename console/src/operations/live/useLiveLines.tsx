import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { fetchLinesOf, type Line, type Operation } from "../../api/operations";
import { useSession } from "../../shared/context";
import type { GridDraft } from "../../shared/grid/hooks/useGridDraft";
import type { GridRow } from "../../shared/grid/models/draft";
import type { LiveState, LiveViewer } from "./liveClient";
import type { LinesNews } from "./liveHub";
import { useLiveOperation } from "./useLiveOperation";
import { HereMark } from "./HereMark";
import "./live.css";

/**
 * The lines grid on the Operation's live connection: a change saved by someone else moves the
 * unsaved edits made here onto it (the draft marks the cells both changed), the cell the person is
 * on is told to the others, and the cells the others are on are marked. The connection is the one
 * the page's header holds (useLiveOperation.ts).
 */
export function useLiveLines<Stored>(operation: Operation, draft: GridDraft<Stored>, storedOf: (line: Line) => Stored) {
  const { api } = useSession();
  const handle = useLiveOperation(operation);
  const [others, setOthers] = useState<readonly LiveViewer[]>([]);
  // What the connection's callbacks read: the draft as it is when a change comes.
  const latest = useRef({ draft, storedOf });
  latest.current = { draft, storedOf };
  const operationId = operation.id;

  useEffect(() => {
    if (!handle) return;
    /** Lines changed elsewhere: the edits made here over them move onto their new values. */
    const receive = async (news: LinesNews) => {
      const edited = new Set(latest.current.draft.dirtyRows.filter((row) => row.stored).map((row) => row.id));
      if (!edited.size) return;
      const lines = news.all ? await fetchLinesOf(api, operationId, [...edited]) : news.lines.filter((line) => edited.has(line.variantExternalId));
      if (lines.length) latest.current.draft.receive(lines.map(latest.current.storedOf));
    };
    const showOthers = (state: LiveState) => setOthers(state.viewers.filter((viewer) => viewer.id !== state.you));
    showOthers(handle.client.current);
    const stops = [handle.client.onState(showOthers), handle.onLines((news) => void receive(news))];
    return () => {
      for (const stop of stops) stop();
      handle.client.setFocus(null);
    };
  }, [handle, api, operationId]);

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
      return viewers ? <HereMark viewers={viewers} /> : null;
    },
    [here],
  );

  /** The person's cell, for the others (a new row has no variant yet: none). */
  const onActiveCell = useCallback(
    (row: GridRow<Stored> | undefined, key: string) => handle?.client.setFocus(row?.stored ? { variantExternalId: row.id, field: key } : null),
    [handle],
  );

  return { cellMarks, onActiveCell };
}
