import { useEffect, useMemo, useState } from "react";
import { useAccountNames } from "../api/directory";
import { entrySummary, groupChangeSets, revertsOf, type ChangeEntry } from "../labels/changeSets";
import { ChangeList } from "../labels/ChangeList";
import { FIELD_LABELS } from "../labels/fields";
import { accountName } from "../labels/people";
import { accountsNamedIn } from "../labels/values";
import { useSession } from "../shared/context";
import { Dialog } from "../shared/dialogs";
import { formatValue, plural, when, type FieldChange } from "../shared/format";
import { DataGrid } from "../shared/grid/DataGrid";
import { useGridDraft } from "../shared/grid/hooks/useGridDraft";
import type { Cells } from "../shared/grid/models/draft";
import { ActorName } from "../labels/names";
import { ListTable, LoadMore, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { ChoiceFilter, Field, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { useDiffWithCurrent, useOperationHistory, useOperationReverts, type ChangeRecord, type DiffItem } from "../api/history";
import { revertOperation, useOperation, useOperationReverted, type Operation, type RevertCounts } from "../api/operations";
import { OperationHeader } from "./OperationPage";

const KINDS = [
  ["operation", "The Operation"],
  ["line", "Lines"],
  ["attachment", "Accounts"],
] as const;
const ACTIONS = { created: "Created", updated: "Changed", deleted: "Deleted" } as const;
/** Entries the page reads on for (page after page) before it waits for `Load more`: a change of 5000 lines fills ten pages alone. */
const ENTRIES_WANTED = 20;
/** An opened entry's records, shown so many at a time. */
const RECORDS_SHOWN = 100;

type Names = ReadonlyMap<string, string | null> | undefined;

/** What a record is about, in words: the Operation, a line by its variant, an account by its name. */
function subjectOf(record: ChangeRecord, accounts: Names) {
  if (record.resourceType === "line") return `Line ${record.resourceId}`;
  if (record.resourceType === "attachment") return `Account ${accountName(record.resourceId, accounts)}`;
  if (record.resourceType === "approval") return "An approval";
  return "The Operation";
}

/** /console/operations/:operationId/history: one entry per change, newest first (opened to its records), a version compared with the current one, a revert. */
export function HistoryPage({ operationId }: { operationId: string }) {
  const query = useOperation(operationId);
  const [view, setView] = useViewParams({ variant: "", kind: "", compare: "" });
  const list = useOperationHistory(operationId, { variant: view.variant.trim(), kind: view.kind });
  const reverts = useOperationReverts(operationId);
  const revertedTo = useMemo(() => revertsOf(reverts.data ?? []), [reverts.data]);
  const records = useMemo(() => (list.data?.pages ?? []).flatMap((page) => page.items), [list.data]);
  const { entries } = useMemo(() => groupChangeSets(records, { complete: !list.hasNextPage }), [records, list.hasNextPage]);
  const { hasNextPage, isFetchingNextPage, error, fetchNextPage } = list;
  // A change can outlast a page (one record per line): the page reads on until it shows enough whole changes.
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !error && entries.length < ENTRIES_WANTED) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, error, entries.length, fetchNextPage]);
  const accounts = useAccountNames(
    records.flatMap((record) => (record.resourceType === "attachment" ? [record.resourceId] : [])).concat(accountsNamedIn(records.flatMap((r) => r.changes))),
  );
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const toggle = (entry: ChangeEntry) =>
    setOpened((now) => {
      const next = new Set(now);
      if (!next.delete(entry.id)) next.add(entry.id);
      return next;
    });
  const operation = query.data;
  if (query.error) return <ProblemView refusal={toRefusal(query.error)} />;
  if (!operation) return <p className="muted">Loading…</p>;
  const compared = /^\d+$/.test(view.compare) ? Number(view.compare) : null;
  const revertOf = (entry: ChangeEntry) => (entry.version === undefined ? undefined : revertedTo.get(entry.version));
  const columns: Column<ChangeEntry>[] = [
    { header: "When", cell: (entry) => <time dateTime={entry.at}>{when(entry.at)}</time> },
    { header: "Who", cell: (entry) => <ActorName actor={entry.actor} actorKeyId={entry.actorKeyId} /> },
    {
      header: "What",
      wrap: true,
      cell: (entry) => {
        const [record] = entry.records;
        return entry.records.length > 1 || revertOf(entry) !== undefined ? (
          entrySummary(entry, revertOf(entry))
        ) : (
          <>
            {ACTIONS[record.action]}: {subjectOf(record, accounts)}
          </>
        );
      },
    },
    {
      header: "Changes",
      wrap: true,
      cell: (entry) =>
        entry.records.length === 1 ? (
          <ChangeList changes={entry.records[0].changes} accounts={accounts} />
        ) : (
          <button type="button" aria-expanded={opened.has(entry.id)} onClick={() => toggle(entry)}>
            {opened.has(entry.id) ? "Hide" : "Show"} the {entry.records.length} records
          </button>
        ),
    },
    { header: "Reason", wrap: true, cell: (entry) => entry.reason ?? <span className="muted">—</span> },
    {
      header: "Version",
      numeric: true,
      cell: (entry) =>
        entry.version === undefined ? (
          ""
        ) : (
          <span className="row-actions">
            {entry.version}
            {entry.version < operation.version && (
              <button
                type="button"
                aria-label={`Compare version ${entry.version} with the current one`}
                aria-pressed={compared === entry.version}
                onClick={() => setView({ compare: String(entry.version) })}
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
      <p className="muted">
        Every change to this Operation, its lines and its accounts, newest first: who, when and why, and what changed from what to what (a change of many lines
        opens to them).
      </p>
      {compared !== null && <Comparison key={compared} operation={operation} from={compared} onClose={() => setView({ compare: "" })} />}
      <form className="filters" role="search" aria-label="Filter changes" onSubmit={(e) => e.preventDefault()}>
        <SearchFilter label="Variant" value={view.variant} onChange={(variant) => setView({ variant }, { typing: true })} />
        <ChoiceFilter label="Changes of" value={view.kind} choices={KINDS} onChange={(kind) => setView({ kind })} />
      </form>
      <ProblemView refusal={list.error ? toRefusal(list.error) : null} />
      <ListTable
        label="Changes"
        columns={columns}
        items={entries}
        rowKey={(entry) => entry.id}
        empty="No change matches."
        pending={list.isPending || (entries.length === 0 && list.hasNextPage)}
        detail={(entry) => (opened.has(entry.id) ? <EntryRecords entry={entry} accounts={accounts} /> : null)}
      />
      <LoadMore list={list} />
    </section>
  );
}

/** An opened entry: its records, each with what it changed, a hundred at a time. */
function EntryRecords({ entry, accounts }: { entry: ChangeEntry; accounts: Names }) {
  const [shown, setShown] = useState(RECORDS_SHOWN);
  const columns: Column<ChangeRecord>[] = [
    { header: "Record", cell: (record) => `${ACTIONS[record.action]}: ${subjectOf(record, accounts)}` },
    { header: "Changes", wrap: true, cell: (record) => <ChangeList changes={record.changes} accounts={accounts} /> },
  ];
  return (
    <div className="entry-records">
      <ListTable
        label={`Records of the change of ${when(entry.at)}`}
        columns={columns}
        items={entry.records.slice(0, shown)}
        rowKey={(record) => record.id}
        empty=""
      />
      {entry.records.length > shown && (
        <button type="button" onClick={() => setShown((n) => n + RECORDS_SHOWN * 5)}>
          Show more ({plural(entry.records.length - shown, "record")} not shown)
        </button>
      )}
    </div>
  );
}

// Measured like the lines grid's (each column never narrower than its widest value "50 → 5"); the names, read and
// not edited here, are never cut ("Old name → New name" is their point) and take most of the room left.
const DIFF_COLUMNS = [
  { key: "variantExternalId", label: FIELD_LABELS.variantExternalId, grow: 1 },
  { key: "change", label: "Change", grow: 0.8 },
  { key: "variantName", label: FIELD_LABELS.variantName, grow: 4, whole: true },
  { key: "minQuantity", label: FIELD_LABELS.minQuantity, numeric: true, grow: 0.5 },
  { key: "maxQuantity", label: FIELD_LABELS.maxQuantity, numeric: true, grow: 0.5 },
  { key: "recommendedQuantity", label: FIELD_LABELS.recommendedQuantity, short: "Rec.", numeric: true, grow: 0.5 },
  { key: "quantityIncrement", label: FIELD_LABELS.quantityIncrement, numeric: true, grow: 0.5 },
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
  const [reason, setReason] = useState("");
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reverted = useOperationReverted(operation.id);
  const accounts = useAccountNames(first?.accounts.map((account) => account.accountId) ?? []);
  // Read whole and nothing differs (just reverted to it, say): there is nothing to revert.
  const same = first !== undefined && !diff.hasNextPage && !first.operation.length && !first.accounts.length && !items.length;
  const canRevert = session.role === "OPERATOR" && operation.status === "DRAFT";
  const headingId = `compare-${from}`;

  const checkRevert = async () => {
    setRefusal(null);
    setNote(null);
    try {
      setReason("");
      setChecking({ counts: (await revertOperation(api, operation, from, true)).reverted });
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };
  const revert = async () => {
    setBusy(true);
    try {
      const done = await revertOperation(api, operation, from, false, reason);
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
        {canRevert && !same && (
          <button type="button" className="danger" onClick={() => void checkRevert()}>
            Revert to this version
          </button>
        )}
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {same && <p className="muted">Version {from} and the current version hold the same: there is nothing to revert.</p>}
      {!canRevert && !same && session.role === "OPERATOR" && (
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
          <form
            id="revert-form"
            onSubmit={(e) => {
              e.preventDefault();
              void revert();
            }}
          >
            <Field id="revert-reason" label="Reason" hint="Optional: kept in the history with the revert, as the reason of its changes.">
              {(control) => <input {...control} value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />}
            </Field>
          </form>
          <div className="actions">
            <button type="button" onClick={() => setChecking(null)}>
              Cancel
            </button>
            <button type="submit" form="revert-form" className="danger" disabled={busy}>
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
                    {accountName(account.accountId, accounts)} {account.change} since
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
