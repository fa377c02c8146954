import type { paths, Schemas } from "@campaign-policy/client";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type ClipboardEvent, type KeyboardEvent } from "react";
import { mergeLines, type StoredLine } from "../../src/lines/bounds";
import { useSession } from "./context";
import type { Operation } from "./OperationsPage";
import { answer, toRefusal, type Refusal } from "./session";
import { ProblemView } from "./ui";

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
/** The column of each bound a server or local check can name. */
const COLUMN_OF_FIELD: Record<string, number> = { minQuantity: 2, maxQuantity: 3, recommendedQuantity: 4, quantityIncrement: 5 };
/** Lines per PUT: the API's limit. */
const MAX_LINES_PER_CALL = 5000;
const PAGE_SIZE = 1000;
const ROW_HEIGHT = 34;
const NAME_LOCALE = "en";

interface GridRow {
  id: string;
  stored?: StoredLine;
  cells: Cells;
}

const nameIn = (name: Record<string, string>) => name[NAME_LOCALE] ?? Object.values(name)[0] ?? "";
const cellsOf = (line: Line): Cells => [line.variantExternalId, nameIn(line.variantName), String(line.minQuantity), String(line.maxQuantity), line.recommendedQuantity === null ? "" : String(line.recommendedQuantity), String(line.quantityIncrement)];
const sameCells = (a: Cells, b: Cells) => a.every((value, i) => value === b[i]);
const WHOLE = /^\d+$/;

