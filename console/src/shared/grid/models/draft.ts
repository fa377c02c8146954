import { t } from "../../i18n";

/**
 * The unsaved state of a grid as plain data and a reducer: the edits of stored rows and the rows
 * added, by row id (never by place), with the server's errors, the cells where a change from outside
 * met a local edit, and the undo history. Because nothing here depends on where a row stands, edits,
 * undo and redo survive a new sort or filter: an edit of a row the current view does not show stays
 * an unsaved edit, is saved with the others, and comes back with the row.
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
export interface Pending<Stored> {
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

export interface DraftState<Stored> {
  readonly pending: ReadonlyMap<string, Pending<Stored>>;
  readonly serverErrors: ReadonlyMap<string, string>;
  /** By row id, the cells where a change from outside differs from the local edit kept over it. */
  readonly conflicts: ReadonlyMap<string, ReadonlySet<string>>;
  readonly undo: readonly Step<Stored>[];
  readonly redo: readonly Step<Stored>[];
  readonly seq: number;
  /** How many times the draft changed (an edit, an undo, a discard, a save, a change from outside). */
  readonly edits: number;
}

/** How a grid's stored items become rows. */
export interface DraftConfig<Stored> {
  idOf: (item: Stored) => string;
  cellsOf: (item: Stored) => Cells;
  fields: readonly string[];
  /** The column holding a row's key (a line's variant): no two rows share one. */
  keyField?: string;
}

export type DraftAction<Stored> =
  /** A change made as one action (`beginChange`): one undo step named `label`. */
  | { type: "commit"; label: string; writes: ReadonlyMap<string, Pending<Stored> | undefined>; seq: number }
  | { type: "undo" }
  | { type: "redo" }
  /** A row added in the grid is stored already: it becomes an edit of `stored`, keeping only the cells typed in it. */
  | { type: "adopt"; id: string; stored: Stored }
  | { type: "serverError"; id: string; message: string }
  /** The server took these rows: their edits go, and so does the undo history. */
  | { type: "settle"; ids: readonly string[] }
  /** Every unsaved edit dropped, as one undo step. */
  | { type: "discard" }
  /**
   * Stored items changed elsewhere (a colleague's save, live totals): a row edited here keeps its
   * edited cells over the new values and takes the others; a cell both sides changed differently is a
   * conflict. A row without an edit needs nothing: it shows the items as they are.
   */
  | { type: "remote"; items: readonly Stored[] }
  /** The person keeps the local edits of these cells over the other side's values: no conflict any more (Save saves them). Keeping theirs is an edit. */
  | { type: "keepMine"; cells: readonly ConflictCell[] };

/** A cell of a row where a change from outside met a local edit. */
export interface ConflictCell {
  id: string;
  field: string;
}

export const emptyDraft = <Stored>(): DraftState<Stored> => ({
  pending: new Map(),
  serverErrors: new Map(),
  conflicts: new Map(),
  undo: [],
  redo: [],
  seq: 0,
  edits: 0,
});

const sameCells = (a: Cells, b: Cells) => Object.keys(a).every((key) => a[key] === b[key]);

/** Two states of a row that show and save the same (a cell written with the value it had). */
const sameEntry = <Stored>(a: Pending<Stored> | undefined, b: Pending<Stored> | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.stored === b.stored && a.added === b.added && sameCells(a.cells, b.cells) && sameCells(b.cells, a.cells));

/** An empty row of `fields`. */
export const emptyCells = (fields: readonly string[]): Cells => Object.fromEntries(fields.map((field) => [field, ""]));

const without = <K, V>(map: ReadonlyMap<K, V>, keys: Iterable<K>) => {
  const copy = new Map(map);
  for (const key of keys) copy.delete(key);
  return copy;
};

/**
 * The conflicts left once rows changed (`changes`): each stays until its cell is written here, or
 * holds what the other side has (the row back to its stored values, an undo to the same value).
 */
