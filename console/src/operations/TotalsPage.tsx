import { useAccountNames } from "../api/directory";
import { useOperation } from "../api/operations";
import { useAccountsNotOrdered, useDailyTotals, useLinesByOrdered, useOperationTotals, useRefusals, type AccountTotals, type Line } from "../api/totals";
import { formatMoney, useCurrency } from "../labels/money";
import { RuleName } from "../labels/names";
import { accountName } from "../labels/people";
import { refusalCount, refusalPieces, refusalsOf } from "../labels/refusals";
import { belowRecommendedFirst, lineProgress, totalsFigures } from "../labels/totals";
import { useSession } from "../shared/context";
import { plural, when } from "../shared/format";
import { ListTable, LoadMore, PagedList, type Column } from "../shared/PagedList";
import { toRefusal } from "../shared/session";
import { Link, ProblemView } from "../shared/ui";
import { DailyChart } from "./DailyChart";
import "./totals.css";
import { OperationHeader } from "./OperationPage";

/**
 * An Operation while it runs: its figures (read first, one request), who was refused and why, how
 * far each line's orders reach its recommended quantity, the accounts that have not ordered, and
 * orders and refusals per day. Each part reads on its own, so the figures never wait for the rest.
 */
export function TotalsPage({ operationId }: { operationId: string }) {
  const { session } = useSession();
  const operation = useOperation(operationId);
  // Asked beside the Operation, not after it: the figures are what the page shows first.
  useOperationTotals(operationId, { enabled: session.role === "OPERATOR" });
  if (session.role !== "OPERATOR") return <p className="muted">An Operation's totals are for OPERATOR keys: an ACCOUNT key sees its own orders.</p>;
  if (operation.error) return <ProblemView refusal={toRefusal(operation.error)} />;
  if (!operation.data) return <p className="muted">Loading…</p>;
  return (
    <section className="totals">
      <OperationHeader operation={operation.data} view="totals" />
      <Figures operationId={operationId} />
      <Refusals operationId={operationId} />
      <LinesProgress operationId={operationId} lineCount={operation.data.lineCount} />
      <NotOrdered operationId={operationId} />
      <Daily operationId={operationId} />
    </section>
  );
}

