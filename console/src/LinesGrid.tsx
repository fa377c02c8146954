import type { paths, Schemas } from "@campaign-policy/client";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { mergeLines, type StoredLine } from "../../src/lines/bounds";
import { useSession } from "./context";
import { download } from "./csv";
import { DataGrid, useGridDraft, type DataGridHandle, type GridRow } from "./DataGrid";
import { ChunkRefused, describePartialSave, putInChunks } from "./gridSave";
import { useUnsavedEdits } from "./leaving";
import type { Operation } from "./OperationsPage";
import { answer, toRefusal, type Refusal } from "./session";
import { ProblemView, SortChoice, useDebounced } from "./ui";

type Line = Schemas["Line"];
type LineSort = NonNullable<NonNullable<paths["/v1/operations/{operationId}/lines"]["get"]["parameters"]["query"]>["sort"]>[number];
/** A row's cells as typed: variantExternalId, variantName, minQuantity, maxQuantity, recommendedQuantity, quantityIncrement. */
type Cells = [string, string, string, string, string, string];
const COLUMNS = [
  { field: "variantExternalId", label: "Variant", numeric: false },
  { field: "variantName", label: "Name", numeric: false },
  { field: "minQuantity", label: "Min", numeric: true },
  { field: "maxQuantity", label: "Max", numeric: true },
  { field: "recommendedQuantity", label: "Recommended", short: "Rec.", numeric: true },
  { field: "quantityIncrement", label: "Pack", numeric: true },
] as const;
/** Each column ascending and descending (the API's sort fields are the columns'), labelled as its column with an arrow. */
const SORT_CHOICES = COLUMNS.flatMap(
  ({ field, label }) =>
    [
      [field, `${label} ↑`],
      [`-${field}`, `${label} ↓`],
    ] as const,
);
/** The column of each bound a server or local check can name. */
const COLUMN_OF_FIELD: Record<string, number> = { minQuantity: 2, maxQuantity: 3, recommendedQuantity: 4, quantityIncrement: 5 };
/** Lines per PUT: the API's limit. */
const MAX_LINES_PER_CALL = 5000;
const PAGE_SIZE = 1000;
/** Variants looked up per call when new rows turn out to be stored lines (the URL stays short). */
const LOOKUP_SIZE = 200;
const NAME_LOCALE = "en";

type LineRow = GridRow<StoredLine>;

const nameIn = (name: Record<string, string>) => name[NAME_LOCALE] ?? Object.values(name)[0] ?? "";
const cellsOf = (line: StoredLine): Cells => [
  line.variantExternalId,
  nameIn(line.variantName),
  String(line.minQuantity),
  String(line.maxQuantity),
  line.recommendedQuantity === null ? "" : String(line.recommendedQuantity),
  String(line.quantityIncrement),
];
const idOf = (line: StoredLine) => line.variantExternalId;
const storedLineOf = (line: Line): StoredLine => ({
  variantExternalId: line.variantExternalId,
  variantId: line.variantId,
  variantName: line.variantName,
  minQuantity: line.minQuantity,
  maxQuantity: line.maxQuantity,
  recommendedQuantity: line.recommendedQuantity,
  quantityIncrement: line.quantityIncrement,
});
const WHOLE = /^\d+$/;

/** What a row sends to PUT: every field of a new line, the changed fields of a stored one. */
function inputOf(row: LineRow) {
  const [key, name, min, max, rec, pack] = row.cells as Cells;
  const original = row.stored ? cellsOf(row.stored) : undefined;
  const changed = (i: number) => !original || original[i] !== row.cells[i];
  return {
    variantExternalId: key.trim(),
    ...(changed(1) && name.trim() && { variantName: { ...row.stored?.variantName, [NAME_LOCALE]: name.trim() } }),
    ...(changed(2) && min.trim() !== "" && { minQuantity: Number(min) }),
    ...(changed(3) && max.trim() !== "" && { maxQuantity: Number(max) }),
    ...(changed(4) && { recommendedQuantity: rec.trim() === "" ? null : Number(rec) }),
    ...(changed(5) && pack.trim() !== "" && { quantityIncrement: Number(pack) }),
  };
}

