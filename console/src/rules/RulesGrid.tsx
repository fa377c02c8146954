import { useMemo, useRef } from "react";
import { useSession } from "../shared/context";
import { DataGrid, type DataGridHandle } from "../shared/grid/DataGrid";
import { useGridDraft, type Cells, type GridRow } from "../shared/grid/draft";
import { useBatchSave } from "../shared/grid/useBatchSave";
import { useUnsavedEdits } from "../shared/leaving";
import { API_LIMITS } from "../shared/limits";
import { toRefusal } from "../shared/session";
import { ProblemView } from "../shared/ui";
import { describeUpsert, putRules, useAllRules, useRulesChanged, type ImpactRequest, type QuotaRule, type RuleFilters } from "./api";
import { CheckImpactButton, ImpactRegion, saveLabel, useImpactCheck } from "./Impact";

const COLUMNS = [
  { key: "accountId", label: "Account" },
  { key: "supplierId", label: "Supplier" },
  { key: "storeId", label: "Store (empty: every store)", short: "Store" },
  { key: "minimum", label: "Minimum", short: "Min.", numeric: true },
  { key: "enforcement", label: "Enforcement", short: "Enforce" },
] as const;
type Field = (typeof COLUMNS)[number]["key"];
type RuleCells = Record<Field, string>;
const FIELDS = COLUMNS.map((column) => column.key);
/** A stored rule's scope is its key in a bulk PUT: changing it is another rule (the rule's own form moves it). */
const SCOPE_FIELDS: Field[] = ["accountId", "supplierId", "storeId"];
const WHOLE = /^\d+$/;

type RuleRow = GridRow<QuotaRule>;

const cellsOf = (rule: QuotaRule): Cells =>
  ({
    accountId: rule.accountId ?? "",
    supplierId: rule.supplierId ?? "",
    storeId: rule.storeId ?? "",
    minimum: String(rule.minimum),
    enforcement: rule.enforcement,
  }) satisfies RuleCells;
const idOf = (rule: QuotaRule) => rule.id;
const key = (value: string) => value.trim() || null;

/** What a row sends to the bulk PUT, which upserts by scope. */
export function ruleInputOf(row: RuleRow) {
  const cells = row.cells as RuleCells;
  return {
    accountId: key(cells.accountId),
    supplierId: key(cells.supplierId),
    storeId: key(cells.storeId),
    minimum: Number(cells.minimum.trim()),
    enforcement: (cells.enforcement.trim().toUpperCase() || "BLOCK") as QuotaRule["enforcement"],
  };
}

/** The checks the API makes of one rule, as the cells are typed. */
function errorsOf(row: RuleRow): Map<string, string> {
  const errors = new Map<string, string>();
  const { accountId, supplierId, minimum, enforcement } = row.cells as RuleCells;
  if (!accountId.trim() && !supplierId.trim()) errors.set("accountId", "at least one of accountId and supplierId must be set");
  if (!WHOLE.test(minimum.trim()) || !Number.isSafeInteger(Number(minimum.trim()))) errors.set("minimum", "a whole number ≥ 0");
  if (enforcement.trim() && !["BLOCK", "WARN"].includes(enforcement.trim().toUpperCase())) errors.set("enforcement", "BLOCK or WARN");
  return errors;
}

/** The grid's unsaved rows as an impact request (a stored rule replaced, a new one created); null past the API's limit of changes. */
function impactRequestOf(rows: RuleRow[]): ImpactRequest | null {
  if (rows.length === 0 || rows.length > API_LIMITS.impactChanges) return null;
  return {
    changes: rows.map((row) => (row.stored ? { op: "replace", ruleId: row.stored.id, rule: ruleInputOf(row) } : { op: "create", rule: ruleInputOf(row) })),
  };
}

/** A rule's scope in a sentence: "ACC / SUP / any". */
const scopeOf = (row: RuleRow) => SCOPE_FIELDS.map((field) => row.cells[field].trim() || "any").join(" / ");

/** Every rule of the filters in one grid; edits go in one bulk PUT per API_LIMITS.rulesPerPut rules, a dry run first, then Apply. */
export function RulesGrid({ filters }: { filters: RuleFilters }) {
  const { api } = useSession();
  const rulesChanged = useRulesChanged();
  const rules = useAllRules(filters);
  const stored = useMemo(() => (rules.data?.pages ?? []).flatMap((page) => page.items), [rules.data]);
  const draft = useGridDraft(stored, idOf, cellsOf, FIELDS);
  const dirtyCount = draft.dirtyRows.length;
  const grid = useRef<DataGridHandle>(null);
  useUnsavedEdits(dirtyCount > 0);
  const impact = useImpactCheck(impactRequestOf(draft.dirtyRows));

  const saving = useBatchSave({
    draft,
    grid,
    size: API_LIMITS.rulesPerPut,
    put: (chunk, dryRun) => putRules(api, chunk.map(ruleInputOf), dryRun),
    messageOf: (item, refusal) => `${item.field ? `${item.field.split(".").pop()}: ` : ""}${item.message ?? refusal.problem.code}`,
    errorsOf,
    what: "rules",
    labelOf: scopeOf,
    describe: describeUpsert,
    confirm: "apply",
    reload: () => rulesChanged(),
  });

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
              saving.reset();
              grid.current?.addRow();
            }}
          >
            Add rule
          </button>
          <button
            type="button"
            onClick={() => {
              draft.discard();
              saving.reset();
            }}
            disabled={dirtyCount === 0}
          >
            Discard
          </button>
          <CheckImpactButton impact={impact} disabled={dirtyCount === 0 || dirtyCount > API_LIMITS.impactChanges} />
          <button type="button" className="primary" onClick={saving.save} disabled={saving.busy || dirtyCount === 0}>
            Check changes
          </button>
        </span>
      </div>
      {saving.note && (
        <div role="status" className="note import-outcome">
          {saving.note}
          {saving.checked && (
            <button type="button" className="primary" onClick={saving.apply} disabled={saving.busy}>
              {saveLabel("Apply", impact)}
            </button>
          )}
        </div>
      )}
      <ImpactRegion impact={impact} what={`${dirtyCount === 1 ? "this edit" : "these edits"}`} />
      <ProblemView refusal={saving.refusal} />
      <ProblemView refusal={rules.error ? toRefusal(rules.error) : null} />
      <DataGrid
        ref={grid}
        label="Quota rules"
        columns={COLUMNS}
        draft={draft}
        readOnly={false}
        errorsOf={errorsOf}
        lockedWhenStored={SCOPE_FIELDS}
        initialField="minimum"
        className="rules-grid"
        empty="No rule matches the filters: Add rule, or paste cells from a spreadsheet."
        help="Arrow keys move · Enter edits · Escape cancels · paste cells from a spreadsheet · a stored rule's scope is changed in its own form · Check changes sends a dry run, Apply saves."
        onNote={(text) => {
          saving.reset();
          saving.setNote(text);
        }}
      />
    </div>
  );
}
