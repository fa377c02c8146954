import { useEffect, useState, type FormEvent } from "react";
import { useSession } from "../shared/context";
import { CsvImport } from "../shared/CsvImport";
import { download } from "../shared/csv";
import { useConfirmLeave, useUnsavedEdits } from "../shared/leaving";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { useViewParams } from "../shared/viewParams";
import { Field, Link, ProblemView, SearchFilter, SortChoice } from "../shared/ui";
import { useAccountNames } from "../api/directory";
import { useDisplaySettings } from "../api/settings";
import { CurrencyNote, formatMoney, Money, moneyInputText, moneyUnit, parseMoney, useCurrency } from "../labels/money";
import { scopeLabel } from "../labels/names";
import { accountName } from "../labels/people";
import {
  describeUpsert,
  exportRulesCsv,
  importRulesCsv,
  ruleSorts,
  useQuotaDefault,
  useRuleList,
  useRulesChanged,
  useSaveQuotaDefault,
  type QuotaRule,
  type RuleFilters,
} from "../api/rules";
import { CheckImpactButton, ImpactRegion, saveLabel, useImpactCheck } from "./Impact";
import { RulesGrid } from "./RulesGrid";
import "./rules.css";
import { scopeText } from "./scope";
import { t } from "../shared/i18n";

/**
 * The unit of a CSV file's minimum: the API's own, minor units, whatever the grid shows, so that an
 * export imports back unchanged and files made for the API work here too.
 */
const csvMinimumNote = (currency: string | null) =>
  currency ? t("rules.csvMinimumIn", { currency, example: formatMoney(18000, currency) }) : t("rules.csvMinimum");

/** The columns a rules CSV holds: the API's field names, the same in every language. */
const RULE_CSV_COLUMNS = ["accountId", "supplierId", "storeId", "minimum", "enforcement"].join(", ");

export function RulesPage() {
  const { api } = useSession();
  const rulesChanged = useRulesChanged();
  // The filters and the sort live in the address. ?view=grid opens the grid at once (a bookmark of the
  // bulk editor); switching views stays out of the history, so Back never drops the grid's unsaved edits.
  const [params, setParams] = useViewParams({ accountId: "", supplierId: "", storeId: "", sort: "createdAt", view: "list" });
  const filters: RuleFilters = {
    accountId: params.accountId.trim(),
    supplierId: params.supplierId.trim(),
    storeId: params.storeId.trim(),
    sort: params.sort as RuleFilters["sort"],
  };
  const [view, setView] = useState<"list" | "grid">(params.view === "grid" ? "grid" : "list");
  const filter = (key: keyof RuleFilters) => (value: string) => setParams({ [key]: value }, { typing: key !== "sort" });
  const confirmLeave = useConfirmLeave();
  const currency = useCurrency();
  return (
    <section>
      <div className="title-row">
        <h1>{t("app.nav.rules")}</h1>
        <Link to="/console/quota-rules/simulator">{t("rules.simulator")}</Link>
        <Link to="/console/quota-rules/new">{t("rules.new")}</Link>
      </div>
      <CurrencyNote />
      <DefaultMinimum />
      <CsvImport
        columns={`${t("rules.csvColumns", { columns: RULE_CSV_COLUMNS })} ${csvMinimumNote(currency)}`}
        send={(text, dryRun) => importRulesCsv(api, text, dryRun)}
        describe={describeUpsert}
        onApplied={() => void rulesChanged()}
        onExport={async () => download("quota-rules.csv", await exportRulesCsv(api, filters))}
      />
      <form className="filters" role="search" aria-label={t("common.filters", { list: t("rules.rules") })} onSubmit={(e) => e.preventDefault()}>
        <SearchFilter label={t("rules.accountId")} value={params.accountId} onChange={filter("accountId")} />
        <SearchFilter label={t("rules.supplierId")} value={params.supplierId} onChange={filter("supplierId")} />
        <SearchFilter label={t("rules.storeId")} value={params.storeId} onChange={filter("storeId")} />
        <SortChoice value={filters.sort} choices={ruleSorts()} onChange={filter("sort")} />
        <div className="view-switch" role="group" aria-label={t("rules.view")}>
          <button type="button" aria-pressed={view === "list"} onClick={() => confirmLeave(() => setView("list"))}>
            {t("rules.list")}
          </button>
          <button type="button" aria-pressed={view === "grid"} onClick={() => setView("grid")}>
            {t("rules.editInGrid")}
          </button>
        </div>
      </form>
      <p className="muted help">{t("rules.filterHelp")}</p>
      {view === "list" ? <RulesList filters={filters} /> : <RulesGrid filters={filters} />}
    </section>
  );
}

