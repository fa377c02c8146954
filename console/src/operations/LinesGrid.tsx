import { useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useMemo, useRef, useState } from "react";
import { useSession } from "../shared/context";
import { download } from "../shared/csv";
import { GridExcelTools } from "../shared/excel/ExcelTools";
import { DataGrid, type DataGridHandle } from "../shared/grid/DataGrid";
import { DiscardButton } from "../shared/grid/GridTools";
import { useGridDraft } from "../shared/grid/hooks/useGridDraft";
import { useBatchSave } from "../shared/grid/hooks/useBatchSave";
import { useUnsavedEdits } from "../shared/leaving";
import { API_LIMITS } from "../shared/limits";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { ProblemView, SortChoice, StatusNote, useDebounced } from "../shared/ui";
import { versionChain, type VersionChain } from "../shared/versionChain";
import { putAllocations } from "../api/allocations";
import { exportLinesCsv, fetchLinesOf, fetchOperation, putLines, useAllLines, type LineCounts, type Operation } from "../api/operations";
import type { LineAccess } from "./lineAccess";
import { LINES_SHEET } from "./linesSheet";
import {
  allocationOf,
  allocationOnlyColumns,
  changesAllocation,
  columns,
  FIELDS,
  idOf,
  linesIn,
  namesInText,
  sortChoices,
  storedLineOf,
  variantOf,
  type GridLine,
  type LineRow,
} from "./lineRows";
import { currentLanguage, t, tx, useInLanguage, withLaterWords } from "../shared/i18n";
import { useLiveLines } from "./live/useLiveLines";

// A line's caps and the plan are loaded on their first use, outside the console's first load.
const AccountCaps = lazy(() => withLaterWords(import("./AccountCaps")).then((module) => ({ default: module.AccountCaps })));
const PlanAllocation = lazy(() => withLaterWords(import("./PlanAllocation")).then((module) => ({ default: module.PlanAllocation })));

