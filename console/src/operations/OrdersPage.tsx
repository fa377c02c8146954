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
import { plural, when } from "../shared/format";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { ChoiceFilter, DayRangeFilter, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { OperationHeader } from "./OperationPage";

const SORTS = [
  ["-placedAt", "Newest first"],
  ["placedAt", "Oldest first"],
  ["-amount", "Highest amount"],
  ["amount", "Lowest amount"],
  ["accountId", "Account"],
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
  if (!operation.data) return <p className="muted">Loading…</p>;
  const { code, status } = operation.data;
  // An ACCOUNT key cancels only while the Operation is ACTIVE (and open: the API says so otherwise); an OPERATOR key always.
  const mayCancel = session.role === "OPERATOR" || status === "ACTIVE";

  const columns: Column<Order>[] = [
    { header: "Placed", cell: (order) => <time dateTime={order.placedAt}>{when(order.placedAt)}</time> },
    { header: "Account", cell: (order) => accountName(order.accountId, names) },
    { header: "Status", cell: (order) => <span className={`badge ${order.status.toLowerCase()}`}>{order.status}</span> },
    { header: "Amount", numeric: true, cell: (order) => <Money amount={order.total} /> },
    { header: "Lines", numeric: true, cell: (order) => order.lines.length },
    { header: "Store", cell: (order) => order.storeId ?? <span className="muted">—</span> },
    {
      header: "Cancelled",
      wrap: true,
      cell: (order) =>
        order.cancelledAt ? (
          <>
            {when(order.cancelledAt)}
            {order.cancelledBy && (
              <>
                {" by "}
                <ActorName actor={order.cancelledBy} />
              </>
            )}
            {order.cancelReason && `: ${order.cancelReason}`}
          </>
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      header: <span className="sr-only">Actions</span>,
      cell: (order) =>
        order.status === "PLACED" && mayCancel ? (
          <button
            type="button"
            onClick={() => {
              setNote(null);
              setCancelling(order);
            }}
          >
            Cancel order
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
        <h2>Orders</h2>
        <button type="button" onClick={() => void exportCsv()}>
          Export CSV
        </button>
        <ExcelExportButton
          file={`orders-${code}.xlsx`}
          sheet="Orders"
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
        label={`Orders of ${code}`}
        list={list}
        columns={columns}
        rowKey={(order) => order.id}
        empty="No order matches."
        sorts={SORTS}
        sort={filters.sort}
        onSort={(sort) => setFilters({ sort })}
      >
        <ChoiceFilter label="Status" value={filters.status} choices={["PLACED", "CANCELLED"]} onChange={(status) => setFilters({ status })} />
        <SearchFilter label="Account id" value={filters.account} onChange={(account) => setFilters({ account }, typing)} />
        <SearchFilter label="Variant" value={filters.variant} onChange={(variant) => setFilters({ variant }, typing)} />
        <DayRangeFilter from={filters.from} to={filters.to} onChange={setFilters} />
      </PagedList>
      {cancelling && (
        <CancelOrderDialog
          order={cancelling}
          account={accountName(cancelling.accountId, names)}
          onClose={() => setCancelling(null)}
          onCancelled={(order) => {
            setCancelling(null);
            setNote(`Cancelled the order of ${accountName(order.accountId, names)} placed ${when(order.placedAt)}: its amount and quantities left the totals.`);
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
    <Dialog title={`Cancel the order of ${account}?`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          cancel.mutate({ order, reason });
        }}
      >
        <p>
          {when(order.placedAt)} · <Money amount={order.total} /> · {plural(order.lines.length, "line")}. It stays listed, as CANCELLED, and leaves every total.
        </p>
        <label className="field">
          Reason
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
          Why, in a sentence (kept with the order, up to {MAX_REASON} characters).
        </p>
        <ProblemView refusal={cancel.error ? toRefusal(cancel.error) : null} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Keep it
          </button>
          <button type="submit" className="danger" disabled={cancel.isPending || !reason.trim()}>
            Cancel the order
          </button>
        </div>
      </form>
    </Dialog>
  );
}