function conflictsAfter<Stored>(
  config: DraftConfig<Stored>,
  conflicts: DraftState<Stored>["conflicts"],
  changes: readonly { id: string; before?: Pending<Stored>; after?: Pending<Stored> }[],
): DraftState<Stored>["conflicts"] {
  const left = new Map(conflicts);
  for (const { id, before, after } of changes) {
    const open = conflicts.get(id);
    if (!open) continue;
    const theirs = after?.stored ? config.cellsOf(after.stored) : undefined;
    const still = [...open].filter((field) => theirs && after && after.cells[field] === before?.cells[field] && after.cells[field] !== theirs[field]);
    if (still.length) left.set(id, new Set(still));
    else left.delete(id);
  }
  return left;
}

/** The pending entries a step leaves on one side, applied to `pending`. */
function applyStep<Stored>(config: DraftConfig<Stored>, state: DraftState<Stored>, step: Step<Stored>, side: "before" | "after"): DraftState<Stored> {
  const pending = new Map(state.pending);
  const changes = [];
  for (const change of side === "before" ? [...step.changes].reverse() : step.changes) {
    const entry = change[side];
    changes.push({ id: change.id, before: state.pending.get(change.id), after: entry });
    if (entry) pending.set(change.id, entry);
    else pending.delete(change.id);
  }
  const ids = step.changes.map((change) => change.id);
  return {
    ...state,
    pending,
    serverErrors: without(state.serverErrors, ids),
    conflicts: conflictsAfter(config, state.conflicts, changes),
    edits: state.edits + 1,
  };
}

/**
 * An edit kept over a stored item that changed to `now`: the cells not edited here take the new
 * values, the edited ones stay; `conflicts` collects the edited cells the new values differ from.
 */
function rebase<Stored>(config: DraftConfig<Stored>, entry: Pending<Stored>, now: Stored, conflicts?: Set<string>): Pending<Stored> | undefined {
  const was = entry.stored ? config.cellsOf(entry.stored) : {};
  const theirs = config.cellsOf(now);
  const cells: Record<string, string> = { ...entry.cells };
  for (const [key, value] of Object.entries(theirs)) {
    const mine = entry.cells[key];
    if (mine === undefined || mine === was[key]) cells[key] = value;
    else if (value !== was[key] && value !== mine) conflicts?.add(key);
  }
  return sameCells(cells, theirs) ? undefined : { ...entry, stored: now, cells };
}

/**
 * Stored items changed elsewhere: each row edited here moves onto its new values (rebase), its
 * history too (undoing an edit made before never brings back what the other side replaced). One
 * pass for many items: a change of 500 lines costs one copy of the state, not 500.
 */
function receiveRemote<Stored>(config: DraftConfig<Stored>, state: DraftState<Stored>, items: readonly Stored[]): DraftState<Stored> {
  const pending = new Map(state.pending);
  const conflicts = new Map(state.conflicts);
  const moved = new Map<string, Stored>();
  for (const item of items) {
    const id = config.idOf(item);
    const entry = pending.get(id);
    if (!entry || entry.added) continue;
    const theirs = config.cellsOf(item);
    // Told twice (sent with the change, then read again): nothing new, and the conflicts found the first time stay.
    if (entry.stored && sameCells(theirs, config.cellsOf(entry.stored))) continue;
    // A conflict stays until the person answers it, or until both sides hold the same value.
    const found = new Set(conflicts.get(id));
    const next = rebase(config, entry, item, found);
    if (next) pending.set(id, next);
    else pending.delete(id);
    const open = next ? [...found].filter((field) => next.cells[field] !== theirs[field]) : [];
    if (open.length) conflicts.set(id, new Set(open));
    else conflicts.delete(id);
    moved.set(id, item);
  }
  if (!moved.size) return state;
  const rebaseIn = (steps: readonly Step<Stored>[]) =>
    steps.map((step) =>
      step.changes.some((change) => moved.has(change.id))
        ? {
            ...step,
            changes: step.changes.map((change) => {
              const now = moved.get(change.id);
              if (!now) return change;
              const { id, before, after } = change;
              return {
                id,
                before: before && !before.added ? rebase(config, before, now) : before,
                after: after && !after.added ? rebase(config, after, now) : after,
              };
            }),
          }
        : step,
    );
  return { ...state, pending, conflicts, undo: rebaseIn(state.undo), redo: rebaseIn(state.redo), edits: state.edits + 1 };
}

