import { useEffect, useMemo, useState } from "react";
import { useAccountNames } from "../api/directory";
import { entrySummary, groupChangeSets, revertsOf, type ChangeEntry } from "../labels/changeSets";
import { ChangeList } from "../labels/ChangeList";
import { fieldLabel } from "../labels/fields";
import { accountName } from "../labels/people";
import { accountsNamedIn } from "../labels/values";
import { useSession } from "../shared/context";
import { Dialog } from "../shared/dialogs";
import { formatNumber, formatValue, when, type FieldChange } from "../shared/format";
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
import { t, tx, useInLanguage } from "../shared/i18n";

const kinds = () =>
  [
    ["operation", t("history.theOperation")],
    ["line", t("ops.lines")],
    ["attachment", t("app.nav.accounts")],
  ] as const;
const ACTIONS = { created: "history.created", updated: "history.changed", deleted: "history.deleted" } as const;
/** Entries the page reads on for (page after page) before it waits for `Load more`: a change of 5000 lines fills ten pages alone. */
const ENTRIES_WANTED = 20;
/** An opened entry's records, shown so many at a time. */
const RECORDS_SHOWN = 100;

type Names = ReadonlyMap<string, string | null> | undefined;

/** What a record is about, in words: the Operation, a line by its variant, an account by its name. */
function subjectOf(record: ChangeRecord, accounts: Names) {
  if (record.resourceType === "line") return t("history.line", { variant: record.resourceId });
  if (record.resourceType === "attachment") return t("history.account", { account: accountName(record.resourceId, accounts) });
  if (record.resourceType === "approval") return t("history.anApproval");
  return t("history.theOperation");
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
  if (!operation) return <p className="muted">{t("common.loading")}</p>;
  const compared = /^\d+$/.test(view.compare) ? Number(view.compare) : null;
  const revertOf = (entry: ChangeEntry) => (entry.version === undefined ? undefined : revertedTo.get(entry.version));
  const columns: Column<ChangeEntry>[] = [
    { header: t("approvals.when"), cell: (entry) => <time dateTime={entry.at}>{when(entry.at)}</time> },
    { header: t("history.who"), cell: (entry) => <ActorName actor={entry.actor} actorKeyId={entry.actorKeyId} /> },
    {
      header: t("history.what"),
      wrap: true,
      cell: (entry) => {
        const [record] = entry.records;
        return entry.records.length > 1 || revertOf(entry) !== undefined
          ? entrySummary(entry, revertOf(entry))
          : t("history.record", { action: t(ACTIONS[record.action]), subject: subjectOf(record, accounts) });
      },
    },
    {
      header: t("app.nav.changes"),
      wrap: true,
      cell: (entry) =>
        entry.records.length === 1 ? (
          <ChangeList changes={entry.records[0].changes} accounts={accounts} />
        ) : (
          <button type="button" aria-expanded={opened.has(entry.id)} onClick={() => toggle(entry)}>
            {t(opened.has(entry.id) ? "history.hideRecords" : "history.showRecords", { count: entry.records.length })}
          </button>
        ),
    },
    { header: t("orders.reason"), wrap: true, cell: (entry) => entry.reason ?? <span className="muted">—</span> },
    {
      header: t("field.version"),
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
                aria-label={t("history.compareLabel", { version: entry.version })}
                aria-pressed={compared === entry.version}
                onClick={() => setView({ compare: String(entry.version) })}
              >
                {t("history.compare")}
              </button>
            )}
          </span>
        ),
    },
  ];
  return (
    <section>
      <OperationHeader operation={operation} view="history" />
      <h2>{t("ops.history")}</h2>
      <p className="muted">{t("history.intro")}</p>
      {compared !== null && <Comparison key={compared} operation={operation} from={compared} onClose={() => setView({ compare: "" })} />}
      <form className="filters" role="search" aria-label={t("common.filters", { list: t("app.nav.changes") })} onSubmit={(e) => e.preventDefault()}>
        <SearchFilter label={t("field.variantId")} value={view.variant} onChange={(variant) => setView({ variant }, { typing: true })} />
        <ChoiceFilter label={t("history.changesOf")} value={view.kind} choices={kinds()} onChange={(kind) => setView({ kind })} />
      </form>
      <ProblemView refusal={list.error ? toRefusal(list.error) : null} />
      <ListTable
        label={t("app.nav.changes")}
        columns={columns}
        items={entries}
        rowKey={(entry) => entry.id}
        empty={t("history.noneMatches")}
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
    { header: t("history.recordHeader"), cell: (record) => t("history.record", { action: t(ACTIONS[record.action]), subject: subjectOf(record, accounts) }) },
    { header: t("app.nav.changes"), wrap: true, cell: (record) => <ChangeList changes={record.changes} accounts={accounts} /> },
  ];
  return (
    <div className="entry-records">
      <ListTable
        label={t("history.recordsOf", { at: when(entry.at) })}
        columns={columns}
        items={entry.records.slice(0, shown)}
        rowKey={(record) => record.id}
        empty=""
      />
      {entry.records.length > shown && (
        <button type="button" onClick={() => setShown((n) => n + RECORDS_SHOWN * 5)}>
          {t("history.showMore", { count: entry.records.length - shown })}
        </button>
      )}
    </div>
  );
}