export function LinesGrid({ operation, access, onSaved }: { operation: Operation; access: LineAccess; onSaved: () => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [sort, setSort] = useState("variantExternalId");
  const [search, setSearch] = useState("");
  const filter = useDebounced(search.trim(), 300);
  const lines = useAllLines(operation.id, sort, filter);
  const stored = useMemo(() => {
    // A line found by its code and by its name is one row.
    const seen = new Set<string>();
    return (lines.data?.pages ?? []).flatMap((page) =>
      page.items.filter((line) => !seen.has(line.variantExternalId) && seen.add(line.variantExternalId)).map(storedLineOf),
    );
  }, [lines.data]);
  // Names in the console's language as the grid opened: a later switch of language leaves typed names in the language they were typed in.
  const [{ nameLanguage, cellsOf, changesLine, inputOf, errorsOf, refusedRows }] = useState(() => linesIn(currentLanguage()));
  const draft = useGridDraft(stored, idOf, cellsOf, FIELDS, { keyField: "variantExternalId" });
  const { rows } = draft;
  const dirtyCount = draft.dirtyRows.length;
  useUnsavedEdits(dirtyCount > 0);

  const live = useLiveLines(operation, draft, storedLineOf);
  // Once a change from elsewhere met an edit here, the list of conflicts stays on the page (it moves the focus on as they are answered).
  const conflictsSeen = useRef(false);
  conflictsSeen.current ||= draft.conflicts.length > 0;

  const readOnly = !access.lines && !access.allocations;
  const shownColumns = useInLanguage(() => (access.lines ? columns() : allocationOnlyColumns()), access.lines);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const grid = useRef<DataGridHandle>(null);
  // The line whose accounts' caps are open, and whether the plan is.
  const [capsOf, setCapsOf] = useState<GridLine | null>(null);
  const [planning, setPlanning] = useState(false);
  const [capsNote, setCapsNote] = useState<string | null>(null);
  const capsButton = useRef<HTMLButtonElement>(null);
  const reloadLines = () => queryClient.invalidateQueries({ queryKey: queryKeys.lines.of(operation.id) });
  // The page's version, moved on by the chunks a save commits: what its allocation writes are checked against.
  const versions = useRef<VersionChain | null>(null);

  /**
   * New rows the server already holds (a variant outside the filter, or added since the page loaded)
   * become edits of those lines, keeping only their filled cells: saving them as typed would overwrite
   * the stored line. Says so, or null when there were none.
   */
  const adoptStoredLines = async (counts: LineCounts, dirty: LineRow[]) => {
    const added = dirty.filter((row) => !row.stored);
    if (counts.created >= added.length) return null;
    const byCode = new Map((await fetchLinesOf(api, operation.id, added.map(variantOf))).map((line) => [line.variantExternalId, storedLineOf(line)]));
    let adopted = 0;
    for (const row of added) {
      const line = byCode.get(variantOf(row));
      if (line) {
        draft.adopt(row, line);
        adopted++;
      }
    }
    if (!adopted) return null;
    return t("lines.adopted", { count: adopted });
  };

  /** A chunk of rows: its pools and caps (checked against the version the page read), then its lines. */
  const putChunk = async (chunk: LineRow[], dryRun: boolean) => {
    if (dryRun) versions.current = versionChain(operation.version, async () => (await fetchOperation(api, operation.id)).version);
    const chain = versions.current!;
    const allocations = chunk.filter(changesAllocation);
    const changedLines = chunk.filter(changesLine);
    let allocated = 0;
    if (allocations.length) {
      allocated = (await putAllocations(api, operation.id, allocations.map(allocationOf), dryRun, await chain.ifMatch())).updated;
      if (!dryRun) chain.moved(allocated > 0 ? 1 : 0);
    }
    if (!changedLines.length) return { created: 0, updated: 0, allocated };
    const counts = await putLines(api, operation.id, changedLines.map(inputOf), dryRun);
    // A lines PUT that changed no record makes no version: read it again before the next chunk's allocations.
    if (!dryRun) chain.lost();
    return { ...counts, allocated };
  };

  const saving = useBatchSave({
    draft,
    grid,
    size: API_LIMITS.linesPerPut,
    put: putChunk,
    refusedRows,
    errorsOf,
    what: "lines",
    labelOf: variantOf,
    describe: (counts) =>
      [
        access.lines && t("lines.savedCounts", { created: counts.created, updated: counts.updated }),
        (counts.allocated > 0 || !access.lines) && t("lines.allocated", { count: counts.allocated }),
      ]
        .filter(Boolean)
        .join("; "),
    confirm: "immediate",
    afterDryRun: adoptStoredLines,
    // The version too: the next save's allocations are checked against it.
    reload: () => Promise.all([reloadLines(), queryClient.invalidateQueries({ queryKey: queryKeys.operation(operation.id) })]),
    onSaved,
  });
  const versionRefused = saving.refusal?.status === 412;

  const exportCsv = async () => {
    setRefusal(null);
    try {
      download(`lines-${operation.code}.csv`, await exportLinesCsv(api, operation.id, nameLanguage));
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };
  /** Opens the accounts' caps of the active cell's line (a saved one). */
  const openCaps = () => {
    const line = grid.current?.activeRow()?.stored as GridLine | undefined;
    setCapsNote(line ? null : t("lines.capsChooseLine"));
    setCapsOf(line ?? null);
  };

  /** Closes the caps, the focus back on the button that opened them. */
  const closeCaps = () => {
    setCapsOf(null);
    capsButton.current?.focus();
  };

  const loaded = rows.length - draft.addedCount;

  return (
    <div className="lines">
      <div className="grid-bar">
        <h2>{t("ops.lines")}</h2>
        <SortChoice value={sort} choices={sortChoices()} onChange={setSort} />
        <label>
          {t("lines.search")}
          <input type="search" maxLength={200} value={search} onChange={(e) => setSearch(e.target.value)} aria-describedby="lines-search-hint" />
        </label>
        <span className="muted" aria-live="polite">
          {lines.isPending || lines.hasNextPage
            ? t(filter ? "lines.loadingSome" : "lines.loadingOf", { loaded, total: operation.lineCount })
            : t(filter ? "lines.matching" : "lines.count", { count: loaded })}
          {dirtyCount > 0 && ` · ${t("lines.unsaved", { count: dirtyCount })}`}
        </span>
        <span className="muted">{namesInText(nameLanguage)}</span>
        <span className="grid-actions">
          <button type="button" onClick={() => void exportCsv()}>
            {t("common.exportCsv")}
          </button>
          {/* The sheet holds the line's own fields: an import edits them, so only where lines are editable. */}
          <GridExcelTools
            file={`lines-${operation.code}`}
            codec={LINES_SHEET}
            grid={{ draft, handle: grid, columns: shownColumns, errorsOf }}
            readOnly={!access.lines}
            loading={lines.isPending || lines.hasNextPage}
            onNote={saving.setNote}
          />
          {access.allocations && (
            <>
              <button type="button" ref={capsButton} onClick={openCaps} aria-expanded={capsOf !== null} title={t("lines.capsTitle")}>
                {t("lines.caps")}
              </button>
              <button type="button" onClick={() => setPlanning(true)}>
                {t("lines.plan")}
              </button>
            </>
          )}
          {access.lines && (
            <button type="button" onClick={() => grid.current?.addRow()}>
              {t("lines.add")}
            </button>
          )}
          {/* Edits kept when the Operation left DRAFT meanwhile (a save refused midway) can still be dropped. */}
          {(!readOnly || dirtyCount > 0) && <DiscardButton draft={draft} saving={saving} dirtyCount={dirtyCount} undoable={!readOnly} />}
          {!readOnly && (
            <button type="button" className="primary" onClick={saving.save} disabled={saving.busy || dirtyCount === 0}>
              {t("common.save")}
            </button>
          )}
        </span>
      </div>
      <p id="lines-search-hint" className="muted help">
        {t("lines.searchHint")}
      </p>
      {access.note && (
        <p className="readonly-note" id="grid-readonly">
          {access.note}
        </p>
      )}
      {saving.note && (
        <p role="status" className="note">
          {saving.note}
        </p>
      )}
      <StatusNote>{capsNote}</StatusNote>
      <ProblemView refusal={saving.refusal ?? refusal}>
        {versionRefused && (
          <>
            <p>{t("lines.versionChanged")}</p>
            <button
              type="button"
              onClick={() =>
                void Promise.all([reloadLines(), queryClient.invalidateQueries({ queryKey: queryKeys.operation(operation.id) })]).then(saving.reset)
              }
            >
              {t("ops.reload")}
            </button>
          </>
        )}
      </ProblemView>
      {conflictsSeen.current && live.Conflicts && (
        <live.Conflicts
          draft={draft}
          columns={shownColumns}
          labelOf={variantOf}
          onSaid={saving.setNote}
          onDone={() => grid.current?.focus()}
          words={{ t, tx }}
          onShow={(row, field) => {
            const place = rows.findIndex((shown) => shown.id === row.id);
            if (place >= 0) grid.current?.moveTo(place, field, { focus: true });
            return place >= 0;
          }}
        />
      )}
      <ProblemView refusal={lines.error ? toRefusal(lines.error) : null} />
      <Suspense fallback={<p className="muted">{t("common.loading")}</p>}>
        {capsOf && <AccountCaps key={capsOf.variantExternalId} operation={operation} line={capsOf} onClose={closeCaps} />}
        {planning && <PlanAllocation operation={operation} onClose={() => setPlanning(false)} />}
      </Suspense>
      <DataGrid
        ref={grid}
        label={t("lines.of", { code: operation.code })}
        columns={shownColumns}
        draft={draft}
        readOnly={readOnly}
        appendable={access.lines}
        readOnlyNoteId={access.note ? "grid-readonly" : undefined}
        errorsOf={errorsOf}
        cellMarks={live.cellMarks}
        onActiveCell={live.onActiveCell}
        initialField={access.allocations && !access.lines ? "poolQuantity" : "minQuantity"}
        help={t(access.lines ? "lines.help" : "lines.helpAllocation")}
        onNote={saving.setNote}
        empty={lines.isPending ? t("common.loading") : t(filter ? "lines.noneMatches" : !access.lines ? "lines.none" : "lines.noneYet")}
      />
    </div>
  );
}
