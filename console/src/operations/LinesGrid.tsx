import { useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useMemo, useRef, useState } from "react";
import { mergeLines, type StoredLine } from "@campaign-policy/common/line-bounds";
import { belowOrderedText, figureText, poolText, type BelowOrdered } from "../labels/allocation";
import { FIELD_LABELS, inFieldLabels } from "../labels/fields";
import { useSession } from "../shared/context";
import { download } from "../shared/csv";
import { DataGrid, type DataGridHandle } from "../shared/grid/DataGrid";
import { DiscardButton } from "../shared/grid/GridTools";
import { useGridDraft } from "../shared/grid/hooks/useGridDraft";
import type { GridColumn } from "../shared/grid/models/columns";
import type { Cells, GridRow } from "../shared/grid/models/draft";
import { rowsByIndex } from "../shared/grid/models/chunkedSave";
import { useBatchSave } from "../shared/grid/hooks/useBatchSave";
import { plural } from "../shared/format";
import { useUnsavedEdits } from "../shared/leaving";
import { API_LIMITS } from "../shared/limits";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { ProblemView, SortChoice, useDebounced } from "../shared/ui";
import { versionChain, type VersionChain } from "../shared/versionChain";
import { putAllocations } from "../api/allocations";
import { exportLinesCsv, fetchLinesOf, fetchOperation, putLines, useAllLines, type Line, type LineCounts, type Operation } from "../api/operations";
import type { LineAccess } from "./lineAccess";

// A line's caps and the plan are loaded on their first use, outside the console's first load.
const AccountCaps = lazy(() => import("./AccountCaps").then((module) => ({ default: module.AccountCaps })));
const PlanAllocation = lazy(() => import("./PlanAllocation").then((module) => ({ default: module.PlanAllocation })));

/** A line as the grid holds it: what a PUT may change, its pool and cap per account, and what its orders hold (absent on a line the grid has not read). */
export type GridLine = StoredLine & { orderedQuantity?: number; poolQuantity?: number | null; maxPerAccount?: number | null; poolRemaining?: number | null };
type LineRow = GridRow<GridLine>;

/** The Pool cell as it reads: "2,000 · 1,640 left" (the server's poolRemaining while the pool is the stored one). */
function poolShown(row: GridRow<unknown>) {
  const line = row.stored as GridLine | undefined;
  const typed = row.cells.poolQuantity;
  const stored = line !== undefined && typed === cellsOf(line).poolQuantity;
  return poolText(typed, line?.orderedQuantity, stored ? line.poolRemaining : undefined);
}
const figureShown = (key: string) => (row: GridRow<unknown>) => figureText(row.cells[key]);