export function reduceDraft<Stored>(config: DraftConfig<Stored>, state: DraftState<Stored>, action: DraftAction<Stored>): DraftState<Stored> {
  switch (action.type) {
    case "commit": {
      const changes = [...action.writes]
        .map(([id, after]) => ({ id, before: state.pending.get(id), after }))
        .filter(({ before, after }) => !sameEntry(before, after));
      // A row written is the person's answer to what the server said of it, and a cell written to what the other side did.
      const written = { serverErrors: without(state.serverErrors, action.writes.keys()), conflicts: conflictsAfter(config, state.conflicts, changes) };
      if (!changes.length) return { ...state, ...written, seq: action.seq };
      const pending = new Map(state.pending);
      for (const { id, after } of changes) {
        if (after) pending.set(id, after);
        else pending.delete(id);
      }
      return {
        ...state,
        pending,
        ...written,
        undo: [...state.undo, { label: action.label, changes }],
        redo: [],
        seq: action.seq,
        edits: state.edits + 1,
      };
    }
    case "undo": {
      const step = state.undo.at(-1);
      if (!step) return state;
      return { ...applyStep(config, state, step, "before"), undo: state.undo.slice(0, -1), redo: [...state.redo, step] };
    }
    case "redo": {
      const step = state.redo.at(-1);
      if (!step) return state;
      return { ...applyStep(config, state, step, "after"), redo: state.redo.slice(0, -1), undo: [...state.undo, step] };
    }
    case "adopt": {
      const entry = state.pending.get(action.id);
      if (!entry) return state;
      const storedCells = config.cellsOf(action.stored);
      const cells = Object.fromEntries(Object.entries(entry.cells).map(([field, value]) => [field, value.trim() === "" ? storedCells[field] : value]));
      return { ...state, pending: new Map(state.pending).set(action.id, { ...entry, stored: action.stored, cells }), edits: state.edits + 1 };
    }
    case "serverError":
      return { ...state, serverErrors: new Map(state.serverErrors).set(action.id, action.message) };
    case "settle":
      return {
        ...state,
        pending: without(state.pending, action.ids),
        conflicts: without(state.conflicts, action.ids),
        undo: [],
        redo: [],
        edits: state.edits + 1,
      };
    case "discard": {
      const changes = [...state.pending].map(([id, before]) => ({ id, before, after: undefined }));
      return {
        ...state,
        pending: new Map(),
        serverErrors: new Map(),
        conflicts: new Map(),
        ...(changes.length && { undo: [...state.undo, { label: t("grid.discardStep", { count: changes.length }), changes }], redo: [] }),
        edits: state.edits + 1,
      };
    }
    case "remote":
      return receiveRemote(config, state, action.items);
    case "keepMine": {
      const conflicts = new Map(state.conflicts);
      for (const { id, field } of action.cells) {
        const left = new Set(conflicts.get(id));
        left.delete(field);
        if (left.size) conflicts.set(id, left);
        else conflicts.delete(id);
      }
      return { ...state, conflicts, edits: state.edits + 1 };
    }
  }
}

/** A change being made as one action: what it wrote so far, over the state it started from. */
export interface DraftChange<Stored> {
  /** The row's cells become `cells` (an edit equal to the stored values is no edit). */
  set: (row: GridRow<Stored>, cells: Cells) => void;
  /** A new row at the end, with `cells` (empty when not given). */
  append: (cells?: Cells) => GridRow<Stored>;
  /** Drops a row added in the grid. */
  remove: (row: GridRow<Stored>) => void;
  /** The row as this change left it so far (a paste writing one row twice sees its first write). */
  current: (row: GridRow<Stored>) => GridRow<Stored>;
  /** The action that records it (one undo step named `label`). */
  action: (label: string) => DraftAction<Stored>;
}