/** What a row sends to PUT: every field of a new line, the changed fields of a stored one. */
function inputOf(row: GridRow) {
  const [key, name, min, max, rec, pack] = row.cells;
  const original = row.stored ? cellsOf({ ...row.stored, updatedAt: "" } as Line) : undefined;
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
function errorsOf(row: GridRow): Map<number, string> {
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

interface Draft {
  edits: Map<string, Cells>;
  added: GridRow[];
  serverErrors: Map<string, string>;
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

  const draft = useRef<Draft>({ edits: new Map(), added: [], serverErrors: new Map() }).current;
  const [revision, bump] = useReducer((n: number) => n + 1, 0);
  const rows = useMemo<GridRow[]>(() => {
    const stored = (lines.data?.pages ?? []).flatMap((page) => page.items);
    const fromServer = stored.map((line): GridRow => {
      const storedLine: StoredLine = { variantExternalId: line.variantExternalId, variantId: line.variantId, variantName: line.variantName, minQuantity: line.minQuantity, maxQuantity: line.maxQuantity, recommendedQuantity: line.recommendedQuantity, quantityIncrement: line.quantityIncrement };
      return { id: line.variantExternalId, stored: storedLine, cells: draft.edits.get(line.variantExternalId) ?? cellsOf(line) };
    });
    return fromServer.concat(draft.added);
  }, [lines.data, revision, draft]);
  const isDirty = useCallback((row: GridRow) => !row.stored || draft.edits.has(row.id), [draft]);
  const dirtyCount = useMemo(() => rows.filter(isDirty).length, [rows, isDirty]);

  const readOnly = readOnlyReason !== null;
  const [active, setActive] = useState({ row: 0, col: 2 });
  const [editing, setEditing] = useState<{ value: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [saveNote, setSaveNote] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const gridRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });

  const setCells = (row: GridRow, cells: Cells) => {
    if (row.stored) {
      if (sameCells(cells, cellsOf({ ...row.stored, updatedAt: "" } as Line))) draft.edits.delete(row.id);
      else draft.edits.set(row.id, cells);
    } else row.cells = cells;
    draft.serverErrors.delete(row.id);
  };
  const editable = (row: GridRow | undefined, col: number) => !readOnly && row !== undefined && (col !== 0 || !row.stored);

  const moveTo = (row: number, col: number) => {
    const next = { row: Math.max(0, Math.min(rows.length - 1, row)), col: Math.max(0, Math.min(COLUMNS.length - 1, col)) };
    setActive(next);
    virtualizer.scrollToIndex(next.row, { align: "auto" });
  };
  const commit = (move: [number, number] | null) => {
    const row = rows[active.row];
    if (editing && row) {
      const cells = [...row.cells] as Cells;
      cells[active.col] = editing.value;
      setCells(row, cells);
      bump();
    }
    setEditing(null);
    gridRef.current?.focus();
    if (move) moveTo(active.row + move[0], active.col + move[1]);
  };
  const startEditing = (initial?: string) => {
    if (!editable(rows[active.row], active.col)) return;
    setEditing({ value: initial ?? rows[active.row].cells[active.col] });
  };
  const addLine = () => {
    const row: GridRow = { id: `new-${crypto.randomUUID()}`, cells: ["", "", "", "", "", ""] };
    draft.added.push(row);
    bump();
    setActive({ row: rows.length, col: 0 });
    setTimeout(() => virtualizer.scrollToIndex(rows.length), 0);
    setEditing({ value: "" });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (editing) return;
    const keys: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (keys[event.key]) {
      event.preventDefault();
      moveTo(active.row + keys[event.key][0], active.col + keys[event.key][1]);
    } else if (event.key === "PageDown" || event.key === "PageUp") {
      event.preventDefault();
      moveTo(active.row + (event.key === "PageDown" ? 15 : -15), active.col);
    } else if (event.key === "Home" && event.ctrlKey) moveTo(0, active.col);
    else if (event.key === "End" && event.ctrlKey) moveTo(rows.length - 1, active.col);
    else if (event.key === "Enter" || event.key === "F2") {
      event.preventDefault();
      startEditing();
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      startEditing(event.key);
    }
  };

  /** A block of cells from a spreadsheet (tab-separated), from the active cell across rows and columns; rows past the end are new lines. */
  const onPaste = (event: ClipboardEvent<HTMLDivElement>) => {
    if (readOnly || editing) return;
    const text = event.clipboardData.getData("text/plain");
    if (!text) return;
    event.preventDefault();
    const block = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n").map((line) => line.split("\t"));
    const start = rows.length ? active : { row: 0, col: 0 };
    block.forEach((values, i) => {
      let row = rows[start.row + i] ?? draft.added[start.row + i - rows.length];
      if (!row) {
        row = { id: `new-${crypto.randomUUID()}`, cells: ["", "", "", "", "", ""] };
        draft.added.push(row);
      }
      const cells = [...row.cells] as Cells;
      values.forEach((value, j) => {
        const col = start.col + j;
        if (col < COLUMNS.length && (col !== 0 || !row.stored)) cells[col] = value.trim();
      });
      setCells(row, cells);
    });
    bump();
    setSaveNote(`Pasted ${block.length} row${block.length === 1 ? "" : "s"}.`);
  };

  const discard = () => {
    draft.edits.clear();
    draft.added.length = 0;
    draft.serverErrors.clear();
    setEditing(null);
    setRefusal(null);
    bump();
  };

  /** One PUT per 5000 lines (all or nothing each); the server's errors[] land on their rows. */
  const save = async () => {
    const dirty = rows.filter(isDirty);
    const invalid = dirty.findIndex((row) => errorsOf(row).size > 0);
    setRefusal(null);
    if (invalid >= 0) {
      setSaveNote(`Not saved: fix the marked cells first (${dirty.filter((row) => errorsOf(row).size > 0).length} rows).`);
      moveTo(rows.indexOf(dirty[invalid]), active.col);
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
          for (const row of chunk) {
            if (row.stored) draft.edits.delete(row.id);
          }
          const savedNew = new Set(chunk.filter((row) => !row.stored));
          draft.added = draft.added.filter((row) => !savedNew.has(row));
        } catch (error) {
          const refused = toRefusal(error);
          for (const item of (refused.problem as { errors?: { index?: number; message?: string }[] }).errors ?? []) {
            const row = item.index === undefined ? undefined : chunk[item.index];
            if (row) draft.serverErrors.set(row.id, item.message ?? refused.problem.code);
          }
          setRefusal(refused);
          bump();
          return;
        }
      }
      setSaveNote(`Saved: ${created} created, ${updated} updated.`);
      await queryClient.invalidateQueries({ queryKey: ["lines", operation.id] });
      bump();
      onSaved();
    } finally {
      setSaving(false);
    }
  };

  const activeRow = rows[active.row];
  const activeErrors = activeRow ? errorsOf(editing ? { ...activeRow, cells: Object.assign([...activeRow.cells], { [active.col]: editing.value }) as Cells } : activeRow) : new Map();
  const loaded = rows.length - draft.added.length;

  return (
    <div className="lines">
      <div className="grid-bar">
        <h2>Lines</h2>
        <label>
          Sort
          <select value={sort} onChange={(e) => setSort(e.target.value)} disabled={dirtyCount > 0}>
            {SORTS.flatMap((field) => [field, `-${field}`]).map((value) => (
              <option key={value} value={value}>
                {value.startsWith("-") ? `${value.slice(1)} ↓` : `${value} ↑`}
              </option>
            ))}
          </select>
        </label>
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
            <button type="button" onClick={addLine}>
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
      <div
        ref={gridRef}
        role="grid"
        tabIndex={0}
        aria-label={`Lines of ${operation.code}`}
        aria-rowcount={rows.length + 1}
        aria-colcount={COLUMNS.length}
        aria-readonly={readOnly || undefined}
        aria-describedby={readOnlyReason ? "grid-readonly" : "grid-help"}
        aria-activedescendant={!editing && activeRow ? `cell-${active.row}-${active.col}` : undefined}
        className={`grid${readOnly ? " readonly" : ""}`}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      >
        <div role="rowgroup" className="grid-head">
          <div role="row" aria-rowindex={1} className="grid-row">
            {COLUMNS.map((column) => (
              <div key={column.field} role="columnheader" className={column.numeric ? "num" : undefined}>
                {column.label}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" ref={scrollRef} className="grid-body">
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              const errors = errorsOf(row);
              const serverError = draft.serverErrors.get(row.id);
              const dirty = isDirty(row);
              return (
                <div
                  key={row.id}
                  role="row"
                  aria-rowindex={item.index + 2}
                  className={`grid-row${dirty ? " dirty" : ""}${serverError ? " server-error" : ""}`}
                  style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                >
                  {COLUMNS.map((column, col) => {
                    const isActive = active.row === item.index && active.col === col;
                    const error = errors.get(col) ?? (col === 0 ? serverError : undefined);
                    return (
                      <div
                        key={column.field}
                        id={`cell-${item.index}-${col}`}
                        role="gridcell"
                        aria-colindex={col + 1}
                        aria-selected={isActive}
                        aria-invalid={error ? true : undefined}
                        aria-readonly={!editable(row, col) || undefined}
                        title={error}
                        className={`${column.numeric ? "num" : ""}${isActive ? " active" : ""}${error ? " invalid" : ""}`}
                        onMouseDown={() => {
                          if (editing) commit(null);
                          setActive({ row: item.index, col });
                        }}
                        onDoubleClick={() => startEditing()}
                      >
                        {isActive && editing ? (
                          <input
                            autoFocus
                            aria-label={`${column.field}, row ${item.index + 1}`}
                            aria-invalid={activeErrors.has(col) || undefined}
                            inputMode={column.numeric ? "numeric" : undefined}
                            value={editing.value}
                            onChange={(e) => setEditing({ value: e.target.value })}
                            onKeyDown={(e) => {
                              if (e.key === "Enter") (e.preventDefault(), commit([1, 0]));
                              else if (e.key === "Escape") (e.preventDefault(), setEditing(null), gridRef.current?.focus());
                              else if (e.key === "Tab") (e.preventDefault(), commit([0, e.shiftKey ? -1 : 1]));
                            }}
                          />
                        ) : (
                          <>
                            {row.cells[col]}
                            {col === 0 && dirty && <span className="sr-only"> (unsaved)</span>}
                          </>
                        )}
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <p id="grid-help" className="muted help">
        Arrow keys move · Enter edits · Escape cancels · paste cells from a spreadsheet · new rows past the end become new lines.
      </p>
      <div role="status" aria-live="polite" className="cell-errors">
        {[...activeErrors.entries()].map(([col, message]) => (
          <p key={col} className="error-text">
            Row {active.row + 1}, {COLUMNS[col].field}: {message}
          </p>
        ))}
        {activeRow && draft.serverErrors.get(activeRow.id) && <p className="error-text">Server: {draft.serverErrors.get(activeRow.id)}</p>}
      </div>
    </div>
  );
}
