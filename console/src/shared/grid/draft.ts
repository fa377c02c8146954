import { useMemo, useReducer, useRef } from "react";
import { plural } from "../format";

/**
 * The unsaved state of a grid: the edits of stored rows and the rows added, by row id (never by
 * place), with the server's errors and the undo history. Because nothing here depends on where a
 * row stands, edits, undo and redo survive a new sort or filter: an edit of a row the current view
 * does not show stays an unsaved edit, is saved with the others, and comes back with the row.
 */

/** A row's cells as typed, by column key. */
export type Cells = Readonly<Record<string, string>>;

/** A row as the grid shows it: `stored` is what the server holds (absent for a new row), `cells` what is typed. */
export interface GridRow<Stored> {
  id: string;
  stored?: Stored;
  cells: Cells;
}

/** A row's unsaved state: an edit of a stored row, or a row added in the grid (`added`), in the order added (`seq`). */
interface Pending<Stored> {
  stored?: Stored;
  cells: Cells;
  added: boolean;
  seq: number;
}

/** One undoable action (an edit, a paste, a fill, a replace): each row it touched, before and after. */
interface Step<Stored> {
  label: string;
  changes: { id: string; before?: Pending<Stored>; after?: Pending<Stored> }[];
}

/** A batch of changes made as one action: `commit()` makes it one step of the undo history. */
export interface DraftChange<Stored> {
  /** The row's cells become `cells` (an edit equal to the stored values is no edit). */
  set: (row: GridRow<Stored>, cells: Cells) => void;
  /** A new row at the end, with `cells` (empty when not given): its id. */
  append: (cells?: Cells) => GridRow<Stored>;
  /** Drops a row added in the grid. */
  remove: (row: GridRow<Stored>) => void;
  /** The row as this change left it so far (a paste writing one row twice sees its first write). */
  current: (row: GridRow<Stored>) => GridRow<Stored>;
  /** Records the change (one undo step named `label`, or `as` when the count is known only now) and shows it; answers how many rows it touched. */
  commit: (as?: string) => number;
}

export interface GridDraft<Stored> {
  /** The rows shown: the view's stored rows (with their edits), then the rows added. */
  rows: GridRow<Stored>[];
  /** The column holding a row's key (a line's variant): no two rows share one. */
  keyField?: string;
  /** The row whose key cell holds `key` (trimmed), shown or not. */
  rowOfKey: (key: string) => GridRow<Stored> | undefined;
  /** Every unsaved row, shown or not: the shown ones first, in the grid's order. */
  dirtyRows: GridRow<Stored>[];
  /** Unsaved rows the current view does not show (outside its filter). */
  hiddenDirtyCount: number;
  isDirty: (row: GridRow<Stored>) => boolean;
  /** Rows appended after the stored ones (new rows). */
  addedCount: number;
  /** The stored cells of a row (empty for a new one): what an edit is compared with. */
  storedCellsOf: (row: GridRow<Stored>) => Cells | undefined;
  /** Starts a change made as one action (one undo step). */
  change: (label: string) => DraftChange<Stored>;
  undoLabel?: string;
  redoLabel?: string;
  /** Takes the last step back (or forward again): the ids of the rows it touched, or undefined when there is none. */
  undo: () => string[] | undefined;
  redo: () => string[] | undefined;
  /**
   * A row added in the grid turns out to be stored already (the server knows its key): it becomes an
   * edit of that stored item, keeping only the cells typed in it (empty cells take the stored values).
   */
  adopt: (row: GridRow<Stored>, stored: Stored) => void;
  serverErrorOf: (row: GridRow<Stored>) => string | undefined;
  setServerError: (row: GridRow<Stored>, message: string) => void;
  /** The rows the server took: their edits are dropped (the stored data is reloaded by the caller), and so is the undo history. */
  settle: (saved: GridRow<Stored>[]) => void;
  /** Drops every unsaved edit, shown or not, as one undo step (Undo brings them all back): how many rows it dropped. */
  discard: () => number;
  /**
   * How many times the draft changed so far (an edit, an undo, a discard, a save): what a status line
   * about the last action keeps, to be shown only until the next change.
   */
  editCount: () => number;
  refresh: () => void;
}

const sameCells = (a: Cells, b: Cells) => Object.keys(a).every((key) => a[key] === b[key]);

/** An empty row of `fields`. */
export const emptyCells = (fields: readonly string[]): Cells => Object.fromEntries(fields.map((field) => [field, ""]));