/** The row's errors per column, by the server's own rules (src/lines/bounds.ts) plus whole-number cells. */
function errorsOf(row: LineRow): Map<number, string> {
  const errors = new Map<number, string>();
  if (!row.cells[0].trim()) errors.set(0, "a line needs a variantExternalId");
  for (const column of [2, 3, 4, 5]) if (row.cells[column].trim() !== "" && !WHOLE.test(row.cells[column].trim())) errors.set(column, "a whole number ≥ 0");
  if (/^0+$/.test(row.cells[5].trim())) errors.set(5, "a pack size is at least 1");
  if (errors.size) return errors;
  const input = inputOf(row);
  const { errors: found } = mergeLines([input], new Map(row.stored ? [[input.variantExternalId, row.stored]] : []));
  for (const error of found) {
    const message = String(error.message);
    const code = error.code;
    if (code === "min_gt_max") {
      errors.set(2, message);
      errors.set(3, message);
    } else if (code === "recommended_out_of_bounds") errors.set(4, message);
    else errors.set(COLUMN_OF_FIELD[String(error.field)] ?? 2, message);
  }
  return errors;
}

export function LinesGrid({ operation, readOnlyReason, onSaved }: { operation: Operation; readOnlyReason: string | null; onSaved: () => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [sort, setSort] = useState("variantExternalId");
  const [search, setSearch] = useState("");
  const filter = useDebounced(search.trim(), 300);
  const lineList = (query: NonNullable<paths["/v1/operations/{operationId}/lines"]["get"]["parameters"]["query"]>) =>
    answer(api.GET("/v1/operations/{operationId}/lines", { params: { path: { operationId: operation.id }, query } })).then(
      ({ data }) => data as Schemas["LinePage"],
    );
  const lines = useInfiniteQuery({
    queryKey: ["lines", operation.id, sort, filter],
    initialPageParam: undefined as string | undefined,
    // The filter finds a variant by its code (exactly, or a comma list of codes) or by a part of its name:
    // the API has a filter for each, so the first page puts the code's line before the name's matches.
    queryFn: async ({ pageParam }) => {
      const byName = lineList({
        limit: PAGE_SIZE,
        sort: [sort as LineSort],
        ...(filter && { variantName: filter }),
        ...(pageParam && { nextToken: pageParam }),
      });
      const codes = filter
        .split(",")
        .map((code) => code.trim())
        .filter(Boolean);
      if (pageParam || !codes.length) return byName;
      const [byCode, page] = await Promise.all([lineList({ variantIds: codes, limit: PAGE_SIZE, sort: [sort as LineSort] }), byName]);
      return { ...page, items: [...byCode.items, ...page.items] };
    },
    getNextPageParam: (page) => page.nextToken ?? undefined,
    staleTime: Infinity,
  });
  // All of the lines, one page after another: the first rows show as soon as the first page is in.
  useEffect(() => {
    if (lines.hasNextPage && !lines.isFetchingNextPage && !lines.error) void lines.fetchNextPage();
  }, [lines.hasNextPage, lines.isFetchingNextPage, lines.error, lines.fetchNextPage]);

  const stored = useMemo(() => {
    // A line found by its code and by its name is one row.
    const seen = new Set<string>();
    return (lines.data?.pages ?? []).flatMap((page) =>
      page.items.filter((line) => !seen.has(line.variantExternalId) && seen.add(line.variantExternalId)).map(storedLineOf),
    );
  }, [lines.data]);
  const draft = useGridDraft(stored, idOf, cellsOf, COLUMNS.length, { keyColumn: 0 });
  const { rows } = draft;
  const dirtyCount = draft.dirtyRows.length;
  useUnsavedEdits(dirtyCount > 0);

  const readOnly = readOnlyReason !== null;
  const [saving, setSaving] = useState(false);
  const [saveNote, setSaveNote] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const grid = useRef<DataGridHandle>(null);

  const discard = () => {
    draft.discard();
    setRefusal(null);
  };

  /**
   * New rows the server already holds (a variant outside the filter, or added since the page loaded)
   * become edits of those lines, keeping only their filled cells: saving them as typed would overwrite
   * the stored line. Answers how many there were.
   */
  const adoptStoredLines = async (added: LineRow[]) => {
    let adopted = 0;
    for (let offset = 0; offset < added.length; offset += LOOKUP_SIZE) {
      const chunk = added.slice(offset, offset + LOOKUP_SIZE);
      const found = await lineList({ variantIds: chunk.map((row) => row.cells[0].trim()), limit: LOOKUP_SIZE });
      const byCode = new Map(found.items.map((line) => [line.variantExternalId, storedLineOf(line)]));
      for (const row of chunk) {
        const line = byCode.get(row.cells[0].trim());
        if (line) {
          draft.adopt(row, line);
          adopted++;
        }
      }
    }
    return adopted;
  };

  /**
   * A dry run of every chunk of 5000 lines first (the server's errors[] land on their rows, and nothing
   * is saved), then the same chunks for real; a commit refused midway says which rows were saved.
   */
  const save = async () => {
    const dirty = draft.dirtyRows;
    const invalid = dirty.findIndex((row) => errorsOf(row).size > 0);
    setRefusal(null);
    if (invalid >= 0) {
      setSaveNote(`Not saved: fix the marked cells first (${dirty.filter((row) => errorsOf(row).size > 0).length} rows).`);
      grid.current?.moveTo(rows.indexOf(dirty[invalid]), 2);
      return;
    }
    setSaving(true);
    setSaveNote(null);
    const call = {
      draft,
      size: MAX_LINES_PER_CALL,
      put: async (chunk: LineRow[], dryRun: boolean) => {
        const { data } = await answer(
          api.PUT("/v1/operations/{operationId}/lines", { params: { path: { operationId: operation.id }, query: { dryRun } }, body: chunk.map(inputOf) }),
        );
        return { created: data.created, updated: data.updated };
      },
    };
    let savedAny = false;
    let note: string | null = null;
    try {
      const checked = await putInChunks(dirty, true, call);
      const added = dirty.filter((row) => !row.stored);
      const adopted = checked.created < added.length ? await adoptStoredLines(added) : 0;
      if (adopted > 0) {
        note =
          `Not saved yet: ${adopted} new row${adopted === 1 ? " names a variant" : "s name variants"} the Operation already holds (outside the filter, or added since the page loaded). ` +
          "Each now edits that line with only the cells you filled; check them (at the end of the grid), then Save again.";
      } else {
        savedAny = true;
        const saved = await putInChunks(dirty, false, call);
        note = `Saved: ${saved.created} created, ${saved.updated} updated.`;
      }
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setRefusal(error.refusal);
      note = savedAny
        ? describePartialSave(error, dirty.length, "lines", (row) => row.cells[0].trim())
        : "Not saved: the dry run found errors, marked on their rows; nothing was saved.";
    } finally {
      // The grid shows the stored lines again before it says what was saved.
      if (savedAny) await queryClient.invalidateQueries({ queryKey: ["lines", operation.id] });
      draft.refresh();
      setSaveNote(note);
      setSaving(false);
      if (savedAny) onSaved();
    }
  };

  const exportCsv = async () => {
    setRefusal(null);
    try {
      const { data } = await answer(
        api.GET("/v1/operations/{operationId}/lines", { params: { path: { operationId: operation.id } }, headers: { accept: "text/csv" }, parseAs: "text" }),
      );
      download(`lines-${operation.code}.csv`, data as unknown as string);
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };

  const loaded = rows.length - draft.addedCount;
  const unsavedNote = dirtyCount > 0 ? "Sort and search wait until the edits are saved or discarded." : undefined;

  return (
    <div className="lines">
      <div className="grid-bar">
        <h2>Lines</h2>
        <SortChoice value={sort} choices={SORT_CHOICES} onChange={setSort} disabled={dirtyCount > 0} />
        <label>
          Search variant or name
          <input
            type="search"
            maxLength={200}
            disabled={dirtyCount > 0}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            aria-describedby="lines-search-hint"
          />
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
          {!readOnly && (
            <button type="button" onClick={() => grid.current?.addRow()}>
              Add line
            </button>
          )}
          {/* Edits kept when the Operation left DRAFT meanwhile (a save refused midway) can still be dropped. */}
          {(!readOnly || dirtyCount > 0) && (
            <button type="button" onClick={discard} disabled={dirtyCount === 0}>
              Discard
            </button>
          )}
          {!readOnly && (
            <button type="button" className="primary" onClick={save} disabled={saving || dirtyCount === 0}>
              Save
            </button>
          )}
        </span>
      </div>
      <p id="lines-search-hint" className="muted help">
        {unsavedNote ?? "Filters as you type: a variant's code (or several, comma-separated) or a part of its name."}
      </p>
      {readOnlyReason && (
        <p className="readonly-note" id="grid-readonly">
          {readOnlyReason}
        </p>
      )}
      {saveNote && (
        <p role="status" className="note">
          {saveNote}
        </p>
      )}
      <ProblemView refusal={refusal} />
      <ProblemView refusal={lines.error ? toRefusal(lines.error) : null} />
      <DataGrid
        ref={grid}
        label={`Lines of ${operation.code}`}
        columns={COLUMNS}
        draft={draft}
        readOnly={readOnly}
        readOnlyNoteId={readOnlyReason ? "grid-readonly" : undefined}
        errorsOf={errorsOf}
        initialColumn={2}
        help="Arrow keys move · Enter edits · Escape cancels · paste cells from a spreadsheet · a variant already in the grid edits its row · new rows past the end become new lines."
        onNote={setSaveNote}
        empty={
          filter
            ? "No line matches the search."
            : readOnly
              ? "This Operation has no lines."
              : "No lines yet: Add line, paste cells from a spreadsheet, or import a CSV."
        }
      />
    </div>
  );
}
