import { useMemo, useReducer, useRef } from "react";
import {
  beginChange,
  draftView,
  emptyDraft,
  reduceDraft,
  type Cells,
  type ConflictCell,
  type DraftAction,
  type DraftConfig,
  type DraftState,
  type DraftView,
  type GridRow,
} from "../models/draft";

/** A change made as one action: `commit()` makes it one step of the undo history. */
export interface DraftChange<Stored> {
  set: (row: GridRow<Stored>, cells: Cells) => void;
  append: (cells?: Cells) => GridRow<Stored>;
  remove: (row: GridRow<Stored>) => void;
  current: (row: GridRow<Stored>) => GridRow<Stored>;
  /** Records the change (one undo step named `label`, or `as` when the count is known only now) and shows it. */
  commit: (as?: string) => void;
}

/** The draft of a grid (models/draft.ts) as its components use it: the rows shown, and the actions that change them. */
export interface GridDraft<Stored> extends DraftView<Stored> {
  keyField?: string;
  isDirty: (row: GridRow<Stored>) => boolean;
  /** The stored cells of a row (empty for a new one): what an edit is compared with. */
  storedCellsOf: (row: GridRow<Stored>) => Cells | undefined;
  change: (label: string) => DraftChange<Stored>;
  undoLabel?: string;
  redoLabel?: string;
  /** Takes the last step back (or forward again): the ids of the rows it touched, or undefined when there is none. */
  undo: () => string[] | undefined;
  redo: () => string[] | undefined;
  adopt: (row: GridRow<Stored>, stored: Stored) => void;
  serverErrorOf: (row: GridRow<Stored>) => string | undefined;
  setServerError: (row: GridRow<Stored>, message: string) => void;
  /** The rows the server took: their edits are dropped (the stored data is reloaded by the caller), and so is the undo history. */
  settle: (saved: GridRow<Stored>[]) => void;
  /** Drops every unsaved edit, shown or not, as one undo step (Undo brings them all back): how many rows it dropped. */
  discard: () => number;
  /** Stored items changed elsewhere (live updates): local edits stay over them, conflicting cells are marked. */
  receive: (items: readonly Stored[]) => void;
  /** The cells of a row where a change from outside differs from the edit kept here. */
  conflictsOf: (row: GridRow<Stored>) => ReadonlySet<string> | undefined;
  /** Keeps the edits of these cells over the other side's values (keeping theirs is an edit: `change`). */
  keepMine: (cells: readonly ConflictCell[]) => void;
  /** How many times the draft changed so far: what a status line about the last action keeps, to be shown only until the next change. */
  editCount: () => number;
  refresh: () => void;
}

/**
 * The unsaved state of a grid over `items` (the rows the view shows), each item's cells by `cellsOf`.
 * The state lives in a ref and each action reduces it at once, so what a caller reads right after
 * (a save's note keeping the count of changes) is current; the rows are drawn again on `refresh`, which
 * settling, adopting and the server's errors leave to the caller (a save shows its rows once reloaded).
 */
export function useGridDraft<Stored>(
  items: Stored[],
  idOf: (item: Stored) => string,
  cellsOf: (item: Stored) => Cells,
  fields: readonly string[],
  { keyField }: { keyField?: string } = {},
): GridDraft<Stored> {
  const store = useRef<DraftState<Stored>>(emptyDraft());
  const [revision, refresh] = useReducer((n: number) => n + 1, 0);
  const config = useMemo<DraftConfig<Stored>>(() => ({ idOf, cellsOf, fields, keyField }), [idOf, cellsOf, fields, keyField]);
  // biome-ignore lint/correctness/useExhaustiveDependencies(revision): the state changes in its ref; a new revision is what recomputes the rows.
  return useMemo(() => {
    const apply = (action: DraftAction<Stored>) => {
      store.current = reduceDraft(config, store.current, action);
    };
    const dispatch = (action: DraftAction<Stored>) => {
      apply(action);
      refresh();
    };
    const step = (which: "undo" | "redo") => {
      const last = store.current[which].at(-1);
      if (!last) return undefined;
      dispatch({ type: which });
      return last.changes.map((change) => change.id);
    };
    const state = store.current;
    return {
      ...draftView(config, state, items),
      keyField,
      isDirty: (row) => store.current.pending.has(row.id),
      storedCellsOf: (row) => (row.stored ? cellsOf(row.stored) : undefined),
      change: (label) => {
        const change = beginChange(config, store.current);
        return {
          ...change,
          commit: (as = label) => dispatch(change.action(as)),
        };
      },
      undoLabel: state.undo.at(-1)?.label,
      redoLabel: state.redo.at(-1)?.label,
      undo: () => step("undo"),
      redo: () => step("redo"),
      adopt: (row, stored) => apply({ type: "adopt", id: row.id, stored }),
      serverErrorOf: (row) => store.current.serverErrors.get(row.id),
      setServerError: (row, message) => apply({ type: "serverError", id: row.id, message }),
      settle: (saved) => apply({ type: "settle", ids: saved.map((row) => row.id) }),
      discard: () => {
        const dropped = store.current.pending.size;
        dispatch({ type: "discard" });
        return dropped;
      },
      receive: (items) => dispatch({ type: "remote", items }),
      conflictsOf: (row) => store.current.conflicts.get(row.id),
      keepMine: (cells) => dispatch({ type: "keepMine", cells }),
      editCount: () => store.current.edits,
      refresh,
    };
  }, [items, revision, config, keyField, cellsOf]);
}
