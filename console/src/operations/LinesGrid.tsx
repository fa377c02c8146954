import { useQueryClient } from "@tanstack/react-query";
import { useMemo, useRef, useState } from "react";
import { mergeLines, type StoredLine } from "@campaign-policy/common/line-bounds";
import { fieldLabel, inFieldLabels } from "../labels/fields";
import { useSession } from "../shared/context";
import { download } from "../shared/csv";
import { DataGrid, type DataGridHandle } from "../shared/grid/DataGrid";
import { DiscardButton } from "../shared/grid/GridTools";
import { useGridDraft } from "../shared/grid/hooks/useGridDraft";
import type { GridColumn } from "../shared/grid/models/columns";
import type { Cells, GridRow } from "../shared/grid/models/draft";
import { useBatchSave } from "../shared/grid/hooks/useBatchSave";
import { useUnsavedEdits } from "../shared/leaving";
import { API_LIMITS } from "../shared/limits";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { ProblemView, SortChoice, useDebounced } from "../shared/ui";
import { exportLinesCsv, fetchLinesOf, putLines, useAllLines, type Line, type LineCounts, type Operation } from "../api/operations";
import { listText, t, useInLanguage } from "../shared/i18n";

/** The grid's columns, named in the console's language (a line's fields by their names for people). */
const columns = () =>
  [
    { key: "variantExternalId", label: fieldLabel("variantExternalId"), grow: 1.3 },
    { key: "variantName", label: fieldLabel("variantName"), grow: 2 },
    { key: "minQuantity", label: fieldLabel("minQuantity"), numeric: true, grow: 0.8 },
    { key: "maxQuantity", label: fieldLabel("maxQuantity"), numeric: true, grow: 0.8 },
    { key: "recommendedQuantity", label: fieldLabel("recommendedQuantity"), short: t("field.recommendedQuantity.short"), numeric: true, grow: 0.8 },
    { key: "quantityIncrement", label: fieldLabel("quantityIncrement"), numeric: true, grow: 0.8 },
    // What the Operation's PLACED orders hold of the line, kept by the server: shown, never edited.
    { key: "orderedQuantity", label: t("lines.ordered"), numeric: true, grow: 0.8, readOnly: true },
  ] as const satisfies readonly GridColumn[];
type Field = ReturnType<typeof columns>[number]["key"];
const FIELDS: Field[] = ["variantExternalId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement", "orderedQuantity"];
const QUANTITIES = ["minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const satisfies readonly Field[];
/** Each column ascending and descending (the API's sort fields are the columns'), labelled as its column with an arrow. */
const sortChoices = (shown: ReturnType<typeof columns>) =>
  shown.flatMap(
    ({ key, label }) =>
      [
        [key, `${label} ↑`],
        [`-${key}`, `${label} ↓`],
      ] as const,
  );
const NAME_LOCALE = "en";

/** A line as the grid holds it: what a PUT may change, and what its orders hold (absent on a line the grid has not read). */
type GridLine = StoredLine & { orderedQuantity?: number };
type LineRow = GridRow<GridLine>;
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
});
const WHOLE = /^\d+$/;
const variantOf = (row: LineRow) => row.cells.variantExternalId.trim();