/** The list's columns, its accounts by their names (read for the rows shown). */
const ruleColumns = (names: ReadonlyMap<string, string | null> | undefined): Column<QuotaRule>[] => [
  { header: t("field.accountId"), cell: (rule) => (rule.accountId ? accountName(rule.accountId, names) : scopeText(null)) },
  { header: t("field.supplierId"), cell: (rule) => scopeText(rule.supplierId) },
  { header: t("field.storeId"), cell: (rule) => rule.storeId ?? t("scope.everyStore") },
  { header: t("field.minimum"), cell: (rule) => <Money amount={rule.minimum} />, numeric: true },
  { header: t("field.enforcement"), cell: (rule) => rule.enforcement },
  {
    header: t("rules.rule"),
    cell: (rule) => (
      <Link to={`/console/quota-rules/${rule.id}`}>
        {t("webhooks.edit")}
        <span className="sr-only"> {t("rules.editScope", { scope: scopeLabel(rule, names) })}</span>
      </Link>
    ),
  },
];

function RulesList({ filters }: { filters: RuleFilters }) {
  const list = useRuleList(filters);
  const names = useAccountNames((list.data?.pages ?? []).flatMap((page) => page.items.flatMap((rule) => (rule.accountId ? [rule.accountId] : []))));
  return <PagedList label={t("app.nav.rules")} list={list} columns={ruleColumns(names)} rowKey={(rule) => rule.id} empty={t("rules.noneMatches")} />;
}

/** The tenant default: the minimum when no rule matches an order. */
function DefaultMinimum() {
  const current = useQuotaDefault();
  const currency = useCurrency();
  const display = useDisplaySettings();
  const [minimum, setMinimum] = useState("");
  const [enforcement, setEnforcement] = useState<"BLOCK" | "WARN">("BLOCK");
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [saved, setSaved] = useState(false);
  // Set from the stored default when it (or the currency) changes, not on every read of it: a
  // refetch that answers the same default keeps what is being typed.
  const storedMinimum = current.data?.minimum;
  const storedEnforcement = current.data?.enforcement;
  useEffect(() => {
    if (storedMinimum === undefined || storedEnforcement === undefined) return;
    setMinimum(moneyInputText(storedMinimum, currency));
    setEnforcement(storedEnforcement);
  }, [storedMinimum, storedEnforcement, currency]);
  const typed = parseMoney(minimum, currency);
  useUnsavedEdits(Boolean(current.data) && (typed !== current.data?.minimum || enforcement !== current.data?.enforcement));
  const impact = useImpactCheck({ changes: [], default: { minimum: typed, enforcement } });
  const save = useSaveQuotaDefault({
    onMutate: () => {
      setRefusal(null);
      setSaved(false);
    },
    onSuccess: () => {
      impact.reset();
      setSaved(true);
    },
    onError: (error) => setRefusal(toRefusal(error)),
  });
  return (
    <form
      className="card default-minimum"
      aria-label={t("changes.tenantDefault")}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate({ minimum: typed, enforcement });
      }}
    >
      <h2>{t("changes.tenantDefault")}</h2>
      <p className="muted">{t("rules.defaultHelp")}</p>
      <Field id="default-minimum" label={t("rules.defaultMinimum")} hint={t("rules.in", { unit: moneyUnit(currency) })}>
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            required
            disabled={!current.data || display.isPending}
            value={minimum}
            onChange={(e) => {
              setMinimum(e.target.value);
              setSaved(false);
            }}
            aria-invalid={refusal ? true : undefined}
          />
        )}
      </Field>
      <label>
        {t("rules.defaultEnforcement")}
        <select
          disabled={!current.data}
          value={enforcement}
          onChange={(e) => {
            setEnforcement(e.target.value as "BLOCK" | "WARN");
            setSaved(false);
          }}
        >
          <option>BLOCK</option>
          <option>WARN</option>
        </select>
      </label>
      <div className="actions">
        <CheckImpactButton impact={impact} disabled={!current.data} />
        <button type="submit" disabled={save.isPending || !current.data || display.isPending}>
          {saveLabel(t("rules.saveDefault"), impact)}
        </button>
      </div>
      {saved && (
        <p role="status" className="note">
          {t("rules.defaultSaved", { minimum: Number.isNaN(typed) ? minimum : formatMoney(typed, currency), enforcement })}
        </p>
      )}
      <ProblemView refusal={refusal ?? (current.error ? toRefusal(current.error) : null)} />
      <ImpactRegion impact={impact} of="default" />
    </form>
  );
}
