import { useMemo, useRef, useState } from "react";
import { useSession } from "../shared/context";
import { useDisplaySettings } from "../api/settings";
import { GridExcelTools } from "../shared/excel/ExcelTools";
import { DataGrid, type DataGridHandle } from "../shared/grid/DataGrid";
import { DiscardButton } from "../shared/grid/GridTools";
import type { GridColumn } from "../shared/grid/models/columns";
import { useGridDraft } from "../shared/grid/hooks/useGridDraft";
import type { Cells, GridRow } from "../shared/grid/models/draft";
import { useBatchSave } from "../shared/grid/hooks/useBatchSave";
import { useUnsavedEdits } from "../shared/leaving";
import { API_LIMITS } from "../shared/limits";
import { toRefusal } from "../shared/session";
import { inFieldLabels } from "../labels/fields";
import { moneyInputText, moneyProblem, moneyUnit, parseMoney } from "../labels/money";
import { ProblemView } from "../shared/ui";
import { describeUpsert, putRules, useAllRules, useRulesChanged, type ImpactRequest, type QuotaRule, type RuleFilters } from "../api/rules";
import { CheckImpactButton, ImpactRegion, saveLabel, useImpactCheck } from "./Impact";
import { t, useInLanguage } from "../shared/i18n";
import { rulesSheet } from "./rulesSheet";

type Field = "accountId" | "supplierId" | "storeId" | "minimum" | "enforcement";
type RuleCells = Record<Field, string>;
const FIELDS: Field[] = ["accountId", "supplierId", "storeId", "minimum", "enforcement"];
/** A stored rule's scope is its key in a bulk PUT: changing it is another rule (the rule's own form moves it). */
const SCOPE_FIELDS: Field[] = ["accountId", "supplierId", "storeId"];

type RuleRow = GridRow<QuotaRule>;

const idOf = (rule: QuotaRule) => rule.id;
const key = (value: string) => value.trim() || null;

/**
 * The grid's columns and conversions in one currency: the minimum is shown, typed, pasted, filled and
 * replaced in its major units ("180.00" in EUR; its header says the unit), and converted exactly to the
 * API's minor units (18000) only when sent. Without a currency it is the minor units as the API holds them.
 */
function rulesTable(currency: string | null) {
  const unit = moneyUnit(currency);
  const columns = [
    { key: "accountId", label: t("field.accountId"), grow: 1.2 },
    { key: "supplierId", label: t("field.supplierId"), grow: 1.2 },
    { key: "storeId", label: t("rules.storeColumn"), short: t("field.storeId"), grow: 1.2 },
    {
      key: "minimum",
      label: t("rules.minimumIn", { unit }),
      short: currency ? t("rules.minShortIn", { currency }) : t("rules.minShort"),
      numeric: true,
      grow: 0.8,
      normalize: (text: string) => {
        const minor = parseMoney(text, currency);
        return Number.isNaN(minor) ? text : moneyInputText(minor, currency);
      },
    },
    { key: "enforcement", label: t("field.enforcement"), short: t("rules.enforceShort"), grow: 0.8 },
  ] satisfies (GridColumn & { key: Field })[];

  const cellsOf = (rule: QuotaRule): Cells =>
    ({
      accountId: rule.accountId ?? "",
      supplierId: rule.supplierId ?? "",
      storeId: rule.storeId ?? "",
      minimum: moneyInputText(rule.minimum, currency),
      enforcement: rule.enforcement,
    }) satisfies RuleCells;

  /** What a row sends to the bulk PUT, which upserts by scope. */
  const ruleInputOf = (row: RuleRow) => {
    const cells = row.cells as RuleCells;
    return {
      accountId: key(cells.accountId),
      supplierId: key(cells.supplierId),
      storeId: key(cells.storeId),
      minimum: parseMoney(cells.minimum, currency),
      enforcement: (cells.enforcement.trim().toUpperCase() || "BLOCK") as QuotaRule["enforcement"],
    };
  };

  /** The checks the API makes of one rule, as the cells are typed (the minimum's in the grid's unit). */
  const errorsOf = (row: RuleRow): Map<string, string> => {
    const errors = new Map<string, string>();
    const { accountId, supplierId, minimum, enforcement } = row.cells as RuleCells;
    if (!accountId.trim() && !supplierId.trim()) errors.set("accountId", t("rules.needsScope"));
    const problem = moneyProblem(minimum, currency);
    if (problem) errors.set("minimum", problem);
    if (enforcement.trim() && !["BLOCK", "WARN"].includes(enforcement.trim().toUpperCase())) errors.set("enforcement", t("rules.blockOrWarn"));
    return errors;
  };

  /** The grid's unsaved rows as an impact request (a stored rule replaced, a new one created); null past the API's limit of changes. */
  const impactRequestOf = (rows: RuleRow[]): ImpactRequest | null => {
    if (rows.length === 0 || rows.length > API_LIMITS.impactChanges) return null;
    return {
      changes: rows.map((row) => (row.stored ? { op: "replace", ruleId: row.stored.id, rule: ruleInputOf(row) } : { op: "create", rule: ruleInputOf(row) })),
    };
  };

  return { columns, cellsOf, ruleInputOf, errorsOf, impactRequestOf };
}

