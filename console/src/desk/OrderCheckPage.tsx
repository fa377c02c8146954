import { useState, type ChangeEvent, type DragEvent, type FormEvent } from "react";
import { nameOf, useOperationPicker } from "../api/operations";
import { download, hasHeader, parseTable, toCsv } from "../shared/csv";
import { ListTable, type Column } from "../shared/PagedList";
import { toRefusal } from "../shared/session";
import { ChoiceFilter, Field, FirstOf, Link, ProblemView, SearchFilter } from "../shared/ui";
import { useCompare, type Comparison } from "../api/compare";
import { DISCREPANCY_CODES, discrepancyWords } from "../labels/discrepancies";
import { fieldLabel } from "../labels/fields";
import { formatNumber } from "../shared/format";
import { t } from "../shared/i18n";
import { shortfallText } from "../labels/allocation";
import { accountHint, useTypedAccountName } from "../labels/names";

type Issue = Comparison["issues"][number];
type OrderLine = { variantExternalId: string; quantity: number };

/** The discrepancies to filter by, in words (the filter keeps the API's code). */
const issueChoices = () => DISCREPANCY_CODES.map((code) => [code, discrepancyWords(code)] as const);
/** The report's counts, each named as its discrepancy is. */
const summary = (): [keyof Comparison["summary"], string][] => [
  ["checked", t("check.checked")],
  ["inBounds", t("check.inBounds")],
  ["belowMin", discrepancyWords("below_min")],
  ["aboveMax", discrepancyWords("above_max")],
  ["notInOperation", discrepancyWords("not_in_operation")],
  ["missingRequired", discrepancyWords("missing_required")],
  ["incrementMismatch", discrepancyWords("increment_mismatch")],
  ["allocationExceeded", discrepancyWords("allocation_exceeded")],
];
const issueColumns = (): Column<Issue>[] => [
  { header: t("field.variantExternalId"), cell: (issue) => issue.variantExternalId },
  { header: t("check.discrepancy"), cell: (issue) => <span className={`badge issue ${issue.code}`}>{discrepancyWords(issue.code)}</span> },
  {
    header: t("check.quantity"),
    numeric: true,
    cell: (issue) => (issue.quantity === null || issue.quantity === undefined ? "—" : formatNumber(issue.quantity)),
  },
  { header: fieldLabel("minQuantity"), numeric: true, cell: (issue) => (issue.minQuantity == null ? "—" : formatNumber(issue.minQuantity)) },
  { header: fieldLabel("maxQuantity"), numeric: true, cell: (issue) => (issue.maxQuantity == null ? "—" : formatNumber(issue.maxQuantity)) },
  { header: fieldLabel("quantityIncrement"), numeric: true, cell: (issue) => (issue.quantityIncrement == null ? "" : formatNumber(issue.quantityIncrement)) },
  // What is left of the pool and of the account's cap, and what fits: an order asking more is refused whole.
  { header: t("check.whatIsLeft"), wrap: true, cell: (issue) => (issue.code === "allocation_exceeded" ? shortfallText(issue) : "") },
];
/** A pasted order as the API names its columns (its field names: the same in every language). */
const ORDER_EXAMPLE = "variantExternalId,quantity\nSKU-1001-M,12";

/**
 * An order's lines from a paste or a file: variant and quantity, comma or tab separated, with or
 * without a header row. Rows that are not a variant and a whole quantity are named, not sent.
 */
export function readOrder(text: string): { lines: OrderLine[]; errors: string[] } {
  const rows = parseTable(text);
  const first = hasHeader(rows, ["variantExternalId", "variant", "quantity"]) ? 1 : 0;
  const lines: OrderLine[] = [];
  const errors: string[] = [];
  rows.slice(first).forEach(([variantExternalId = "", quantity = ""], i) => {
    const row = i + first + 1;
    if (!variantExternalId) errors.push(t("check.noVariant", { row }));
    else if (!/^\d+$/.test(quantity)) errors.push(t("check.notWhole", { row, quantity }));
    else lines.push({ variantExternalId, quantity: Number(quantity) });
  });
  return { lines, errors };
}

