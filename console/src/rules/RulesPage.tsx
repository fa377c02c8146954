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
  SORTS,
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

/**
 * The unit of a CSV file's minimum: the API's own, minor units, whatever the grid shows, so that an
 * export imports back unchanged and files made for the API work here too.
 */
const csvMinimumNote = (currency: string | null) =>
  currency
    ? `The file's minimum is in minor units of ${currency}, as the API holds it: 18000 is ${formatMoney(18000, currency)}.`
    : "The file's minimum is in minor units, as the API holds it.";

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
        <h1>Quota rules</h1>
        <Link to="/console/quota-rules/simulator">Simulator</Link>
        <Link to="/console/quota-rules/new">New rule</Link>
      </div>
      <CurrencyNote />
      <DefaultMinimum />
      <CsvImport
        columns={`accountId, supplierId, storeId, minimum, enforcement (id is ignored: an export imports back). ${csvMinimumNote(currency)}`}
        send={(text, dryRun) => importRulesCsv(api, text, dryRun)}
        describe={describeUpsert}
        onApplied={() => void rulesChanged()}
        onExport={async () => download("quota-rules.csv", await exportRulesCsv(api, filters))}
      />
      <form className="filters" role="search" aria-label="Filter rules" onSubmit={(e) => e.preventDefault()}>
        <SearchFilter label="Account id" value={params.accountId} onChange={filter("accountId")} />
        <SearchFilter label="Supplier id" value={params.supplierId} onChange={filter("supplierId")} />
        <SearchFilter label="Store id" value={params.storeId} onChange={filter("storeId")} />
        <SortChoice value={filters.sort} choices={SORTS} onChange={filter("sort")} />
        <div className="view-switch" role="group" aria-label="View">
          <button type="button" aria-pressed={view === "list"} onClick={() => confirmLeave(() => setView("list"))}>
            List
          </button>
          <button type="button" aria-pressed={view === "grid"} onClick={() => setView("grid")}>
            Edit in a grid
          </button>
        </div>
      </form>
      <p className="muted help">Each filter matches its id exactly; a rule without that key never matches it.</p>
      {view === "list" ? <RulesList filters={filters} /> : <RulesGrid filters={filters} />}
    </section>
  );
}

/** The list's columns, its accounts by their names (read for the rows shown). */
const ruleColumns = (names: ReadonlyMap<string, string | null> | undefined): Column<QuotaRule>[] => [
  { header: "Account", cell: (rule) => (rule.accountId ? accountName(rule.accountId, names) : scopeText(null)) },
  { header: "Supplier", cell: (rule) => scopeText(rule.supplierId) },
  { header: "Store", cell: (rule) => rule.storeId ?? "every store" },
  { header: "Minimum", cell: (rule) => <Money amount={rule.minimum} />, numeric: true },
  { header: "Enforcement", cell: (rule) => rule.enforcement },
  {
    header: "Rule",
    cell: (rule) => (
      <Link to={`/console/quota-rules/${rule.id}`}>
        Edit<span className="sr-only"> the rule of {scopeLabel(rule, names)}</span>
      </Link>
    ),
  },
];

function RulesList({ filters }: { filters: RuleFilters }) {
  const list = useRuleList(filters);
  const names = useAccountNames((list.data?.pages ?? []).flatMap((page) => page.items.flatMap((rule) => (rule.accountId ? [rule.accountId] : []))));
  return <PagedList label="Quota rules" list={list} columns={ruleColumns(names)} rowKey={(rule) => rule.id} empty="No rule matches." />;
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
      aria-label="Tenant default"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate({ minimum: typed, enforcement });
      }}
    >
      <h2>Tenant default</h2>
      <p className="muted">The minimum of an order no rule matches.</p>
      <Field id="default-minimum" label="Default minimum" hint={`In ${moneyUnit(currency)}`}>
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
        Default enforcement
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
          {saveLabel("Save default", impact)}
        </button>
      </div>
      {saved && (
        <p role="status" className="note">
          Default saved: {Number.isNaN(typed) ? minimum : formatMoney(typed, currency)} ({enforcement}).
        </p>
      )}
      <ProblemView refusal={refusal ?? (current.error ? toRefusal(current.error) : null)} />
      <ImpactRegion impact={impact} what="this default" />
    </form>
  );
}
