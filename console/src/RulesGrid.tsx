import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useSession } from "./context";
import { DataGrid, useGridDraft, type DataGridHandle, type GridRow } from "./DataGrid";
import { ChunkRefused, describePartialSave, putInChunks, type ChunkedPut } from "./gridSave";
import { useUnsavedEdits } from "./leaving";
import { describeUpsert, ruleQuery, RULES_PAGE_SIZE, type QuotaRule, type RuleFilters, type RulePage } from "./rules";
import { answer, toRefusal, type Refusal } from "./session";
import { ProblemView } from "./ui";

const COLUMNS = [
  { field: "accountId", label: "Account" },
  { field: "supplierId", label: "Supplier" },
  { field: "storeId", label: "Store (empty: every store)", short: "Store" },
  { field: "minimum", label: "Minimum", short: "Min.", numeric: true },
  { field: "enforcement", label: "Enforcement", short: "Enforce" },
] as const;
/** A stored rule's scope is its key in a bulk PUT: changing it is another rule (the rule's own form moves it). */
const SCOPE_COLUMNS = [0, 1, 2];
const COLUMN_OF_FIELD: Record<string, number> = { accountId: 0, supplierId: 1, storeId: 2, minimum: 3, enforcement: 4 };
/** Rules per PUT: the API's limit. */
const MAX_RULES_PER_CALL = 5000;
const WHOLE = /^\d+$/;

type RuleRow = GridRow<QuotaRule>;
type UpsertCounts = { created: number; updated: number; unchanged: number };

const cellsOf = (rule: QuotaRule) => [rule.accountId ?? "", rule.supplierId ?? "", rule.storeId ?? "", String(rule.minimum), rule.enforcement];
const idOf = (rule: QuotaRule) => rule.id;
const key = (value: string) => value.trim() || null;

/** What a row sends to the bulk PUT, which upserts by scope. */
function inputOf(row: RuleRow) {
  const [accountId, supplierId, storeId, minimum, enforcement] = row.cells;
  return {
    accountId: key(accountId),
    supplierId: key(supplierId),
    storeId: key(storeId),
    minimum: Number(minimum.trim()),
    enforcement: (enforcement.trim().toUpperCase() || "BLOCK") as QuotaRule["enforcement"],
  };
}

/** The checks the API makes of one rule, as the cells are typed. */
function errorsOf(row: RuleRow): Map<number, string> {
  const errors = new Map<number, string>();
  const [accountId, supplierId, , minimum, enforcement] = row.cells;
  if (!accountId.trim() && !supplierId.trim()) errors.set(0, "at least one of accountId and supplierId must be set");
  if (!WHOLE.test(minimum.trim()) || !Number.isSafeInteger(Number(minimum.trim()))) errors.set(3, "a whole number ≥ 0");
  if (enforcement.trim() && !["BLOCK", "WARN"].includes(enforcement.trim().toUpperCase())) errors.set(4, "BLOCK or WARN");
  return errors;
}

