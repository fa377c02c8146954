import { useState, type ChangeEvent, type DragEvent, type FormEvent } from "react";
import { nameOf, useOperationPicker } from "../api/operations";
import { download, hasHeader, parseTable, toCsv } from "../shared/csv";
import { plural } from "../shared/format";
import { ListTable, type Column } from "../shared/PagedList";
import { toRefusal } from "../shared/session";
import { ChoiceFilter, Field, FirstOf, Link, ProblemView, SearchFilter } from "../shared/ui";
import { useCompare, type Comparison } from "../api/compare";
import { DISCREPANCY_WORDS, discrepancyWords } from "../labels/discrepancies";
import { shortfallText } from "../labels/allocation";
import { accountHint, useTypedAccountName } from "../labels/names";

type Issue = Comparison["issues"][number];
type OrderLine = { variantExternalId: string; quantity: number };

/** The discrepancies to filter by, in words (the filter keeps the API's code). */
const ISSUE_CHOICES = (Object.keys(DISCREPANCY_WORDS) as Issue["code"][]).map((code) => [code, discrepancyWords(code)] as const);
const SUMMARY: [keyof Comparison["summary"], string][] = [
  ["checked", "Lines checked"],
  ["inBounds", "In bounds"],
  ["belowMin", DISCREPANCY_WORDS.below_min],
  ["aboveMax", DISCREPANCY_WORDS.above_max],
  ["notInOperation", DISCREPANCY_WORDS.not_in_operation],
  ["missingRequired", DISCREPANCY_WORDS.missing_required],
  ["incrementMismatch", DISCREPANCY_WORDS.increment_mismatch],
  ["allocationExceeded", DISCREPANCY_WORDS.allocation_exceeded],
];
const ISSUE_COLUMNS: Column<Issue>[] = [
  { header: "Variant", cell: (issue) => issue.variantExternalId },
  { header: "Discrepancy", cell: (issue) => <span className={`badge issue ${issue.code}`}>{discrepancyWords(issue.code)}</span> },
  { header: "Quantity", numeric: true, cell: (issue) => issue.quantity ?? "—" },
  { header: "Min", numeric: true, cell: (issue) => issue.minQuantity ?? "—" },
  { header: "Max", numeric: true, cell: (issue) => issue.maxQuantity ?? "—" },
  { header: "Pack", numeric: true, cell: (issue) => issue.quantityIncrement ?? "" },
  // What is left of the pool and of the account's cap, and what fits: an order asking more is refused whole.
  { header: "What is left", wrap: true, cell: (issue) => (issue.code === "allocation_exceeded" ? shortfallText(issue) : "") },
];

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
    if (!variantExternalId) errors.push(`Row ${row}: no variant`);
    else if (!/^\d+$/.test(quantity)) errors.push(`Row ${row}: quantity "${quantity}" is not a whole number`);
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
    else if (errors.length === 0) setParseErrors(["The order has no line."]);
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
        <h1>Order check</h1>
      </div>
      <p className="muted">
        Compares an order with an Operation's lines on the server: lines outside their bounds, not in the Operation, not a pack multiple, more than is left of a
        pool (or of the account's cap, once the account is named), and required lines the order leaves out.
      </p>
      <form
        className="card order-form"
        aria-label="Order to check"
        onSubmit={submit}
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e: DragEvent) => {
          e.preventDefault();
          void load(e.dataTransfer.files[0]);
        }}
      >
        <div className="fields">
          <SearchFilter label="Find an Operation by name" value={search} onChange={setSearch} />
          <label>
            Operation
            <select required value={operationId} onChange={(e) => setOperationId(e.target.value)}>
              <option value="">Choose…</option>
              {operations.data?.items.map((operation) => (
                <option key={operation.id} value={operation.id}>
                  {operation.code} · {nameOf(operation)} ({operation.status})
                </option>
              ))}
            </select>
          </label>
          <Field
            id="order-account"
            label="Account"
            hint={accountId.trim() ? accountHint(accountNamed) : "Optional: the buying account, whose caps count too (empty: the pools only)."}
          >
            {(control) => <input {...control} value={accountId} onChange={(e) => setAccountId(e.target.value)} autoComplete="off" />}
          </Field>
          <label>
            Order file
            <input
              type="file"
              accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
              onChange={(e: ChangeEvent<HTMLInputElement>) => void load(e.target.files?.[0])}
            />
          </label>
        </div>
        <label>
          Order lines
          <textarea
            rows={8}
            value={order}
            onChange={(e) => setOrder(e.target.value)}
            placeholder={"variantExternalId,quantity\nSKU-1001-M,12"}
            aria-describedby="order-help"
          />
        </label>
        <p id="order-help" className="muted help">
          Paste from a spreadsheet (tab-separated) or a CSV, or drop a file here: a variant and a quantity per line, with or without a header row.
        </p>
        <div className="actions">
          <button type="submit" className="primary" disabled={!operationId || compare.isPending}>
            Compare
          </button>
          {picked && <Link to={`/console/operations/${picked.id}`}>Open {picked.code}</Link>}
        </div>
        {parseErrors.length > 0 && (
          <div role="alert" className="problem">
            <strong>The order cannot be read</strong>
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
      <h2 id="report-heading">{comparison.ok ? "The order fits the Operation" : plural(comparison.issues.length, "discrepancy", "discrepancies")}</h2>
      <div role="status">
        <dl className="stats">
          {SUMMARY.map(([field, label]) => (
            <div key={field} className={field !== "checked" && field !== "inBounds" && comparison.summary[field] > 0 ? "stat bad" : "stat"}>
              <dt>{label}</dt>
              <dd>{comparison.summary[field]}</dd>
            </div>
          ))}
        </dl>
      </div>
      {comparison.issues.length > 0 && (
        <>
          <form className="filters" role="search" aria-label="Filter discrepancies" onSubmit={(e) => e.preventDefault()}>
            <SearchFilter label="Variant contains" value={variant} onChange={setVariant} />
            <ChoiceFilter label="Discrepancy" value={code} choices={ISSUE_CHOICES} onChange={setCode} />
            <button type="button" className="filter-action" onClick={exportCsv}>
              Export CSV ({shown.length})
            </button>
          </form>
          <ListTable
            label="Discrepancies"
            columns={ISSUE_COLUMNS}
            items={shown}
            rowKey={(issue) => `${issue.code}:${issue.variantExternalId}`}
            empty="No discrepancy matches."
          />
        </>
      )}
    </section>
  );
}