const LINE_COLUMNS = [
  { key: "variantExternalId", label: FIELD_LABELS.variantExternalId, grow: 1.3 },
  { key: "variantName", label: FIELD_LABELS.variantName, grow: 2 },
  { key: "minQuantity", label: FIELD_LABELS.minQuantity, numeric: true, grow: 0.8 },
  { key: "maxQuantity", label: FIELD_LABELS.maxQuantity, numeric: true, grow: 0.8 },
  { key: "recommendedQuantity", label: FIELD_LABELS.recommendedQuantity, short: "Rec.", numeric: true, grow: 0.8 },
  { key: "quantityIncrement", label: FIELD_LABELS.quantityIncrement, numeric: true, grow: 0.8 },
] as const satisfies readonly GridColumn[];
/** Set through PUT …/allocations in any status, on a stored line (a new line's waits until it is saved). */
const ALLOCATION_COLUMNS = [
  { key: "poolQuantity", label: FIELD_LABELS.poolQuantity, numeric: true, grow: 1.2, storedOnly: true, display: poolShown },
  {
    key: "maxPerAccount",
    label: FIELD_LABELS.maxPerAccount,
    short: "Per acc.",
    numeric: true,
    grow: 0.8,
    storedOnly: true,
    display: figureShown("maxPerAccount"),
  },
] as const satisfies readonly GridColumn[];
// What the Operation's PLACED orders hold of the line, kept by the server: shown, never edited, beside the pool it draws from.
const ORDERED_COLUMN = {
  key: "orderedQuantity",
  label: FIELD_LABELS.orderedQuantity,
  numeric: true,
  grow: 0.8,
  readOnly: true,
  display: figureShown("orderedQuantity"),
} as const satisfies GridColumn;
const COLUMNS = [...LINE_COLUMNS, ...ALLOCATION_COLUMNS, ORDERED_COLUMN] as const;
/** The columns while only the allocation edits (the Operation left DRAFT): the line's own are read-only. */
const ALLOCATION_ONLY_COLUMNS = COLUMNS.map(
  (column): GridColumn => (LINE_COLUMNS.some((line) => line.key === column.key) ? { ...column, readOnly: true } : column),
);
type Field = (typeof COLUMNS)[number]["key"];
const FIELDS = COLUMNS.map((column) => column.key);
const QUANTITIES = ["minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const satisfies readonly Field[];
const ALLOCATION_FIELDS = ALLOCATION_COLUMNS.map((column) => column.key);
const LINE_FIELDS = LINE_COLUMNS.map((column) => column.key);
/** Each column the API sorts by, ascending and descending, labelled as its column with an arrow. */
const SORT_CHOICES = [...LINE_COLUMNS, ORDERED_COLUMN].flatMap(
  ({ key, label }) =>
    [
      [key, `${label} ↑`],
      [`-${key}`, `${label} ↓`],
    ] as const,
);
const NAME_LOCALE = "en";

type LineCells = Record<Field, string>;

const nameIn = (name: Record<string, string>) => name[NAME_LOCALE] ?? Object.values(name)[0] ?? "";
const cellsOf = (line: GridLine): Cells =>
  ({
    variantExternalId: line.variantExternalId,
    variantName: nameIn(line.variantName),
    minQuantity: String(line.minQuantity),
    maxQuantity: String(line.maxQuantity),
    recommendedQuantity: line.recommendedQuantity === null ? "" : String(line.recommendedQuantity),
    quantityIncrement: String(line.quantityIncrement),
    poolQuantity: line.poolQuantity === null || line.poolQuantity === undefined ? "" : String(line.poolQuantity),
    maxPerAccount: line.maxPerAccount === null || line.maxPerAccount === undefined ? "" : String(line.maxPerAccount),
    orderedQuantity: line.orderedQuantity === undefined ? "" : String(line.orderedQuantity),
  }) satisfies LineCells;
const idOf = (line: GridLine) => line.variantExternalId;
const storedLineOf = (line: Line): GridLine => ({
  variantExternalId: line.variantExternalId,
  variantId: line.variantId,
  variantName: line.variantName,
  minQuantity: line.minQuantity,
  maxQuantity: line.maxQuantity,
  recommendedQuantity: line.recommendedQuantity,
  quantityIncrement: line.quantityIncrement,
  orderedQuantity: line.orderedQuantity,
  poolQuantity: line.poolQuantity,
  maxPerAccount: line.maxPerAccount,
  poolRemaining: line.poolRemaining,
});
const WHOLE = /^\d+$/;
const variantOf = (row: LineRow) => row.cells.variantExternalId.trim();
/** Whether the row's `field` differs from the stored line (every field of a new row does). */
const changed = (row: LineRow, field: Field) => !row.stored || (cellsOf(row.stored) as LineCells)[field] !== row.cells[field];
/** A row PUT …/lines takes: a new line, or a stored one whose own cells changed. */
const changesLine = (row: LineRow) => LINE_FIELDS.some((field) => changed(row, field));
/** A row PUT …/allocations takes: a stored line whose pool or cap per account changed. */
const changesAllocation = (row: LineRow) => row.stored !== undefined && ALLOCATION_FIELDS.some((field) => changed(row, field));
const quantityOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

/** What a row sends to PUT …/allocations: its changed pool and cap per account (empty: none). */
const allocationOf = (row: LineRow) => ({
  variantExternalId: variantOf(row),
  ...(changed(row, "poolQuantity") && { poolQuantity: quantityOrNull(row.cells.poolQuantity) }),
  ...(changed(row, "maxPerAccount") && { maxPerAccount: quantityOrNull(row.cells.maxPerAccount) }),
});

/** What a row sends to PUT: every field of a new line, the changed fields of a stored one. */
function inputOf(row: LineRow) {
  const cells = row.cells as LineCells;
  const changed = (field: Field) => !row.stored || (cellsOf(row.stored) as LineCells)[field] !== cells[field];
  const quantity = (field: Field) => changed(field) && cells[field].trim() !== "" && { [field]: Number(cells[field]) };
  return {
    variantExternalId: variantOf(row),
    ...(changed("variantName") && cells.variantName.trim() && { variantName: { ...row.stored?.variantName, [NAME_LOCALE]: cells.variantName.trim() } }),
    ...quantity("minQuantity"),
    ...quantity("maxQuantity"),
    ...(changed("recommendedQuantity") && { recommendedQuantity: cells.recommendedQuantity.trim() === "" ? null : Number(cells.recommendedQuantity) }),
    ...quantity("quantityIncrement"),
  };
}

/** The row's pool and cap per account as the server would refuse them: not whole numbers, or a pool below what is ordered. */
function allocationErrorsOf(row: LineRow, errors: Map<string, string>) {
  const { poolQuantity, maxPerAccount } = row.cells as LineCells;
  const ordered = row.stored?.orderedQuantity ?? 0;
  if (poolQuantity.trim() !== "" && !WHOLE.test(poolQuantity.trim())) errors.set("poolQuantity", "a whole number ≥ 0 (empty: no pool)");
  else if (changed(row, "poolQuantity") && poolQuantity.trim() !== "" && Number(poolQuantity) < ordered)
    errors.set("poolQuantity", belowOrderedText({ field: "poolQuantity", value: Number(poolQuantity), ordered }));
  if (maxPerAccount.trim() !== "" && !/^0*[1-9]\d*$/.test(maxPerAccount.trim())) errors.set("maxPerAccount", "a whole number ≥ 1 (empty: no cap)");
}

/** The row's errors by column, by the server's own rules (src/common/line-bounds.ts) plus whole-number cells, in the grid's words (Min, Max). */
function errorsOf(row: LineRow): Map<string, string> {
  const errors = new Map<string, string>();
  allocationErrorsOf(row, errors);
  const cells = row.cells as LineCells;
  if (!variantOf(row)) errors.set("variantExternalId", "a line needs a Variant");
  for (const field of QUANTITIES) if (cells[field].trim() !== "" && !WHOLE.test(cells[field].trim())) errors.set(field, "a whole number ≥ 0");
  if (/^0+$/.test(cells.quantityIncrement.trim())) errors.set("quantityIncrement", "a pack size is at least 1");
  if (errors.size || !changesLine(row)) return errors;
  const input = inputOf(row);
  const { errors: found } = mergeLines([input], new Map(row.stored ? [[input.variantExternalId, row.stored]] : []));
  for (const error of found) {
    const message = inFieldLabels(String(error.message));
    if (error.code === "min_gt_max") {
      errors.set("minQuantity", message);
      errors.set("maxQuantity", message);
    } else if (error.code === "recommended_out_of_bounds") errors.set("recommendedQuantity", message);
    else errors.set(FIELDS.includes(String(error.field) as Field) ? String(error.field) : "minQuantity", message);
  }
  return errors;
}

/**
 * The rows a refused save names, each with why, in the grid's words: a pool or cap below what is
 * ordered (PUT …/allocations names lines by variant), or the items of a lines PUT's errors[] (by
 * their index among the rows it was sent).
 */
function refusedRows(refusal: Refusal, chunk: LineRow[]): [LineRow, string][] {
  const problem = refusal.problem as { lines?: (BelowOrdered & { variantExternalId: string })[]; unknownVariantExternalIds?: string[] };
  if (problem.lines || problem.unknownVariantExternalIds) {
    const said = new Map<LineRow, string[]>();
    const say = (variant: string, text: string) => {
      const row = chunk.find((candidate) => variantOf(candidate) === variant);
      if (row) said.set(row, [...(said.get(row) ?? []), text]);
    };
    for (const line of problem.lines ?? []) say(line.variantExternalId, belowOrderedText(line));
    for (const variant of problem.unknownVariantExternalIds ?? []) say(variant, "Not a line of this Operation any more (removed since the page loaded).");
    return [...said].map(([row, texts]) => [row, texts.join(" ")]);
  }
  return rowsByIndex(refusal, chunk.filter(changesLine), (item) => inFieldLabels(item.message ?? refusal.problem.code));
}

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
  const draft = useGridDraft(stored, idOf, cellsOf, FIELDS, { keyField: "variantExternalId" });
  const { rows } = draft;
  const dirtyCount = draft.dirtyRows.length;
  useUnsavedEdits(dirtyCount > 0);

  const readOnly = !access.lines && !access.allocations;
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
    return (
      `Not saved yet: ${adopted} new row${adopted === 1 ? " names a variant" : "s name variants"} the Operation already holds (outside the filter, or added since the page loaded). ` +
      "Each now edits that line with only the cells you filled; check them (at the end of the grid), then Save again."
    );
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
        access.lines && `${counts.created} created, ${counts.updated} updated`,
        (counts.allocated > 0 || !access.lines) && `${plural(counts.allocated, "line")} given a new pool or cap`,
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
      download(`lines-${operation.code}.csv`, await exportLinesCsv(api, operation.id));
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };
  /** Opens the accounts' caps of the active cell's line (a saved one). */
  const openCaps = () => {
    const line = grid.current?.activeRow()?.stored as GridLine | undefined;
    setCapsNote(line ? null : "Account caps: choose a saved line in the grid first (its cell active), then Account caps.");
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
        <h2>Lines</h2>
        <SortChoice value={sort} choices={SORT_CHOICES} onChange={setSort} />
        <label>
          Search variant or name
          <input type="search" maxLength={200} value={search} onChange={(e) => setSearch(e.target.value)} aria-describedby="lines-search-hint" />
        </label>
        <span className="muted" aria-live="polite">
          {lines.isPending || lines.hasNextPage
            ? `Loading… ${loaded}${filter ? "" : ` of ${operation.lineCount}`}`
            : `${loaded} ${filter ? "matching " : ""}lines`}
          {dirtyCount > 0 && ` · ${dirtyCount} unsaved`}
        </span>
        <span className="grid-actions">
          <button type="button" onClick={() => void exportCsv()}>
            Export CSV
          </button>
          {access.allocations && (
            <>
              <button
                type="button"
                ref={capsButton}
                onClick={openCaps}
                aria-expanded={capsOf !== null}
                title="The accounts' own caps on the active cell's line"
              >
                Account caps
              </button>
              <button type="button" onClick={() => setPlanning(true)}>
                Plan allocation
              </button>
            </>
          )}
          {access.lines && (
            <button type="button" onClick={() => grid.current?.addRow()}>
              Add line
            </button>
          )}
          {/* Edits kept when the Operation left DRAFT meanwhile (a save refused midway) can still be dropped. */}
          {(!readOnly || dirtyCount > 0) && <DiscardButton draft={draft} saving={saving} dirtyCount={dirtyCount} undoable={!readOnly} />}
          {!readOnly && (
            <button type="button" className="primary" onClick={saving.save} disabled={saving.busy || dirtyCount === 0}>
              Save
            </button>
          )}
        </span>
      </div>
      <p id="lines-search-hint" className="muted help">
        Filters as you type: a variant's code (or several, comma-separated) or a part of its name. Unsaved edits stay (and undo) whatever the search and sort.
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
      {capsNote && (
        <p role="status" className="note">
          {capsNote}
        </p>
      )}
      <ProblemView refusal={saving.refusal ?? refusal}>
        {versionRefused && (
          <>
            <p>This Operation changed since the page read it (someone saved it, or changed its status). Reload reads it again; your unsaved edits stay.</p>
            <button
              type="button"
              onClick={() =>
                void Promise.all([reloadLines(), queryClient.invalidateQueries({ queryKey: queryKeys.operation(operation.id) })]).then(saving.reset)
              }
            >
              Reload
            </button>
          </>
        )}
      </ProblemView>
      <ProblemView refusal={lines.error ? toRefusal(lines.error) : null} />
      <Suspense fallback={<p className="muted">Loading…</p>}>
        {capsOf && <AccountCaps key={capsOf.variantExternalId} operation={operation} line={capsOf} onClose={closeCaps} />}
        {planning && <PlanAllocation operation={operation} onClose={() => setPlanning(false)} />}
      </Suspense>
      <DataGrid
        ref={grid}
        label={`Lines of ${operation.code}`}
        columns={access.lines ? COLUMNS : ALLOCATION_ONLY_COLUMNS}
        draft={draft}
        readOnly={readOnly}
        appendable={access.lines}
        readOnlyNoteId={access.note ? "grid-readonly" : undefined}
        errorsOf={errorsOf}
        initialField={access.lines ? "minQuantity" : "poolQuantity"}
        help={
          access.lines
            ? "Arrow keys move · Enter edits · Escape cancels · paste cells from a spreadsheet · a variant already in the grid edits its row · new rows past the end become new lines · a new line's Pool and Per account are set once it is saved (empty: none)."
            : "Arrow keys move · Enter edits Pool or Per account (empty: none) · Escape cancels · paste them from a spreadsheet (rows with a Variant column go to their lines)."
        }
        onNote={saving.setNote}
        empty={
          lines.isPending
            ? "Loading…"
            : filter
              ? "No line matches the search."
              : !access.lines
                ? "This Operation has no lines."
                : "No lines yet: Add line, paste cells from a spreadsheet, or import a CSV."
        }
      />
    </div>
  );
}