/** Every rule of the filters in one grid; edits go in one bulk PUT per 5000 rules, a dry run first. */
export function RulesGrid({ filters }: { filters: RuleFilters }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const rules = useInfiniteQuery({
    queryKey: ["quota-rules", "grid", filters],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (await answer(api.GET("/v1/buying-policies/quotas/rules", { params: { query: ruleQuery(filters, RULES_PAGE_SIZE, pageParam) } }))).data as RulePage,
    getNextPageParam: (page) => page.nextToken ?? undefined,
    staleTime: Infinity,
  });
  useEffect(() => {
    if (rules.hasNextPage && !rules.isFetchingNextPage && !rules.error) void rules.fetchNextPage();
  }, [rules.hasNextPage, rules.isFetchingNextPage, rules.error, rules.fetchNextPage]);
  const stored = useMemo(() => (rules.data?.pages ?? []).flatMap((page) => page.items), [rules.data]);
  const draft = useGridDraft(stored, idOf, cellsOf, COLUMNS.length);
  const dirtyCount = draft.dirtyRows.length;
  const grid = useRef<DataGridHandle>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  /** The rows a dry run accepted: Apply sends exactly these. */
  const [checked, setChecked] = useState<{ rows: RuleRow[]; body: string } | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  useUnsavedEdits(dirtyCount > 0);
  const call: ChunkedPut<QuotaRule, UpsertCounts> = {
    draft,
    size: MAX_RULES_PER_CALL,
    put: async (chunk, dryRun) => (await answer(api.PUT("/v1/buying-policies/quotas/rules", { params: { query: { dryRun } }, body: chunk.map(inputOf) }))).data,
    messageOf: (item, refusal) => `${item.field ? `${item.field.split(".").pop()}: ` : ""}${item.message ?? refusal.problem.code}`,
  };

  const check = async () => {
    const dirty = draft.dirtyRows;
    setRefusal(null);
    setChecked(null);
    const invalid = dirty.filter((row) => errorsOf(row).size > 0);
    if (invalid.length) {
      setNote(`Not checked: fix the marked cells first (${invalid.length} rows).`);
      const first = invalid[0];
      grid.current?.moveTo(draft.rows.indexOf(first), [...errorsOf(first).keys()][0]);
      return;
    }
    setBusy(true);
    try {
      const totals = await putInChunks(dirty, true, call);
      setChecked({ rows: dirty, body: JSON.stringify(dirty.map(inputOf)) });
      setNote(`Dry run: ${describeUpsert(totals)}. Nothing is saved yet.`);
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setNote(null);
      setRefusal(error.refusal);
    } finally {
      setBusy(false);
    }
  };

  const apply = async () => {
    if (!checked) return;
    // Cells changed since the dry run: check again rather than save what was not checked.
    if (JSON.stringify(draft.dirtyRows.map(inputOf)) !== checked.body) return check();
    setBusy(true);
    let saved: string;
    try {
      saved = `Saved: ${describeUpsert(await putInChunks(checked.rows, false, call))}.`;
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setRefusal(error.refusal);
      saved = describePartialSave(error, checked.rows.length, "rules", (row: RuleRow) =>
        row.cells
          .slice(0, 3)
          .map((cell) => cell.trim() || "any")
          .join(" / "),
      );
    }
    // The grid shows the stored rules again before it says what was saved.
    setChecked(null);
    await queryClient.invalidateQueries({ queryKey: ["quota-rules"] });
    draft.refresh();
    setNote(saved);
    setBusy(false);
  };

  const loaded = draft.rows.length - draft.addedCount;
  return (
    <div className="rules-grid-wrap">
      <div className="grid-bar">
        <h2>Rules</h2>
        <span className="muted" aria-live="polite">
          {rules.isFetching ? `Loading… ${loaded}` : `${loaded} rules`}
          {dirtyCount > 0 && ` · ${dirtyCount} unsaved`}
        </span>
        <span className="grid-actions">
          <button
            type="button"
            onClick={() => {
              setChecked(null);
              grid.current?.addRow();
            }}
          >
            Add rule
          </button>
          <button
            type="button"
            onClick={() => {
              draft.discard();
              setChecked(null);
              setRefusal(null);
              setNote(null);
            }}
            disabled={dirtyCount === 0}
          >
            Discard
          </button>
          <button type="button" className="primary" onClick={check} disabled={busy || dirtyCount === 0}>
            Check changes
          </button>
        </span>
      </div>
      {note && (
        <div role="status" className="note import-outcome">
          {note}
          {checked && (
            <button type="button" className="primary" onClick={apply} disabled={busy}>
              Apply
            </button>
          )}
        </div>
      )}
      <ProblemView refusal={refusal} />
      <ProblemView refusal={rules.error ? toRefusal(rules.error) : null} />
      <DataGrid
        ref={grid}
        label="Quota rules"
        columns={COLUMNS}
        draft={draft}
        readOnly={false}
        errorsOf={errorsOf}
        lockedWhenStored={SCOPE_COLUMNS}
        initialColumn={COLUMN_OF_FIELD.minimum}
        className="rules-grid"
        empty="No rule matches the filters: Add rule, or paste cells from a spreadsheet."
        help="Arrow keys move · Enter edits · Escape cancels · paste cells from a spreadsheet · a stored rule's scope is changed in its own form · Check changes sends a dry run, Apply saves."
        onNote={(text) => {
          setChecked(null);
          setNote(text);
        }}
      />
    </div>
  );
}