/** The unsaved state of a grid over `items` (the rows the view shows), each item's cells by `cellsOf`. */
export function useGridDraft<Stored>(
  items: Stored[],
  idOf: (item: Stored) => string,
  cellsOf: (item: Stored) => Cells,
  fields: readonly string[],
  { keyField }: { keyField?: string } = {},
): GridDraft<Stored> {
  const state = useRef({
    pending: new Map<string, Pending<Stored>>(),
    serverErrors: new Map<string, string>(),
    undo: [] as Step<Stored>[],
    redo: [] as Step<Stored>[],
    seq: 0,
    edits: 0,
  }).current;
  const [revision, refresh] = useReducer((n: number) => n + 1, 0);
  // biome-ignore lint/correctness/useExhaustiveDependencies(revision): the draft is changed in place (state); a new revision is what recomputes the rows.
  return useMemo(() => {
    const { pending } = state;
    const shownIds = new Set<string>();
    const rowOf = (id: string, entry: Pending<Stored>): GridRow<Stored> => ({ id, stored: entry.stored, cells: entry.cells });
    const storedRows = items.map((item): GridRow<Stored> => {
      const id = idOf(item);
      shownIds.add(id);
      const entry = pending.get(id);
      return entry ? rowOf(id, entry) : { id, stored: item, cells: cellsOf(item) };
    });
    const addedRows: GridRow<Stored>[] = [];
    const hiddenRows: GridRow<Stored>[] = [];
    for (const [id, entry] of [...pending].sort(([, a], [, b]) => a.seq - b.seq)) {
      if (entry.added) addedRows.push(rowOf(id, entry));
      else if (!shownIds.has(id)) hiddenRows.push(rowOf(id, entry));
    }
    const rows = storedRows.concat(addedRows);
    const isDirty = (row: GridRow<Stored>) => pending.has(row.id);
    const keyOf = (row: GridRow<Stored>) => (keyField === undefined ? "" : (row.cells[keyField] ?? "").trim());
    const byKey = new Map<string, GridRow<Stored>>();
    if (keyField !== undefined) for (const row of [...hiddenRows, ...rows]) if (keyOf(row)) byKey.set(keyOf(row), row);

    const storedCellsOf = (row: GridRow<Stored>) => (row.stored ? cellsOf(row.stored) : undefined);
    /** The state a row's cells make: no edit when they are the stored ones. */
    const entryFor = (entry: Pending<Stored> | undefined, stored: Stored | undefined, cells: Cells): Pending<Stored> | undefined => {
      if (entry?.added) return { ...entry, cells };
      if (stored && sameCells(cells, cellsOf(stored))) return undefined;
      return { stored, cells, added: false, seq: entry?.seq ?? ++state.seq };
    };
    const apply = (step: Step<Stored>, side: "before" | "after") => {
      const changes = side === "before" ? [...step.changes].reverse() : step.changes;
      for (const change of changes) {
        const entry = change[side];
        if (entry) pending.set(change.id, entry);
        else pending.delete(change.id);
        state.serverErrors.delete(change.id);
      }
      state.edits++;
      refresh();
      return step.changes.map((change) => change.id);
    };

    return {
      rows,
      keyField,
      rowOfKey: (key) => byKey.get(key),
      dirtyRows: rows.filter(isDirty).concat(hiddenRows),
      hiddenDirtyCount: hiddenRows.length,
      isDirty,
      addedCount: addedRows.length,
      storedCellsOf,
      change: (label) => {
        const touched = new Map<string, { before?: Pending<Stored> }>();
        const write = (id: string, next: Pending<Stored> | undefined) => {
          if (!touched.has(id)) touched.set(id, { before: pending.get(id) });
          if (next) pending.set(id, next);
          else pending.delete(id);
          state.serverErrors.delete(id);
        };
        const current = (row: GridRow<Stored>) => {
          const entry = pending.get(row.id);
          return entry ? rowOf(row.id, entry) : row.id.startsWith("new-") ? row : { ...row, cells: row.stored ? cellsOf(row.stored) : row.cells };
        };
        return {
          set: (row, cells) => write(row.id, entryFor(pending.get(row.id), row.stored, cells)),
          append: (cells = emptyCells(fields)) => {
            const id = `new-${crypto.randomUUID()}`;
            write(id, { cells, added: true, seq: ++state.seq });
            return { id, cells };
          },
          remove: (row) => write(row.id, undefined),
          current,
          commit: (as = label) => {
            const changes = [...touched].map(([id, { before }]) => ({ id, before, after: pending.get(id) })).filter(({ before, after }) => before !== after);
            if (changes.length) {
              state.undo.push({ label: as, changes });
              state.redo.length = 0;
              state.edits++;
            }
            refresh();
            return changes.length;
          },
        };
      },
      undoLabel: state.undo.at(-1)?.label,
      redoLabel: state.redo.at(-1)?.label,
      undo: () => {
        const step = state.undo.pop();
        if (!step) return undefined;
        state.redo.push(step);
        return apply(step, "before");
      },
      redo: () => {
        const step = state.redo.pop();
        if (!step) return undefined;
        state.undo.push(step);
        return apply(step, "after");
      },
      adopt: (row, stored) => {
        const entry = pending.get(row.id);
        if (!entry) return;
        const storedCells = cellsOf(stored);
        const cells = Object.fromEntries(Object.entries(entry.cells).map(([field, value]) => [field, value.trim() === "" ? storedCells[field] : value]));
        pending.set(row.id, { ...entry, stored, cells });
        state.edits++;
      },
      serverErrorOf: (row) => state.serverErrors.get(row.id),
      setServerError: (row, message) => void state.serverErrors.set(row.id, message),
      settle: (saved) => {
        for (const row of saved) pending.delete(row.id);
        state.undo.length = 0;
        state.redo.length = 0;
        state.edits++;
      },
      discard: () => {
        const changes = [...pending].map(([id, before]) => ({ id, before, after: undefined }));
        pending.clear();
        state.serverErrors.clear();
        if (changes.length) {
          state.undo.push({ label: `Discard (${plural(changes.length, "row")})`, changes });
          state.redo.length = 0;
        }
        state.edits++;
        refresh();
        return changes.length;
      },
      editCount: () => state.edits,
      refresh,
    };
  }, [items, revision, state, fields, keyField, idOf, cellsOf]);
}