/** A rule's scope in a sentence: "ACC / SUP / any". */
const scopeOf = (row: RuleRow) => SCOPE_FIELDS.map((field) => row.cells[field].trim() || t("changes.any")).join(" / ");

/** Every rule of the filters in one grid, once the tenant's currency is known (the minimum is typed in it). */
export function RulesGrid({ filters }: { filters: RuleFilters }) {
  const display = useDisplaySettings();
  // Asked here, beside the currency, not after it: the rules load meanwhile.
  const rules = useAllRules(filters);
  if (display.isPending) return <p className="muted">{t("common.loading")}</p>;
  return <RulesGridIn rules={rules} currency={display.data?.currency ?? null} />;
}

/** The grid in one currency: edits go in one bulk PUT per API_LIMITS.rulesPerPut rules, a dry run first, then Apply. */
function RulesGridIn({ rules, currency: current }: { rules: ReturnType<typeof useAllRules>; currency: string | null }) {
  const { api } = useSession();
  // The unit of the cells is the one they were typed in: a currency set meanwhile (elsewhere) would
  // turn "180.00" typed in minor units into other amounts, so the grid keeps the one it opened with.
  const [currency] = useState(current);
  const { columns, cellsOf, ruleInputOf, errorsOf, impactRequestOf } = useInLanguage(() => rulesTable(currency), currency);
  const sheetCodec = useMemo(() => rulesSheet(currency), [currency]);
  const rulesChanged = useRulesChanged();
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
    messageOf: (item, refusal) => inFieldLabels(`${item.field ? `${item.field.split(".").pop()}: ` : ""}${item.message ?? refusal.problem.code}`),
    errorsOf,
    what: "rules",
    labelOf: scopeOf,
    describe: describeUpsert,
    confirm: "apply",
    reload: () => rulesChanged(),
  });

  const loaded = draft.rows.length - draft.addedCount;
  /** What a paste, an edit or an import did: the last check is forgotten. */
  const say = (text: string) => {
    saving.reset();
    saving.setNote(text);
  };
  return (
    <div className="rules-grid-wrap">
      <div className="grid-bar">
        <h2>{t("rules.rules")}</h2>
        <span className="muted" aria-live="polite">
          {rules.isFetching ? t("lines.loadingSome", { loaded }) : t("rules.count", { count: loaded })}
          {dirtyCount > 0 && ` · ${t("lines.unsaved", { count: dirtyCount })}`}
        </span>
        <span className="grid-actions">
          <GridExcelTools
            file="quota-rules"
            codec={sheetCodec}
            grid={{ draft, handle: grid, columns, errorsOf }}
            loading={rules.isPending || rules.hasNextPage}
            onNote={say}
          />
          <button
            type="button"
            onClick={() => {
              saving.reset();
              grid.current?.addRow();
            }}
          >
            {t("rules.add")}
          </button>
          <DiscardButton draft={draft} saving={saving} dirtyCount={dirtyCount} undoable />
          <CheckImpactButton impact={impact} disabled={dirtyCount === 0 || dirtyCount > API_LIMITS.impactChanges} />
          <button type="button" className="primary" onClick={saving.save} disabled={saving.busy || dirtyCount === 0}>
            {t("rules.checkChanges")}
          </button>
        </span>
      </div>
      {saving.note && (
        <div role="status" className="note import-outcome">
          {saving.note}
          {saving.checked && (
            <button type="button" className="primary" onClick={saving.apply} disabled={saving.busy}>
              {saveLabel(t("common.apply"), impact)}
            </button>
          )}
        </div>
      )}
      <ImpactRegion impact={impact} of={dirtyCount === 1 ? "edit" : "edits"} />
      <ProblemView refusal={saving.refusal} />
      <ProblemView refusal={rules.error ? toRefusal(rules.error) : null} />
      <DataGrid
        ref={grid}
        label={t("app.nav.rules")}
        columns={columns}
        draft={draft}
        readOnly={false}
        errorsOf={errorsOf}
        lockedWhenStored={SCOPE_FIELDS}
        initialField="minimum"
        className="rules-grid"
        empty={rules.isPending ? t("common.loading") : t("rules.noneInGrid")}
        help={t("rules.help")}
        onNote={say}
      />
    </div>
  );
}