export function OrderCheckPage() {
  const [search, setSearch] = useState("");
  const [operationId, setOperationId] = useState("");
  const [order, setOrder] = useState("");
  const [accountId, setAccountId] = useState("");
  const accountNamed = useTypedAccountName(accountId);
  const [parseErrors, setParseErrors] = useState<string[]>([]);
  const operations = useOperationPicker(search);
  const compare = useCompare(operationId);
  const run = (text: string) => {
    const { lines, errors } = readOrder(text);
    setParseErrors(errors);
    compare.reset();
    if (errors.length === 0 && lines.length > 0) compare.mutate({ lines, accountId: accountId.trim() || undefined });
    else if (errors.length === 0) setParseErrors([t("check.noLine")]);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    run(order);
  };
  const load = async (file: File | undefined) => {
    if (!file) return;
    const text = await file.text();
    setOrder(text);
    if (operationId) run(text);
  };
  const picked = operations.data?.items.find((operation) => operation.id === operationId);
  return (
    <section>
      <div className="title-row">
        <h1>{t("app.nav.orderCheck")}</h1>
      </div>
      <p className="muted">{t("check.intro")}</p>
      <form
        className="card order-form"
        aria-label={t("check.orderToCheck")}
        onSubmit={submit}
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e: DragEvent) => {
          e.preventDefault();
          void load(e.dataTransfer.files[0]);
        }}
      >
        <div className="fields">
          <SearchFilter label={t("check.findOperation")} value={search} onChange={setSearch} />
          <label>
            {t("ops.operation")}
            <select required value={operationId} onChange={(e) => setOperationId(e.target.value)}>
              <option value="">{t("check.choose")}</option>
              {operations.data?.items.map((operation) => (
                <option key={operation.id} value={operation.id}>
                  {operation.code} · {nameOf(operation)} ({operation.status})
                </option>
              ))}
            </select>
          </label>
          <Field id="order-account" label={t("field.accountId")} hint={accountId.trim() ? accountHint(accountNamed) : t("check.accountHint")}>
            {(control) => <input {...control} value={accountId} onChange={(e) => setAccountId(e.target.value)} autoComplete="off" />}
          </Field>
          <label>
            {t("check.orderFile")}
            <input
              type="file"
              accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
              onChange={(e: ChangeEvent<HTMLInputElement>) => void load(e.target.files?.[0])}
            />
          </label>
        </div>
        <label>
          {t("check.orderLines")}
          <textarea rows={8} value={order} onChange={(e) => setOrder(e.target.value)} placeholder={ORDER_EXAMPLE} aria-describedby="order-help" />
        </label>
        <p id="order-help" className="muted help">
          {t("check.help")}
        </p>
        <div className="actions">
          <button type="submit" className="primary" disabled={!operationId || compare.isPending}>
            {t("history.compare")}
          </button>
          {picked && <Link to={`/console/operations/${picked.id}`}>{t("check.open", { code: picked.code })}</Link>}
        </div>
        {parseErrors.length > 0 && (
          <div role="alert" className="problem">
            <strong>{t("check.unreadable")}</strong>
            <FirstOf items={parseErrors} />
          </div>
        )}
        <ProblemView refusal={operations.error ? toRefusal(operations.error) : compare.error ? toRefusal(compare.error) : null} />
      </form>
      {compare.data && <ComparisonReport comparison={compare.data} operationCode={picked?.code ?? operationId} />}
    </section>
  );
}

function ComparisonReport({ comparison, operationCode }: { comparison: Comparison; operationCode: string }) {
  const [code, setCode] = useState("");
  const [variant, setVariant] = useState("");
  const shown = comparison.issues.filter(
    (issue) => (!code || issue.code === code) && (!variant || issue.variantExternalId.toLowerCase().includes(variant.toLowerCase())),
  );
  const exportCsv = () =>
    download(
      `compare-${operationCode}.csv`,
      toCsv(
        ["variantExternalId", "code", "quantity", "minQuantity", "maxQuantity", "quantityIncrement", "poolRemaining", "accountRemaining", "nearestValid"],
        shown.map((issue) => [
          issue.variantExternalId,
          issue.code,
          issue.quantity,
          issue.minQuantity,
          issue.maxQuantity,
          issue.quantityIncrement,
          issue.poolRemaining,
          issue.accountRemaining,
          issue.nearestValid,
        ]),
      ),
    );
  return (
    <section className="report" aria-labelledby="report-heading">
      <h2 id="report-heading">{comparison.ok ? t("check.fits") : t("check.discrepancies", { count: comparison.issues.length })}</h2>
      <div role="status">
        <dl className="stats">
          {summary().map(([field, label]) => (
            <div key={field} className={field !== "checked" && field !== "inBounds" && comparison.summary[field] > 0 ? "stat bad" : "stat"}>
              <dt>{label}</dt>
              <dd>{formatNumber(comparison.summary[field])}</dd>
            </div>
          ))}
        </dl>
      </div>
      {comparison.issues.length > 0 && (
        <>
          <form className="filters" role="search" aria-label={t("common.filters", { list: t("check.discrepancyList") })} onSubmit={(e) => e.preventDefault()}>
            <SearchFilter label={t("check.variantContains")} value={variant} onChange={setVariant} />
            <ChoiceFilter label={t("check.discrepancy")} value={code} choices={issueChoices()} onChange={setCode} />
            <button type="button" className="filter-action" onClick={exportCsv}>
              {t("check.exportShown", { count: shown.length })}
            </button>
          </form>
          <ListTable
            label={t("check.discrepancyList")}
            columns={issueColumns()}
            items={shown}
            rowKey={(issue) => `${issue.code}:${issue.variantExternalId}`}
            empty={t("check.noneMatches")}
          />
        </>
      )}
    </section>
  );
}
