import { useState, type RefObject } from "react";
import { toRefusal, type Refusal } from "../session";
import type { DataGridHandle } from "./DataGrid";
import type { GridDraft, GridRow } from "./draft";
import { invalidRowsText } from "./invalidRows";

/**
 * How a grid's unsaved rows reach a bulk PUT that takes at most `size` rows a call (the API's limit),
 * for the lines grid and the rules grid alike: in chunks, a dry run of every chunk before any is
 * saved, so a refusal in the last chunk leaves nothing half saved; the server's errors[] land on
 * their rows; a commit refused midway says exactly which rows were saved.
 */

/** The counts a bulk PUT answers (created, updated, …), added up over the chunks. */
export type Counts = Record<string, number>;

interface ErrorItem {
  index?: number;
  field?: string;
  message?: string;
}

/** A chunk the server refused: its refusal, and the rows the chunks before it saved (none in a dry run). */
export class ChunkRefused<Row> {
  constructor(
    readonly refusal: Refusal,
    readonly saved: Row[],
  ) {}
}

export interface ChunkedPut<Stored, Result extends Counts> {
  draft: GridDraft<Stored>;
  /** Rows per call: the API's limit. */
  size: number;
  put: (rows: GridRow<Stored>[], dryRun: boolean) => Promise<Result>;
  /** The text a row shows for an item of the server's errors[] (by default its message). */
  messageOf?: (item: ErrorItem, refusal: Refusal) => string;
}

/**
 * Sends `rows` chunk after chunk and adds up the counts. A saved chunk is settled at once (its rows are
 * no longer unsaved edits); a refused chunk puts the server's errors[] on its rows and throws a
 * ChunkRefused naming the rows saved before it.
 */
export async function putInChunks<Stored, Result extends Counts>(rows: GridRow<Stored>[], dryRun: boolean, call: ChunkedPut<Stored, Result>): Promise<Result> {
  const { draft, size, put, messageOf = (item, refusal) => item.message ?? refusal.problem.code } = call;
  let totals: Result | undefined;
  for (let offset = 0; offset < rows.length; offset += size) {
    const chunk = rows.slice(offset, offset + size);
    let counts: Result;
    try {
      counts = await put(chunk, dryRun);
    } catch (error) {
      const refusal = toRefusal(error);
      for (const item of (refusal.problem as { errors?: ErrorItem[] }).errors ?? []) {
        const row = item.index === undefined ? undefined : chunk[item.index];
        if (row) draft.setServerError(row, messageOf(item, refusal));
      }
      draft.refresh();
      throw new ChunkRefused(refusal, dryRun ? [] : rows.slice(0, offset));
    }
    if (!dryRun) draft.settle(chunk);
    totals = totals ? (Object.fromEntries(Object.entries(totals).map(([name, n]) => [name, n + (counts[name] ?? 0)])) as Result) : counts;
  }
  return totals!;
}

/**
 * What a commit refused midway saved, exactly: how many of the rows sent (and which, by `labelOf`,
 * in the grid's order), and that the rest stay as unsaved edits.
 */
export function describePartialSave<Row>(refused: ChunkRefused<Row>, sent: number, what: string, labelOf: (row: Row) => string): string {
  const { saved } = refused;
  const kept = sent - saved.length;
  if (!saved.length) return `Nothing was saved: the server refused the first ${what} sent; all ${sent} stay as unsaved edits.`;
  return (
    `Partly saved: the first ${saved.length} of the ${sent} changed ${what} were saved (${labelOf(saved[0])} to ${labelOf(saved[saved.length - 1])}, in the grid's order); ` +
    `the server then refused the next ${kept === 1 ? "one, which stays as an unsaved edit" : `${kept}, which stay as unsaved edits`}, marked in the grid.`
  );
}

export interface BatchSaveOptions<Stored, Result extends Counts> extends ChunkedPut<Stored, Result> {
  grid: RefObject<DataGridHandle | null>;
  /** A row's errors by column key, as the server would refuse them (checked before anything is sent). */
  errorsOf: (row: GridRow<Stored>) => Map<string, string>;
  /** What the rows are ("lines", "rules"), and how one is named in a sentence. */
  what: string;
  labelOf: (row: GridRow<Stored>) => string;
  /** The counts in words ("2 created, 1 updated"). */
  describe: (counts: Result) => string;
  /** `immediate`: Save commits right after its dry run passed; `apply`: the dry run's counts show first, with an Apply button. */
  confirm: "immediate" | "apply";
  /**
   * After the dry run passed, before the commit: a sentence saying why not to commit yet (the rows
   * changed meanwhile and must be checked by the person), or null to go on.
   */
  afterDryRun?: (counts: Result, rows: GridRow<Stored>[]) => Promise<string | null>;
  /** Reads the stored rows again (the grid shows them before it says what was saved). */
  reload: () => Promise<unknown>;
  /** Anything else to do once something was saved. */
  onSaved?: () => void;
}

