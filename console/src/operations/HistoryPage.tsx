import { useMemo, useState } from "react";
import { ChangeList } from "../labels/ChangeList";
import { FIELD_LABELS } from "../labels/fields";
import { useSession } from "../shared/context";
import { Dialog } from "../shared/dialogs";
import { formatValue, when, type FieldChange } from "../shared/format";
import { DataGrid } from "../shared/grid/DataGrid";
import { useGridDraft, type Cells } from "../shared/grid/draft";
import { ActorName } from "../labels/names";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { ChoiceFilter, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import {
  revertOperation,
  useDiffWithCurrent,
  useOperation,
  useOperationHistory,
  useOperationReverted,
  type ChangeRecord,
  type DiffItem,
  type Operation,
  type RevertCounts,
} from "../api/operations";
import { OperationHeader } from "./OperationPage";

const KINDS = [
  ["operation", "The Operation"],
  ["line", "Lines"],
  ["attachment", "Accounts"],
] as const;
const ACTIONS = { created: "Created", updated: "Changed", deleted: "Deleted" } as const;

/** What a record is about, in words: the Operation, a line by its variant, an account. */
function subjectOf(record: ChangeRecord) {
  if (record.resourceType === "line") return `Line ${record.resourceId}`;
  if (record.resourceType === "attachment") return `Account ${record.resourceId}`;
  return "The Operation";
}

/** /console/operations/:operationId/history: the change records newest first, a version compared with the current one, a revert. */
export function HistoryPage({ operationId }: { operationId: string }) {
  const query = useOperation(operationId);
  const [view, setView] = useViewParams({ variant: "", kind: "", compare: "" });
  const list = useOperationHistory(operationId, { variant: view.variant.trim(), kind: view.kind });
  const operation = query.data;
  if (query.error) return <ProblemView refusal={toRefusal(query.error)} />;
  if (!operation) return <p className="muted">Loading…</p>;
  const compared = /^\d+$/.test(view.compare) ? Number(view.compare) : null;
  const columns: Column<ChangeRecord>[] = [
    { header: "When", cell: (record) => <time dateTime={record.at}>{when(record.at)}</time> },
    { header: "Who", cell: (record) => <ActorName actor={record.actor} /> },
    {
      header: "What",
      cell: (record) => (
        <>
          {ACTIONS[record.action]}: {subjectOf(record)}
        </>
      ),
    },
    { header: "Changes", wrap: true, cell: (record) => <ChangeList changes={record.changes} /> },
    { header: "Reason", wrap: true, cell: (record) => record.reason ?? <span className="muted">—</span> },
    {
      header: "Version",
      numeric: true,
      cell: (record) =>
        record.version === undefined ? (
          ""
        ) : (
          <span className="row-actions">
            {record.version}
            {record.version < operation.version && (
              <button
                type="button"
                aria-label={`Compare version ${record.version} with the current one`}
                aria-pressed={compared === record.version}
                onClick={() => setView({ compare: String(record.version) })}
              >
                Compare
              </button>
            )}
          </span>
        ),
    },
  ];
  return (
    <section>
      <OperationHeader operation={operation} view="history" />
      <h2>History</h2>
      <p className="muted">Every change to this Operation, its lines and its accounts, newest first: what changed from what to what, who, when and why.</p>
      {compared !== null && <Comparison key={compared} operation={operation} from={compared} onClose={() => setView({ compare: "" })} />}
      <PagedList label="Changes" list={list} columns={columns} rowKey={(record) => record.id} empty="No change matches.">
        <SearchFilter label="Variant" value={view.variant} onChange={(variant) => setView({ variant }, { typing: true })} />
        <ChoiceFilter label="Changes of" value={view.kind} choices={KINDS} onChange={(kind) => setView({ kind })} />
      </PagedList>
    </section>
  );
}

// Measured like the lines grid's (each column never narrower than its widest value "50 → 5"), the names taking the room left.
const DIFF_COLUMNS = [
  { key: "variantExternalId", label: FIELD_LABELS.variantExternalId, grow: 1.3 },
  { key: "change", label: "Change", grow: 1 },
  { key: "variantName", label: FIELD_LABELS.variantName, grow: 1.6 },
  { key: "minQuantity", label: FIELD_LABELS.minQuantity, numeric: true, grow: 0.8 },
  { key: "maxQuantity", label: FIELD_LABELS.maxQuantity, numeric: true, grow: 0.8 },
  { key: "recommendedQuantity", label: FIELD_LABELS.recommendedQuantity, short: "Rec.", numeric: true, grow: 0.8 },
  { key: "quantityIncrement", label: FIELD_LABELS.quantityIncrement, numeric: true, grow: 0.8 },
] as const;
const DIFF_FIELDS = DIFF_COLUMNS.map((column) => column.key);
const LINE_CHANGES = { added: "added since", removed: "removed since", changed: "changed since" } as const;

/** A field of a line's difference as a cell: "50 → 5" (then → now), or its value then or now for a line removed or added since. */
const cellOf = (change: FieldChange | undefined) =>
  !change
    ? ""
    : "previous" in change && "next" in change
      ? `${formatValue(change.previous)} → ${formatValue(change.next)}`
      : formatValue(change.next ?? change.previous);
const diffCellsOf = (item: DiffItem): Cells => {
  const byField = new Map(item.changes.map((change) => [change.field, change]));
  return {
    variantExternalId: item.variantExternalId,
    change: LINE_CHANGES[item.change],
    ...Object.fromEntries(DIFF_FIELDS.slice(2).map((field) => [field, cellOf(byField.get(field))])),
  };
};
const diffIdOf = (item: DiffItem) => item.variantExternalId;
const noErrors = () => new Map<string, string>();

/** Version `from` beside the current one: the fields, accounts and lines that differ (in the same virtualized grid as the lines), and a revert in DRAFT. */
function Comparison({ operation, from, onClose }: { operation: Operation; from: number; onClose: () => void }) {
  const { api, session } = useSession();
  const diff = useDiffWithCurrent(operation.id, from);
  const pages = diff.data?.pages;
  const items = useMemo(() => (pages ?? []).flatMap((page) => page.items), [pages]);
  const draft = useGridDraft(items, diffIdOf, diffCellsOf, DIFF_FIELDS);
  const first = pages?.[0];
  const [checking, setChecking] = useState<{ counts: RevertCounts } | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reverted = useOperationReverted(operation.id);
  const canRevert = session.role === "OPERATOR" && operation.status === "DRAFT";
  const headingId = `compare-${from}`;

  const checkRevert = async () => {
    setRefusal(null);
    setNote(null);
    try {
      setChecking({ counts: (await revertOperation(api, operation, from, true)).reverted });
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };
  const revert = async () => {
    setBusy(true);
    try {
      const done = await revertOperation(api, operation, from, false);
      setChecking(null);
      await reverted();
      setNote(`Reverted to version ${from}: it is now version ${done.version}.`);
    } catch (error) {
      setChecking(null);
      setRefusal(toRefusal(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card comparison" aria-labelledby={headingId}>
      <div className="title-row">
        <h3 id={headingId}>
          Version {from} compared with the current one (version {operation.version})
        </h3>
        {canRevert && (
          <button type="button" className="danger" onClick={() => void checkRevert()}>
            Revert to this version
          </button>
        )}
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {!canRevert && session.role === "OPERATOR" && (
        <p className="muted">Only a DRAFT Operation can be reverted: Back to draft first to revert it to this version.</p>
      )}
      {note && (
        <p role="status" className="note">
          {note}
        </p>
      )}
      <ProblemView refusal={refusal ?? (diff.error ? toRefusal(diff.error) : null)} />
      {checking && (
        <Dialog title={`Revert ${operation.code} to version ${from}?`} onClose={() => setChecking(null)}>
          <p>A dry run says the revert would make one new version and change:</p>
          <RevertSummary counts={checking.counts} />
          <p className="muted">Its status and schedule stay as they are. The revert is recorded in the history like any change, and can itself be reverted.</p>
          <div className="actions">
            <button type="button" onClick={() => setChecking(null)}>
              Cancel
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void revert()}>
              Revert
            </button>
          </div>
        </Dialog>
      )}
      {first && (
        <div className="diff-summary">
          <h4>The Operation</h4>
          {first.operation.length ? <ChangeList changes={first.operation} /> : <p className="muted">Its fields are the same.</p>}
          {first.accounts.length > 0 && (
            <>
              <h4>Accounts</h4>
              <ul className="changes">
                {first.accounts.map((account) => (
                  <li key={account.accountId}>
                    {account.accountId} {account.change} since
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <h4>Lines</h4>
      <p className="muted" aria-live="polite">
        {diff.isPending || diff.hasNextPage
          ? `Loading… ${items.length} lines differ so far`
          : `${items.length} line${items.length === 1 ? " differs" : "s differ"}`}
        {" · each changed cell reads then → now"}
      </p>
      <DataGrid
        label={`Lines that differ between version ${from} and now`}
        columns={DIFF_COLUMNS}
        draft={draft}
        readOnly
        errorsOf={noErrors}
        help=""
        empty="No line differs."
        className="diff-grid"
        cellIdPrefix="diff-cell"
      />
    </section>
  );
}

/** What a revert changes (or would), in words. */
function RevertSummary({ counts }: { counts: RevertCounts }) {
  const items = [
    [counts.fields, "field of the Operation set back", "fields of the Operation set back"],
    [counts.linesUpserted, "line set back or brought back", "lines set back or brought back"],
    [counts.linesRemoved, "line added since, removed", "lines added since, removed"],
    [counts.accountsAttached, "account attached again", "accounts attached again"],
    [counts.accountsDetached, "account attached since, detached", "accounts attached since, detached"],
  ] as const;
  return (
    <ul className="revert-counts" aria-label="What the revert changes">
      {items.map(([count, one, many]) => (
        <li key={one}>
          <strong>{count}</strong> {count === 1 ? one : many}
        </li>
      ))}
    </ul>
  );
}
