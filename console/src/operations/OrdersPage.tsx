import { useState } from "react";
import { useAccountNames } from "../api/directory";
import { useOperation } from "../api/operations";
import { exportOrdersCsv, useCancelOrder, useOrderList, type Order } from "../api/orders";
import { Money } from "../labels/money";
import { ActorName } from "../labels/names";
import { accountName } from "../labels/people";
import { useSession } from "../shared/context";
import { download } from "../shared/csv";
import { ExcelExportButton } from "../shared/excel/ExcelTools";
import { tableOfCsv } from "../shared/excel/sheet";
import { Dialog } from "../shared/dialogs";
import { formatNumber, when } from "../shared/format";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { ChoiceFilter, DayRangeFilter, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { OperationHeader } from "./OperationPage";
import { t, tx } from "../shared/i18n";

const sorts = () =>
  [
    ["-placedAt", t("ops.sort.newest")],
    ["placedAt", t("orders.sort.oldest")],
    ["-amount", t("orders.sort.highest")],
    ["amount", t("orders.sort.lowest")],
    ["accountId", t("field.accountId")],
  ] as const;
const DEFAULTS = { status: "", account: "", from: "", to: "", variant: "", sort: "-placedAt" };
/** The CSV's columns that hold numbers (ORDER_CSV_COLUMNS in src/checkout/schemas.ts): numbers in Excel too. */
const NUMBER_COLUMNS = ["amount", "lineCount"];
/** The longest reason the API keeps. */
const MAX_REASON = 500;

/** An Operation's orders: the API's filters and sort kept in the address, paging, the CSV, and `Cancel order` with a reason. */
export function OrdersPage({ operationId }: { operationId: string }) {
  const { api, session } = useSession();
  const operation = useOperation(operationId);
  const [filters, setFilters] = useViewParams(DEFAULTS);
  const list = useOrderList(operationId, filters);
  const orders = (list.data?.pages ?? []).flatMap((page) => page.items);
  const names = useAccountNames(orders.map((order) => order.accountId));
  const [cancelling, setCancelling] = useState<Order | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const typing = { typing: true };

  if (operation.error) return <ProblemView refusal={toRefusal(operation.error)} />;
  if (!operation.data) return <p className="muted">{t("common.loading")}</p>;
  const { code, status } = operation.data;
  // An ACCOUNT key cancels only while the Operation is ACTIVE (and open: the API says so otherwise); an OPERATOR key always.
  const mayCancel = session.role === "OPERATOR" || status === "ACTIVE";

  const columns: Column<Order>[] = [
    { header: t("orders.placed"), cell: (order) => <time dateTime={order.placedAt}>{when(order.placedAt)}</time> },
    { header: t("field.accountId"), cell: (order) => accountName(order.accountId, names) },
    { header: t("field.status"), cell: (order) => <span className={`badge ${order.status.toLowerCase()}`}>{order.status}</span> },
    { header: t("totals.amount"), numeric: true, cell: (order) => <Money amount={order.total} /> },
    { header: t("ops.lines"), numeric: true, cell: (order) => formatNumber(order.lines.length) },
    { header: t("field.storeId"), cell: (order) => order.storeId ?? <span className="muted">—</span> },
    {
      header: t("totals.cancelled"),
      wrap: true,
      cell: (order) =>
        order.cancelledAt ? (
          <>
            {order.cancelledBy
              ? tx("orders.cancelledBy", { at: when(order.cancelledAt), who: <ActorName actor={order.cancelledBy} /> })
              : when(order.cancelledAt)}
            {order.cancelReason && `: ${order.cancelReason}`}
          </>
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      header: <span className="sr-only">{t("orders.actions")}</span>,
      cell: (order) =>
        order.status === "PLACED" && mayCancel ? (
          <button
            type="button"
            onClick={() => {
              setNote(null);
              setCancelling(order);
            }}
          >
            {t("orders.cancel")}
          </button>
        ) : null,
    },
  ];

  const exportCsv = async () => {
    setRefusal(null);
    try {
      download(`orders-${code}.csv`, await exportOrdersCsv(api, operationId, filters));
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };

  return (
    <section>
      <OperationHeader operation={operation.data} view="orders" />
      <div className="title-row">
        <h2>{t("ops.orders")}</h2>
        <button type="button" onClick={() => void exportCsv()}>
          {t("common.exportCsv")}
        </button>
        <ExcelExportButton
          file={`orders-${code}.xlsx`}
          sheet={t("excel.sheetOrders")}
          table={async () => tableOfCsv(await exportOrdersCsv(api, operationId, filters), NUMBER_COLUMNS)}
          onDone={(said) => {
            setRefusal(null);
            setNote(said);
          }}
          onError={(error) => setRefusal(toRefusal(error))}
        />
      </div>
      {note && (
        <p role="status" className="note">
          {note}
        </p>
      )}
      <ProblemView refusal={refusal} />
      <PagedList
        label={t("orders.of", { code })}
        list={list}
        columns={columns}
        rowKey={(order) => order.id}
        empty={t("orders.noneMatches")}
        sorts={sorts()}
        sort={filters.sort}
        onSort={(sort) => setFilters({ sort })}
      >
        <ChoiceFilter label={t("field.status")} value={filters.status} choices={["PLACED", "CANCELLED"]} onChange={(status) => setFilters({ status })} />
        <SearchFilter label={t("orders.accountId")} value={filters.account} onChange={(account) => setFilters({ account }, typing)} />
        <SearchFilter label={t("field.variantId")} value={filters.variant} onChange={(variant) => setFilters({ variant }, typing)} />
        <DayRangeFilter from={filters.from} to={filters.to} onChange={setFilters} />
      </PagedList>
      {cancelling && (
        <CancelOrderDialog
          order={cancelling}
          account={accountName(cancelling.accountId, names)}
          onClose={() => setCancelling(null)}
          onCancelled={(order) => {
            setCancelling(null);
            setNote(t("orders.cancelled", { account: accountName(order.accountId, names), at: when(order.placedAt) }));
          }}
        />
      )}
    </section>
  );
}

/** Asks why before cancelling (the reason is kept on the order and its change record); Escape or `Keep it` leaves it placed. */
function CancelOrderDialog({
  order,
  account,
  onClose,
  onCancelled,
}: {
  order: Order;
  account: string;
  onClose: () => void;
  onCancelled: (order: Order) => void;
}) {
  const [reason, setReason] = useState("");
  const cancel = useCancelOrder(order.operationId, onCancelled);
  return (
    <Dialog title={t("orders.cancelTitle", { account })} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          cancel.mutate({ order, reason });
        }}
      >
        <p>
          {when(order.placedAt)} · <Money amount={order.total} /> · {t("orders.cancelFacts", { count: order.lines.length })}
        </p>
        <label className="field">
          {t("orders.reason")}
          <input
            type="text"
            autoFocus
            maxLength={MAX_REASON}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            aria-describedby="cancel-reason-hint"
          />
        </label>
        <p id="cancel-reason-hint" className="muted help">
          {t("orders.reasonHint", { max: MAX_REASON })}
        </p>
        <ProblemView refusal={cancel.error ? toRefusal(cancel.error) : null} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            {t("orders.keep")}
          </button>
          <button type="submit" className="danger" disabled={cancel.isPending || !reason.trim()}>
            {t("orders.cancelIt")}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
