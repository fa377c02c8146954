import { useState, type RefObject } from "react";
import type { Refusal } from "../../session";
import type { DataGridHandle } from "./handle";
import { ChunkRefused, describePartialSave, putInChunks, type ChunkedPut, type Counts } from "../models/chunkedSave";
import type { GridRow } from "../models/draft";
import { invalidRowsText } from "../models/invalidRows";
import type { GridDraft } from "./useGridDraft";
import { t } from "../../i18n";

export interface BatchSaveOptions<Stored, Result extends Counts> extends ChunkedPut<GridRow<Stored>, Result> {
  draft: GridDraft<Stored>;
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
      said = t("grid.saved", { outcome: describe(await putInChunks(rows, false, options)) });
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
    // A cell someone else changed meanwhile is saved over theirs only once the person said so.
    const conflicts = draft.conflicts.reduce((count, { fields }) => count + fields.length, 0);
    if (conflicts) {
      setNote(t("grid.saveConflicts", { count: conflicts }));
      return;
    }
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
        setNote(t("grid.dryRun", { outcome: describe(counts) }));
      }
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setRefusal(error.refusal);
      setNote(t("grid.dryRunErrors"));
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