function Figures({ operationId }: { operationId: string }) {
  const totals = useOperationTotals(operationId);
  const currency = useCurrency();
  if (totals.error) return <ProblemView refusal={toRefusal(totals.error)} />;
  if (!totals.data) return <p className="muted">Loading the figures…</p>;
  return (
    <>
      <h2 className="sr-only">Figures</h2>
      <dl className="figures" aria-label="Figures">
        {totalsFigures(totals.data, (amount) => formatMoney(amount, currency)).map(({ label, value }) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">As of {when(totals.data.asOf)} (UTC).</p>
    </>
  );
}

function Refusals({ operationId }: { operationId: string }) {
  const events = useRefusals(operationId);
  const totals = useOperationTotals(operationId);
  const currency = useCurrency();
  const items = (events.data?.pages ?? []).flatMap((page) => page.items.flatMap((event) => refusalsOf(event.data).map((refusal) => ({ event, refusal }))));
  const names = useAccountNames(items.map(({ refusal }) => refusal.accountId));
  const money = (amount: number) => formatMoney(amount, currency);
  return (
    <section aria-labelledby="refusals-title">
      <h2 id="refusals-title">Refusals</h2>
      {totals.data && <p className="muted">In all: {refusalCount(totals.data.refusals)}. The newest first:</p>}
      <ProblemView refusal={events.error ? toRefusal(events.error) : null} />
      {events.isPending ? (
        <p className="muted">Loading…</p>
      ) : items.length === 0 ? (
        <p className="muted">No order was refused.</p>
      ) : (
        <ul className="refusals">
          {items.map(({ event, refusal }, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: an event's refusals (one per supplier) keep their order and have no id of their own.
            <li key={`${event.id}-${i}`}>
              <time dateTime={event.at}>{when(event.at)}</time>{" "}
              {refusalPieces(refusal, accountName(refusal.accountId, names), money).map((piece, j) =>
                typeof piece === "string" ? (
                  piece
                ) : "rule" in piece ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a sentence's pieces, in order.
                  <span key={j}>
                    the rule <RuleName id={piece.rule} />
                  </span>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a sentence's pieces, in order.
                  <Link key={j} to="/console/quota-rules">
                    the tenant default
                  </Link>
                ),
              )}
            </li>
          ))}
        </ul>
      )}
      <LoadMore list={events} label="Show older" />
    </section>
  );
}

function LinesProgress({ operationId, lineCount }: { operationId: string; lineCount: number }) {
  const lines = useLinesByOrdered(operationId);
  const shown = belowRecommendedFirst((lines.data?.pages ?? []).flatMap((page) => page.items));
  const columns: Column<Line>[] = [
    { header: "Variant", cell: (line) => line.variantExternalId },
    { header: "Ordered", numeric: true, cell: (line) => line.orderedQuantity ?? 0 },
    { header: "Recommended", numeric: true, cell: (line) => line.recommendedQuantity ?? <span className="muted">—</span> },
    {
      header: "Progress",
      cell: (line) =>
        line.recommendedQuantity === null ? (
          <span className="muted">no recommendation</span>
        ) : (
          <span className="progress">
            <meter
              min={0}
              max={Math.max(1, line.recommendedQuantity)}
              value={line.orderedQuantity ?? 0}
              aria-label={`${line.variantExternalId}: ordered of recommended`}
            />
            {lineProgress(line) === "below" ? `${line.recommendedQuantity - (line.orderedQuantity ?? 0)} short` : "reached"}
          </span>
        ),
    },
  ];
  return (
    <section aria-labelledby="lines-progress-title">
      <h2 id="lines-progress-title">Ordered and recommended, per line</h2>
      <p className="muted">
        The least ordered lines first ({plural(shown.length, "line")} of {lineCount}), those below their recommended quantity at the top.
      </p>
      <ProblemView refusal={lines.error ? toRefusal(lines.error) : null} />
      <ListTable
        label="Ordered and recommended, per line"
        columns={columns}
        items={shown}
        rowKey={(line) => line.variantExternalId}
        empty="This Operation has no lines."
        pending={lines.isPending}
        rowClass={(line) => (lineProgress(line) === "below" ? "below" : undefined)}
      />
      <LoadMore list={lines} />
    </section>
  );
}

function NotOrdered({ operationId }: { operationId: string }) {
  const list = useAccountsNotOrdered(operationId);
  const columns: Column<AccountTotals>[] = [
    { header: "Account", cell: (account) => (account.accountName ? `${account.accountName}, ${account.accountId}` : account.accountId) },
    { header: "Attached", cell: (account) => (account.attached ? "yes" : "no") },
    { header: "Refused", numeric: true, cell: (account) => account.refusals.quota + account.refusals.allocation },
    { header: "Cancelled", numeric: true, cell: (account) => account.cancelled },
  ];
  return (
    <section aria-labelledby="not-ordered-title">
      <h2 id="not-ordered-title">Accounts that have not ordered</h2>
      <PagedList
        label="Accounts that have not ordered"
        list={list}
        columns={columns}
        rowKey={(account) => account.accountId}
        empty="Every account has ordered."
      />
    </section>
  );
}

function Daily({ operationId }: { operationId: string }) {
  const daily = useDailyTotals(operationId);
  return (
    <section aria-labelledby="daily-title">
      <h2 id="daily-title">Orders and refusals per day</h2>
      <ProblemView refusal={daily.error ? toRefusal(daily.error) : null} />
      {daily.data ? <DailyChart days={daily.data.items} /> : <p className="muted">Loading…</p>}
    </section>
  );
}