export interface BatchSave<Result extends Counts> {
  busy: boolean;
  /** What the last check, save, paste or discard did, in a sentence: shown until the next change of the draft. */
  note: string | null;
  setNote: (note: string | null) => void;
  refusal: Refusal | null;
  /** The dry run's counts while they are waiting for Apply (`confirm: "apply"`). */
  checked: Result | null;
  /** Checks every unsaved row by a dry run, then (`immediate`) saves them. */
  save: () => Promise<void>;
  /** Saves the rows the dry run checked (checks again if they changed since). */
  apply: () => Promise<void>;
  /** Forgets the last check and its note (the edits changed, or were discarded). */
  reset: () => void;
}

/** The Save (or Check, then Apply) of a grid's unsaved rows, shared by the lines grid and the rules grid. */
export function useBatchSave<Stored, Result extends Counts>(options: BatchSaveOptions<Stored, Result>): BatchSave<Result> {
  const { draft, grid, errorsOf, what, labelOf, describe, confirm, afterDryRun, reload, onSaved } = options;
  const [busy, setBusy] = useState(false);
  // A note says what the last action did: an edit made since makes it old news, so it is kept with the draft's count of changes then.
  const [said, setSaid] = useState<{ text: string; edits: number } | null>(null);
  const setNote = (text: string | null) => setSaid(text === null ? null : { text, edits: draft.editCount() });
  const note = said && said.edits === draft.editCount() ? said.text : null;
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [checked, setChecked] = useState<{ counts: Result; rows: GridRow<Stored>[]; signature: string } | null>(null);
  const signatureOf = (rows: GridRow<Stored>[]) => JSON.stringify(rows.map((row) => [row.id, row.cells]));

  const commit = async (rows: GridRow<Stored>[]) => {
    let said: string;
    try {
      said = `Saved: ${describe(await putInChunks(rows, false, options))}.`;
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setRefusal(error.refusal);
      said = describePartialSave(error, rows.length, what, labelOf);
    }
    // The grid shows the stored rows again before it says what was saved.
    await reload();
    draft.refresh();
    setNote(said);
    onSaved?.();
  };

  const save = async () => {
    const dirty = draft.dirtyRows;
    setRefusal(null);
    setChecked(null);
    const invalid = dirty.flatMap((row) => {
      const errors = errorsOf(row);
      return errors.size ? [{ row, errors, place: draft.rows.findIndex((shown) => shown.id === row.id) }] : [];
    });
    if (invalid.length) {
      setNote(invalidRowsText(invalid.map(({ row, errors, place }) => ({ label: labelOf(row), place, messages: [...errors.values()] }))));
      // The first one shown is brought into view and focused, its reason said under its cell.
      const first = invalid.find(({ place }) => place >= 0);
      if (first) grid.current?.moveTo(first.place, [...first.errors.keys()][0], { focus: true });
      return;
    }
    setBusy(true);
    setNote(null);
    try {
      const counts = await putInChunks(dirty, true, options);
      const stop = afterDryRun ? await afterDryRun(counts, dirty) : null;
      if (stop) setNote(stop);
      else if (confirm === "immediate") await commit(dirty);
      else {
        setChecked({ counts, rows: dirty, signature: signatureOf(dirty) });
        setNote(`Dry run: ${describe(counts)}. Nothing is saved yet.`);
      }
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setRefusal(error.refusal);
      setNote(`Not saved: the dry run found errors, marked on their rows; nothing was saved.`);
    } finally {
      draft.refresh();
      setBusy(false);
    }
  };

  const apply = async () => {
    if (!checked) return;
    // Cells changed since the dry run: check again rather than save what was not checked.
    if (signatureOf(draft.dirtyRows) !== checked.signature) return save();
    setBusy(true);
    setChecked(null);
    try {
      await commit(checked.rows);
    } finally {
      setBusy(false);
    }
  };

  return {
    busy,
    note,
    setNote,
    refusal,
    checked: checked?.counts ?? null,
    save,
    apply,
    reset: () => {
      setChecked(null);
      setRefusal(null);
      setNote(null);
    },
  };
}