/** What a row sends to PUT: every field of a new line, the changed fields of a stored one. */
function inputOf(row: LineRow) {
  const cells = row.cells as LineCells;
  const original = row.stored ? (cellsOf(row.stored) as LineCells) : undefined;
  const changed = (field: Field) => !original || original[field] !== cells[field];
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

/** A bounds error of the server's own rules (src/common/line-bounds.ts), said by its code in the console's words (Min, Max). */
function boundsMessage(error: { code: string; field?: unknown; message: unknown; missing?: unknown }, line: Partial<StoredLine>): string {
  const value = (field: unknown) => String(line[field as keyof StoredLine] ?? "?");
  if (error.code === "min_gt_max") return t("lines.minGtMax", { min: value("minQuantity"), max: value("maxQuantity") });
  if (error.code === "recommended_out_of_bounds")
    return t("lines.recommendedOutside", { recommended: value("recommendedQuantity"), min: value("minQuantity"), max: value("maxQuantity") });
  if (error.code === "missing_bounds" && Array.isArray(error.missing))
    return t("lines.missingBounds", { fields: listText(error.missing.map(String).map(fieldLabel)) });
  if (error.code === "increment_mismatch")
    return t("lines.notMultiple", { field: fieldLabel(String(error.field)), value: value(error.field), increment: value("quantityIncrement") });
  return inFieldLabels(String(error.message));
}

/** The row's errors by column, by the server's own rules (src/common/line-bounds.ts) plus whole-number cells, in the grid's words (Min, Max). */
function errorsOf(row: LineRow): Map<string, string> {
  const errors = new Map<string, string>();
  const cells = row.cells as LineCells;
  if (!variantOf(row)) errors.set("variantExternalId", t("lines.needsVariant"));
  for (const field of QUANTITIES) if (cells[field].trim() !== "" && !WHOLE.test(cells[field].trim())) errors.set(field, t("lines.wholeNumber"));
  if (/^0+$/.test(cells.quantityIncrement.trim())) errors.set("quantityIncrement", t("lines.packAtLeastOne"));
  if (errors.size) return errors;
  const input = inputOf(row);
  const { errors: found } = mergeLines([input], new Map(row.stored ? [[input.variantExternalId, row.stored]] : []));
  for (const error of found) {
    const message = boundsMessage(error, row.stored ? { ...row.stored, ...input } : input);
    if (error.code === "min_gt_max") {
      errors.set("minQuantity", message);
      errors.set("maxQuantity", message);
    } else if (error.code === "recommended_out_of_bounds") errors.set("recommendedQuantity", message);
    else errors.set(FIELDS.includes(String(error.field) as Field) ? String(error.field) : "minQuantity", message);
  }
  return errors;
}

export function LinesGrid({ operation, readOnlyReason, onSaved }: { operation: Operation; readOnlyReason: string | null; onSaved: () => void }) {
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

  const readOnly = readOnlyReason !== null;
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const grid = useRef<DataGridHandle>(null);

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

  const saving = useBatchSave({
    draft,
    grid,
    size: API_LIMITS.linesPerPut,
    put: (chunk, dryRun) => putLines(api, operation.id, chunk.map(inputOf), dryRun),
    messageOf: (item, refusal) => inFieldLabels(item.message ?? refusal.problem.code),
    errorsOf,
    what: "lines",
    labelOf: variantOf,
    describe: (counts) => t("lines.savedCounts", { created: counts.created, updated: counts.updated }),
    confirm: "immediate",
    afterDryRun: adoptStoredLines,
    reload: () => queryClient.invalidateQueries({ queryKey: queryKeys.lines.of(operation.id) }),
    onSaved,
  });

  const exportCsv = async () => {
    setRefusal(null);
    try {
      download(`lines-${operation.code}.csv`, await exportLinesCsv(api, operation.id));
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };

  const loaded = rows.length - draft.addedCount;
  const shownColumns = useInLanguage(columns);

  return (
    <div className="lines">
      <div className="grid-bar">
        <h2>{t("ops.lines")}</h2>
        <SortChoice value={sort} choices={sortChoices(shownColumns)} onChange={setSort} />
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
        <span className="grid-actions">
          <button type="button" onClick={() => void exportCsv()}>
            {t("common.exportCsv")}
          </button>
          {!readOnly && (
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
      {readOnlyReason && (
        <p className="readonly-note" id="grid-readonly">
          {readOnlyReason}
        </p>
      )}
      {saving.note && (
        <p role="status" className="note">
          {saving.note}
        </p>
      )}
      <ProblemView refusal={saving.refusal ?? refusal} />
      <ProblemView refusal={lines.error ? toRefusal(lines.error) : null} />
      <DataGrid
        ref={grid}
        label={t("lines.of", { code: operation.code })}
        columns={shownColumns}
        draft={draft}
        readOnly={readOnly}
        readOnlyNoteId={readOnlyReason ? "grid-readonly" : undefined}
        errorsOf={errorsOf}
        initialField="minQuantity"
        help={t("lines.help")}
        onNote={saving.setNote}
        empty={lines.isPending ? t("common.loading") : t(filter ? "lines.noneMatches" : readOnly ? "lines.none" : "lines.noneYet")}
      />
    </div>
  );
}
