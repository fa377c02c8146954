import { useAccountNames } from "../api/directory";
import { useOperation } from "../api/operations";
import { useAccountsNotOrdered, useDailyTotals, useLinesByOrdered, useOperationTotals, useRefusals, type AccountTotals, type Line } from "../api/totals";
import { formatMoney, useCurrency } from "../labels/money";
import { RuleName } from "../labels/names";
import { accountName } from "../labels/people";
import { refusalCount, refusalPieces, refusalsOf } from "../labels/refusals";
import { belowRecommendedFirst, lineProgress, totalsFigures } from "../labels/totals";
import { useSession } from "../shared/context";
import { formatNumber, when } from "../shared/format";
import { ListTable, LoadMore, PagedList, type Column } from "../shared/PagedList";
import { toRefusal } from "../shared/session";
import { Link, ProblemView } from "../shared/ui";
import { DailyChart } from "./DailyChart";
import "./totals.css";
import { OperationHeader } from "./OperationPage";
import { t, tx } from "../shared/i18n";

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
  if (session.role !== "OPERATOR") return <p className="muted">{t("totals.operatorOnly")}</p>;
  if (operation.error) return <ProblemView refusal={toRefusal(operation.error)} />;
  if (!operation.data) return <p className="muted">{t("common.loading")}</p>;
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
  if (!totals.data) return <p className="muted">{t("totals.loadingFigures")}</p>;
  return (
    <>
      <h2 className="sr-only">{t("totals.figures")}</h2>
      <dl className="figures" aria-label={t("totals.figures")}>
        {totalsFigures(totals.data, (amount) => formatMoney(amount, currency)).map(({ label, value }) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">{t("totals.asOf", { at: when(totals.data.asOf) })}</p>
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
      <h2 id="refusals-title">{t("totals.refusals")}</h2>
      {totals.data && <p className="muted">{t("totals.inAll", { count: refusalCount(totals.data.refusals) })}</p>}
      <ProblemView refusal={events.error ? toRefusal(events.error) : null} />
      {events.isPending ? (
        <p className="muted">{t("common.loading")}</p>
      ) : items.length === 0 ? (
        <p className="muted">{t("totals.noRefusal")}</p>
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
                  <span key={j}>{tx("totals.theRule", { scope: <RuleName id={piece.rule} /> })}</span>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a sentence's pieces, in order.
                  <Link key={j} to="/console/quota-rules">
                    {t("totals.theDefault")}
                  </Link>
                ),
              )}
            </li>
          ))}
        </ul>
      )}
      <LoadMore list={events} label={t("totals.showOlder")} />
    </section>
  );
}

function LinesProgress({ operationId, lineCount }: { operationId: string; lineCount: number }) {
  const lines = useLinesByOrdered(operationId);
  const shown = belowRecommendedFirst((lines.data?.pages ?? []).flatMap((page) => page.items));
  const columns: Column<Line>[] = [
    { header: t("field.variantExternalId"), cell: (line) => line.variantExternalId },
    { header: t("lines.ordered"), numeric: true, cell: (line) => formatNumber(line.orderedQuantity ?? 0) },
    {
      header: t("field.recommendedQuantity"),
      numeric: true,
      cell: (line) => (line.recommendedQuantity === null ? <span className="muted">—</span> : formatNumber(line.recommendedQuantity)),
    },
    {
      header: t("accounts.progress"),
      cell: (line) =>
        line.recommendedQuantity === null ? (
          <span className="muted">{t("totals.noRecommendation")}</span>
        ) : (
          <span className="progress">
            <meter
              min={0}
              max={Math.max(1, line.recommendedQuantity)}
              value={line.orderedQuantity ?? 0}
              aria-label={t("totals.meter", { variant: line.variantExternalId })}
            />
            {lineProgress(line) === "below" ? t("totals.short", { count: line.recommendedQuantity - (line.orderedQuantity ?? 0) }) : t("totals.reached")}
          </span>
        ),
    },
  ];
  return (
    <section aria-labelledby="lines-progress-title">
      <h2 id="lines-progress-title">{t("totals.perLine")}</h2>
      <p className="muted">{t("totals.perLineHint", { shown: shown.length, total: lineCount })}</p>
      <ProblemView refusal={lines.error ? toRefusal(lines.error) : null} />
      <ListTable
        label={t("totals.perLine")}
        columns={columns}
        items={shown}
        rowKey={(line) => line.variantExternalId}
        empty={t("lines.none")}
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
    { header: t("field.accountId"), cell: (account) => (account.accountName ? `${account.accountName}, ${account.accountId}` : account.accountId) },
    { header: t("totals.attached"), cell: (account) => t(account.attached ? "common.yes" : "common.no") },
    { header: t("totals.refused"), numeric: true, cell: (account) => formatNumber(account.refusals.quota + account.refusals.allocation) },
    { header: t("totals.cancelled"), numeric: true, cell: (account) => formatNumber(account.cancelled) },
  ];
  return (
    <section aria-labelledby="not-ordered-title">
      <h2 id="not-ordered-title">{t("totals.notOrdered")}</h2>
      <PagedList label={t("totals.notOrdered")} list={list} columns={columns} rowKey={(account) => account.accountId} empty={t("totals.allOrdered")} />
    </section>
  );
}

function Daily({ operationId }: { operationId: string }) {
  const daily = useDailyTotals(operationId);
  return (
    <section aria-labelledby="daily-title">
      <h2 id="daily-title">{t("totals.perDay")}</h2>
      <ProblemView refusal={daily.error ? toRefusal(daily.error) : null} />
      {daily.data ? <DailyChart days={daily.data.items} /> : <p className="muted">{t("common.loading")}</p>}
    </section>
  );
}
