import { useEffect, useId, useRef, useState, type RefObject } from "react";
import { download } from "../csv";
import type { DataGridHandle } from "../grid/hooks/handle";
import type { GridDraft } from "../grid/hooks/useGridDraft";
import { editableCells, type GridColumn } from "../grid/models/columns";
import type { GridRow } from "../grid/models/draft";
import { XLSX_TYPE, type SheetCodec, type SheetTable } from "./sheet";
import { EXCEL_WORDS } from "./words";

/** The workbook's module and the library: a chunk of its own, loaded once an Excel button is pointed at or focused. */
const workbook = () => import("./workbook");
/** Starts loading the library as a person reaches for a button, so that the click finds it loaded. */
const warmUp = { onPointerEnter: () => void workbook(), onFocus: () => void workbook() };

/** `Export Excel`: the table `table()` makes, downloaded as `file` (.xlsx). The library loads on the first click. */
export function ExcelExportButton({
  file,
  sheet,
  table,
  disabled = false,
  onDone,
  onError,
}: {
  file: string;
  sheet: string;
  table: () => SheetTable | Promise<SheetTable>;
  disabled?: boolean;
  onDone: (note: string) => void;
  onError: (error: unknown) => void;
}) {
  const [busy, setBusy] = useState(false);
  const exportTable = async () => {
    setBusy(true);
    try {
      const [made, { writeWorkbook }] = await Promise.all([table(), workbook()]);
      download(file, await writeWorkbook(made, sheet));
      onDone(EXCEL_WORDS.exported(made.rows.length, file));
    } catch (error) {
      onError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    // Busy, it stays focusable (a disabled button would drop the keyboard's focus) and ignores clicks.
    <button type="button" disabled={disabled} aria-busy={busy || undefined} onClick={() => void (busy || exportTable())} {...warmUp}>
      {EXCEL_WORDS.exportButton()}
    </button>
  );
}

/**
 * A grid's `Export Excel` (its rows as shown, unsaved edits included, in the CSV's columns) and, while
 * it may be edited, `Import Excel`: the file's rows go into the draft as one undoable change, each to
 * the row of its key; the grid's checks mark what is wrong cell by cell, the note names the first and
 * the grid goes to it; Save then dry-runs and saves them as any edit.
 */
export function GridExcelTools<Stored>({
  file,
  codec,
  grid: { draft, handle, columns, errorsOf },
  readOnly = false,
  loading,
  onNote,
}: {
  /** The file's name, without .xlsx. */
  file: string;
  codec: SheetCodec<Stored>;
  /** The grid: its draft, its handle (to go to a cell), its columns and its checks of a row. */
  grid: {
    draft: GridDraft<Stored>;
    handle: RefObject<DataGridHandle | null>;
    columns: readonly GridColumn[];
    errorsOf: (row: GridRow<Stored>) => Map<string, string>;
  };
  readOnly?: boolean;
  /** While the grid's rows load: an import would take every row for a new one. */
  loading: boolean;
  onNote: (note: string) => void;
}) {
  const picker = useRef<HTMLInputElement>(null);
  const hintId = useId();
  const [busy, setBusy] = useState(false);
  // The first cell to fix, gone to once the grid shows the imported rows.
  const [fixFirst, setFixFirst] = useState<{ id: string; key: string } | null>(null);
  useEffect(() => {
    if (!fixFirst) return;
    const place = draft.rows.findIndex((row) => row.id === fixFirst.id);
    if (place >= 0) handle.current?.moveTo(place, fixFirst.key, { focus: true });
    setFixFirst(null);
  }, [fixFirst, draft.rows, handle]);

  const importFile = async (picked: File) => {
    const { readSheet, importSheetRows } = await workbook();
    const read = await readSheet(await picked.arrayBuffer(), codec);
    if ("problem" in read) return onNote(EXCEL_WORDS.notImported(picked.name, read.problem));
    const change = draft.change(EXCEL_WORDS.importStep(picked.name));
    const editable = editableCells(columns, { readOnly: false, lockedWhenStored: [] });
    const outcome = importSheetRows({ rows: draft.rows.concat(draft.dirtyRows), columns, editable }, change, read.rows, codec);
    const invalid = outcome.written.flatMap(({ line, row }) => {
      const errors = errorsOf(row);
      return errors.size ? [{ line, row, errors }] : [];
    });
    change.commit();
    const said = EXCEL_WORDS.imported(picked.name, outcome.read, outcome.changed, outcome.added);
    const first = invalid[0];
    if (!first) return onNote(said);
    const cells = invalid.reduce((sum, { errors }) => sum + errors.size, 0);
    onNote(
      `${said} ${EXCEL_WORDS.cellsToFix(cells, invalid.length, EXCEL_WORDS.rowNamed(codec.keyOf(first.row.cells), first.line, [...new Set(first.errors.values())]))}`,
    );
    setFixFirst({ id: first.row.id, key: [...first.errors.keys()][0] });
  };

  const pick = async (picked: File | undefined) => {
    if (!picked || busy) return;
    setBusy(true);
    onNote(EXCEL_WORDS.working());
    try {
      await importFile(picked);
    } finally {
      setBusy(false);
      if (picker.current) picker.current.value = "";
    }
  };

  return (
    <>
      <ExcelExportButton
        file={`${file}.xlsx`}
        sheet={codec.sheet()}
        table={() => ({ columns: codec.columns, rows: draft.rows.map(codec.valuesOf) })}
        disabled={loading}
        onDone={onNote}
        onError={(error) => onNote(EXCEL_WORDS.notExported(error))}
      />
      {!readOnly && (
        <>
          <button type="button" disabled={loading} aria-busy={busy || undefined} aria-describedby={hintId} onClick={() => picker.current?.click()} {...warmUp}>
            {EXCEL_WORDS.importButton()}
          </button>
          <span id={hintId} className="sr-only">
            {EXCEL_WORDS.importHint(codec.columns.map((column) => column.name))}
          </span>
          <input ref={picker} type="file" hidden accept={`.xlsx,${XLSX_TYPE}`} onChange={(e) => void pick(e.target.files?.[0])} />
        </>
      )}
    </>
  );
}