export function beginChange<Stored>(
  config: DraftConfig<Stored>,
  state: DraftState<Stored>,
  newId: () => string = () => `new-${crypto.randomUUID()}`,
): DraftChange<Stored> {
  const writes = new Map<string, Pending<Stored> | undefined>();
  let seq = state.seq;
  const entryOf = (id: string) => (writes.has(id) ? writes.get(id) : state.pending.get(id));
  /** The state a row's cells make: no edit when they are the stored ones. */
  const entryFor = (entry: Pending<Stored> | undefined, stored: Stored | undefined, cells: Cells): Pending<Stored> | undefined => {
    if (entry?.added) return { ...entry, cells };
    if (stored && sameCells(cells, config.cellsOf(stored))) return undefined;
    return { stored, cells, added: false, seq: entry?.seq ?? ++seq };
  };
  return {
    set: (row, cells) => void writes.set(row.id, entryFor(entryOf(row.id), row.stored, cells)),
    append: (cells = emptyCells(config.fields)) => {
      const id = newId();
      writes.set(id, { cells, added: true, seq: ++seq });
      return { id, cells };
    },
    remove: (row) => void writes.set(row.id, undefined),
    current: (row) => {
      const entry = entryOf(row.id);
      if (entry) return { id: row.id, stored: entry.stored, cells: entry.cells };
      return row.stored ? { ...row, cells: config.cellsOf(row.stored) } : row;
    },
    action: (label) => ({ type: "commit", label, writes, seq }),
  };
}

/** The rows a draft shows over `items` (the view's stored rows, in its order). */
export interface DraftView<Stored> {
  /** The view's stored rows (with their edits), then the rows added. */
  rows: GridRow<Stored>[];
  /** Every unsaved row, shown or not: the shown ones first, in the grid's order. */
  dirtyRows: GridRow<Stored>[];
  /** Unsaved rows the current view does not show (outside its filter). */
  hiddenDirtyCount: number;
  /** Rows appended after the stored ones (new rows). */
  addedCount: number;
  /** The row whose key cell holds `key` (trimmed), shown or not. */
  rowOfKey: (key: string) => GridRow<Stored> | undefined;
  /** The rows where a change from outside met a local edit, shown or not, with those cells (in the order they arose). */
  conflicts: { row: GridRow<Stored>; fields: string[] }[];
}

export function draftView<Stored>(config: DraftConfig<Stored>, state: DraftState<Stored>, items: readonly Stored[]): DraftView<Stored> {
  const { pending } = state;
  const shownIds = new Set<string>();
  const rowOf = (id: string, entry: Pending<Stored>): GridRow<Stored> => ({ id, stored: entry.stored, cells: entry.cells });
  const storedRows = items.map((item): GridRow<Stored> => {
    const id = config.idOf(item);
    shownIds.add(id);
    const entry = pending.get(id);
    return entry ? rowOf(id, entry) : { id, stored: item, cells: config.cellsOf(item) };
  });
  const addedRows: GridRow<Stored>[] = [];
  const hiddenRows: GridRow<Stored>[] = [];
  for (const [id, entry] of [...pending].sort(([, a], [, b]) => a.seq - b.seq)) {
    if (entry.added) addedRows.push(rowOf(id, entry));
    else if (!shownIds.has(id)) hiddenRows.push(rowOf(id, entry));
  }
  const rows = storedRows.concat(addedRows);
  const { keyField } = config;
  const keyOf = (row: GridRow<Stored>) => (keyField === undefined ? "" : (row.cells[keyField] ?? "").trim());
  const byKey = new Map<string, GridRow<Stored>>();
  if (keyField !== undefined) for (const row of [...hiddenRows, ...rows]) if (keyOf(row)) byKey.set(keyOf(row), row);
  return {
    rows,
    dirtyRows: rows.filter((row) => pending.has(row.id)).concat(hiddenRows),
    hiddenDirtyCount: hiddenRows.length,
    addedCount: addedRows.length,
    rowOfKey: (key) => byKey.get(key),
    conflicts: [...state.conflicts].flatMap(([id, fields]) => {
      const entry = pending.get(id);
      return entry ? [{ row: rowOf(id, entry), fields: config.fields.filter((field) => fields.has(field)) }] : [];
    }),
  };
}