// Measured like the lines grid's (each column never narrower than its widest value "50 → 5"); the names, read and
// not edited here, are never cut ("Old name → New name" is their point) and take most of the room left.
const diffColumns = () =>
  [
    { key: "variantExternalId", label: fieldLabel("variantExternalId"), grow: 1 },
    { key: "change", label: t("history.change"), grow: 0.8 },
    { key: "variantName", label: fieldLabel("variantName"), grow: 4, whole: true },
    { key: "minQuantity", label: fieldLabel("minQuantity"), numeric: true, grow: 0.5 },
    { key: "maxQuantity", label: fieldLabel("maxQuantity"), numeric: true, grow: 0.5 },
    { key: "recommendedQuantity", label: fieldLabel("recommendedQuantity"), short: t("field.recommendedQuantity.short"), numeric: true, grow: 0.5 },
    { key: "quantityIncrement", label: fieldLabel("quantityIncrement"), numeric: true, grow: 0.5 },
  ] as const;
const DIFF_FIELDS = ["variantExternalId", "change", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"];
const LINE_CHANGES = { added: "history.addedSince", removed: "history.removedSince", changed: "history.changedSince" } as const;

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
    change: t(LINE_CHANGES[item.change]),
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
  const columns = useInLanguage(diffColumns);
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
      setNote(t("history.reverted", { from, version: done.version }));
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
        <h3 id={headingId}>{t("history.comparedTitle", { from, version: operation.version })}</h3>
        {canRevert && !same && (
          <button type="button" className="danger" onClick={() => void checkRevert()}>
            {t("history.revertToThis")}
          </button>
        )}
        <button type="button" onClick={onClose}>
          {t("common.close")}
        </button>
      </div>
      {same && <p className="muted">{t("history.same", { from })}</p>}
      {!canRevert && !same && session.role === "OPERATOR" && <p className="muted">{t("history.onlyDraft")}</p>}
      {note && (
        <p role="status" className="note">
          {note}
        </p>
      )}
      <ProblemView refusal={refusal ?? (diff.error ? toRefusal(diff.error) : null)} />
      {checking && (
        <Dialog title={t("history.revertTitle", { code: operation.code, from })} onClose={() => setChecking(null)}>
          <p>{t("history.dryRunSays")}</p>
          <RevertSummary counts={checking.counts} />
          <p className="muted">{t("history.revertKeeps")}</p>
          <form
            id="revert-form"
            onSubmit={(e) => {
              e.preventDefault();
              void revert();
            }}
          >
            <Field id="revert-reason" label={t("orders.reason")} hint={t("history.reasonHint")}>
              {(control) => <input {...control} value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />}
            </Field>
          </form>
          <div className="actions">
            <button type="button" onClick={() => setChecking(null)}>
              {t("common.cancel")}
            </button>
            <button type="submit" form="revert-form" className="danger" disabled={busy}>
              {t("history.revert")}
            </button>
          </div>
        </Dialog>
      )}
      {first && (
        <div className="diff-summary">
          <h4>{t("history.theOperation")}</h4>
          {first.operation.length ? <ChangeList changes={first.operation} /> : <p className="muted">{t("history.sameFields")}</p>}
          {first.accounts.length > 0 && (
            <>
              <h4>{t("app.nav.accounts")}</h4>
              <ul className="changes">
                {first.accounts.map((account) => (
                  <li key={account.accountId}>{t("history.accountSince", { account: accountName(account.accountId, accounts), change: account.change })}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <h4>{t("ops.lines")}</h4>
      <p className="muted" aria-live="polite">
        {t(diff.isPending || diff.hasNextPage ? "history.differSoFar" : "history.differ", { count: items.length })}
        {` · ${t("history.thenNow")}`}
      </p>
      <DataGrid
        label={t("history.diffLabel", { from })}
        columns={columns}
        draft={draft}
        readOnly
        errorsOf={noErrors}
        help=""
        empty={t("history.noLineDiffers")}
        className="diff-grid"
        cellIdPrefix="diff-cell"
      />
    </section>
  );
}

/** What a revert changes (or would), in words. */
function RevertSummary({ counts }: { counts: RevertCounts }) {
  const items = [
    [counts.fields, "history.fieldsSetBack"],
    [counts.linesUpserted, "history.linesSetBack"],
    [counts.linesRemoved, "history.linesRemovedSince"],
    [counts.accountsAttached, "history.accountsAttachedAgain"],
    [counts.accountsDetached, "history.accountsDetachedSince"],
  ] as const;
  return (
    <ul className="revert-counts" aria-label={t("history.revertChanges")}>
      {items.map(([count, key]) => (
        <li key={key}>{tx(key, { count: <strong>{formatNumber(count)}</strong>, n: count })}</li>
      ))}
    </ul>
  );
}
