import type { paths, Schemas } from "@campaign-policy/client";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { mergeLines, type StoredLine } from "../../src/lines/bounds";
import { useSession } from "./context";
import { DataGrid, useGridDraft, type DataGridHandle, type GridRow } from "./DataGrid";
import type { Operation } from "./OperationsPage";
import { answer, toRefusal, type Refusal } from "./session";
import { ProblemView, SortChoice } from "./ui";

type Line = Schemas["Line"];
type LineSort = NonNullable<NonNullable<paths["/v1/operations/{operationId}/lines"]["get"]["parameters"]["query"]>["sort"]>[number];
/** A row's cells as typed: variantExternalId, variantName, minQuantity, maxQuantity, recommendedQuantity, quantityIncrement. */
type Cells = [string, string, string, string, string, string];
const COLUMNS = [
  { field: "variantExternalId", label: "Variant", numeric: false },
  { field: "variantName", label: "Name", numeric: false },
  { field: "minQuantity", label: "Min", numeric: true },
  { field: "maxQuantity", label: "Max", numeric: true },
  { field: "recommendedQuantity", label: "Recommended", numeric: true },
  { field: "quantityIncrement", label: "Pack", numeric: true },
] as const;
const SORTS = ["variantExternalId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"];
/** Each field ascending and descending, labelled with an arrow. */
const SORT_CHOICES = SORTS.flatMap((field) => [[field, `${field} ↑`], [`-${field}`, `${field} ↓`]] as const);
/** The column of each bound a server or local check can name. */
const COLUMN_OF_FIELD: Record<string, number> = { minQuantity: 2, maxQuantity: 3, recommendedQuantity: 4, quantityIncrement: 5 };
/** Lines per PUT: the API's limit. */
const MAX_LINES_PER_CALL = 5000;
const PAGE_SIZE = 1000;
const NAME_LOCALE = "en";

type LineRow = GridRow<StoredLine>;

const nameIn = (name: Record<string, string>) => name[NAME_LOCALE] ?? Object.values(name)[0] ?? "";
const cellsOf = (line: StoredLine): Cells => [line.variantExternalId, nameIn(line.variantName), String(line.minQuantity), String(line.maxQuantity), line.recommendedQuantity === null ? "" : String(line.recommendedQuantity), String(line.quantityIncrement)];
const idOf = (line: StoredLine) => line.variantExternalId;
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
    if (code === "min_gt_max") [2, 3].forEach((c) => errors.set(c, message));
    else if (code === "recommended_out_of_bounds") errors.set(4, message);
    else errors.set(COLUMN_OF_FIELD[String(error.field)] ?? 2, message);
  }
  return errors;
}

export function LinesGrid({ operation, readOnlyReason, onSaved }: { operation: Operation; readOnlyReason: string | null; onSaved: () => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [sort, setSort] = useState("variantExternalId");
  const [nameFilter, setNameFilter] = useState("");
  const lines = useInfiniteQuery({
    queryKey: ["lines", operation.id, sort, nameFilter],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await answer(
          api.GET("/v1/operations/{operationId}/lines", {
            params: { path: { operationId: operation.id }, query: { limit: PAGE_SIZE, sort: [sort as LineSort], ...(nameFilter && { variantName: nameFilter }), ...(pageParam && { nextToken: pageParam }) } },
          }),
        )
      ).data as Schemas["LinePage"],
    getNextPageParam: (page) => page.nextToken ?? undefined,
    staleTime: Infinity,
  });
  // All of the lines, one page after another: the first rows show as soon as the first page is in.
  useEffect(() => {
    if (lines.hasNextPage && !lines.isFetchingNextPage && !lines.error) void lines.fetchNextPage();
  }, [lines.hasNextPage, lines.isFetchingNextPage, lines.error, lines.fetchNextPage]);

  const stored = useMemo(
    () =>
      (lines.data?.pages ?? []).flatMap((page) =>
        page.items.map((line): StoredLine => ({ variantExternalId: line.variantExternalId, variantId: line.variantId, variantName: line.variantName, minQuantity: line.minQuantity, maxQuantity: line.maxQuantity, recommendedQuantity: line.recommendedQuantity, quantityIncrement: line.quantityIncrement })),
      ),
    [lines.data],
  );
  const draft = useGridDraft(stored, idOf, cellsOf, COLUMNS.length);
  const { rows } = draft;
  const dirtyCount = draft.dirtyRows.length;

  const readOnly = readOnlyReason !== null;
  const [saving, setSaving] = useState(false);
  const [saveNote, setSaveNote] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const grid = useRef<DataGridHandle>(null);

  const discard = () => {
    draft.discard();
    setRefusal(null);
  };

  /** One PUT per 5000 lines (all or nothing each); the server's errors[] land on their rows. */
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
    try {
      let created = 0;
      let updated = 0;
      for (let offset = 0; offset < dirty.length; offset += MAX_LINES_PER_CALL) {
        const chunk = dirty.slice(offset, offset + MAX_LINES_PER_CALL);
        try {
          const { data } = await answer(api.PUT("/v1/operations/{operationId}/lines", { params: { path: { operationId: operation.id } }, body: chunk.map(inputOf) }));
          created += data.created;
          updated += data.updated;
          draft.settle(chunk);
        } catch (error) {
          const refused = toRefusal(error);
          for (const item of (refused.problem as { errors?: { index?: number; message?: string }[] }).errors ?? []) {
            const row = item.index === undefined ? undefined : chunk[item.index];
            if (row) draft.setServerError(row, item.message ?? refused.problem.code);
          }
          setRefusal(refused);
          draft.refresh();
          return;
        }
      }
      setSaveNote(`Saved: ${created} created, ${updated} updated.`);
      await queryClient.invalidateQueries({ queryKey: ["lines", operation.id] });
      draft.refresh();
      onSaved();
    } finally {
      setSaving(false);
    }
  };

  const loaded = rows.length - draft.addedCount;

  return (
    <div className="lines">
      <div className="grid-bar">
        <h2>Lines</h2>
        <SortChoice value={sort} choices={SORT_CHOICES} onChange={setSort} disabled={dirtyCount > 0} />
        <label>
          Name contains
          <input
            type="search"
            disabled={dirtyCount > 0}
            defaultValue={nameFilter}
            onKeyDown={(e) => e.key === "Enter" && setNameFilter(e.currentTarget.value.trim())}
            onBlur={(e) => setNameFilter(e.currentTarget.value.trim())}
          />
        </label>
        <span className="muted" aria-live="polite">
          {lines.isFetching ? `Loading… ${loaded} of ${operation.lineCount}` : `${loaded} lines`}
          {dirtyCount > 0 && ` · ${dirtyCount} unsaved`}
        </span>
        {!readOnly && (
          <span className="grid-actions">
            <button type="button" onClick={() => grid.current?.addRow()}>
              Add line
            </button>
            <button type="button" onClick={discard} disabled={dirtyCount === 0}>
              Discard
            </button>
            <button type="button" className="primary" onClick={save} disabled={saving || dirtyCount === 0}>
              Save
            </button>
          </span>
        )}
      </div>
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
        help="Arrow keys move · Enter edits · Escape cancels · paste cells from a spreadsheet · new rows past the end become new lines."
        onPasted={(count) => setSaveNote(`Pasted ${count} row${count === 1 ? "" : "s"}.`)}
      />
    </div>
  );
}
