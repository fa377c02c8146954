import { useState } from "react";
import { useOperationByCode, useOperationCodes } from "../api/operations";
import { ChangeList } from "../labels/ChangeList";
import { FIELD_CHOICES } from "../labels/fields";
import { useSession } from "../shared/context";
import { download } from "../shared/csv";
import { when } from "../shared/format";
import { ActorName, OperationName, RuleName, usePeople } from "../labels/names";
import { accountName, keyName, userName } from "../labels/people";
import { accountsNamedIn } from "../labels/values";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal, type Refusal } from "../shared/session";
import { ChoiceFilter, DayRangeFilter, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { useAccountNames } from "../api/directory";
import { exportHistoryCsv, useHistoryList, type ChangeFilters, type ChangeRecord } from "../api/history";
import { useRestoreRule } from "../api/rules";
import { useWebhooksById } from "../api/webhooks";

type Names = ReadonlyMap<string, string | null> | undefined;

const KINDS = [
  ["operation", "Operations"],
  ["line", "Lines"],
  ["attachment", "Attached accounts"],
  ["rule", "Quota rules"],
  ["quota_default", "Tenant default"],
  ["account", "Directory accounts"],
  ["key", "Keys"],
  ["webhook", "Webhooks"],
] as const;
const SORTS = [
  ["-at", "Newest first"],
  ["at", "Oldest first"],
] as const;
const ACTIONS = { created: "Created", updated: "Changed", deleted: "Deleted" } as const;
const DEFAULTS = { kind: "", resource: "", operation: "", field: "", actor: "", from: "", to: "", sort: "-at" };

/** A record's values as they were (a deleted rule's scope, a created key's name), from its changes. */
const valuesOf = (record: ChangeRecord) =>
  Object.fromEntries(record.changes.map((change) => [change.field, change.next ?? change.previous])) as Record<string, string | null>;

const SETTINGS = { display: "the display settings", approvals: "the approval settings", history: "the history settings" } as Record<string, string>;

/** What a record is about, named as people know it: never by an internal id (an Operation by its code, a rule by its scope, a key by its name). */
function Subject({ record, codes, accounts }: { record: ChangeRecord; codes: Map<string, string | null> | undefined; accounts: Names }) {
  const people = usePeople();
  const webhooks = useWebhooksById();
  const { resourceType: type, resourceId: id } = record;
  const values = valuesOf(record);
  // Named by the codes the page read for its rows (one request per hundred), once they are in.
  const operation = (operationId: string | undefined) =>
    !operationId ? "an Operation" : codes ? <OperationName id={operationId} code={codes.get(operationId) ?? null} /> : "…";
  if (type === "operation") return operation(id);
  if (type === "line")
    return (
      <>
        line {id} of {operation(record.operationId)}
      </>
    );
  if (type === "attachment")
    return (
      <>
        account {accountName(id, accounts)} of {operation(record.operationId)}
      </>
    );
  if (type === "approval") return <>an approval of {operation(record.operationId)}</>;
  if (type === "rule") return <RuleName id={id} known={record.action === "updated" ? undefined : values} />;
  if (type === "quota_default") return <>the tenant default</>;
  if (type === "key") {
    const key = people.keys?.get(id);
    const name = key?.name ?? values.name;
    if (name) return <>key {name}</>;
    if (key?.userId) return <>a key of {userName(key.userId, people)}</>;
    return <>{key ? keyName(key, people) : "an unnamed key"}</>;
  }
  if (type === "account") return <>directory account {accountName(id, accounts)}</>;
  if (type === "webhook") return <>webhook {webhooks.data?.get(id)?.url ?? values.url ?? "(deleted)"}</>;
  if (type === "settings") return <>{SETTINGS[id] ?? `the ${id} settings`}</>;
  return <>{type}</>;
}

/** /console/changes: every change of the tenant, filterable, exported as CSV; a deleted rule restored from its record. */
export function ChangesPage() {
  const { api } = useSession();
  const [view, setView] = useViewParams(DEFAULTS);
  const people = usePeople();
  const byCode = useOperationByCode(view.operation.trim());
  const unknownCode = view.operation.trim() !== "" && byCode.data === null;
  const filters: ChangeFilters = {
    kind: view.kind,
    resource: view.resource,
    operationId: view.operation.trim() ? (byCode.data?.id ?? "") : "",
    field: view.field,
    actorKeyId: view.actor,
    from: view.from,
    to: view.to,
    sort: view.sort,
  };
  // Filtering by an Operation's code waits for its id.
  const list = useHistoryList(filters, !view.operation.trim() || Boolean(byCode.data));
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const restore = useRestoreRule(() => setNote("Rule restored: it is back with its id and last values."));
  const typing = { typing: true };
  const records = (list.data?.pages ?? []).flatMap((page) => page.items);
  // The accounts the rows name, read in one request per hundred (not one per row).
  const accounts = useAccountNames(
    records
      .flatMap((record) => (["attachment", "account"].includes(record.resourceType) ? [record.resourceId] : []))
      .concat(accountsNamedIn(records.flatMap((r) => r.changes))),
  );
  const codes = useOperationCodes(
    (list.data?.pages ?? [])
      .flatMap((page) => page.items.flatMap((record) => [record.operationId, record.resourceType === "operation" ? record.resourceId : null]))
      .filter((id): id is string => Boolean(id)),
  );
  const columns: Column<ChangeRecord>[] = [
    { header: "When", cell: (record) => <time dateTime={record.at}>{when(record.at)}</time> },
    { header: "Who", cell: (record) => <ActorName actor={record.actor} actorKeyId={record.actorKeyId} /> },
    {
      header: "What",
      wrap: true,
      cell: (record) => (
        <>
          {ACTIONS[record.action]} <Subject record={record} codes={codes} accounts={accounts} />
        </>
      ),
    },
    {
      header: "Changes",
      wrap: true,
      cell: (record) => <ChangeList changes={record.changes} accounts={accounts} />,
    },
    { header: "Reason", wrap: true, cell: (record) => record.reason ?? <span className="muted">—</span> },
    {
      header: <span className="sr-only">Actions</span>,
      cell: (record) =>
        record.resourceType === "rule" && record.action === "deleted" ? (
          <button
            type="button"
            aria-label={`Restore the rule of ${Object.entries(valuesOf(record))
              .filter(([field]) => ["accountId", "supplierId", "storeId"].includes(field))
              .map(([, value]) => value ?? "any")
              .join(" / ")}`}
            disabled={restore.isPending}
            onClick={() => {
              setNote(null);
              restore.mutate(record.resourceId);
            }}
          >
            Restore
          </button>
        ) : null,
    },
  ];
  const exportCsv = async () => {
    setRefusal(null);
    try {
      download("changes.csv", await exportHistoryCsv(api, filters));
    } catch (error) {
      setRefusal(toRefusal(error));
    }
  };
  return (
    <section>
      <div className="title-row">
        <h1>Changes</h1>
        <button type="button" onClick={() => void exportCsv()}>
          Export CSV
        </button>
      </div>
      <p className="muted">Every change of the tenant, newest first: what changed from what to what, who made it, when and why.</p>
      {note && (
        <p role="status" className="note">
          {note}
        </p>
      )}
      <ProblemView refusal={refusal ?? (restore.error ? toRefusal(restore.error) : null)} />
      {unknownCode && (
        <p role="status" className="error-text">
          No Operation has the code {view.operation.trim()}.
        </p>
      )}
      <PagedList
        label="Changes"
        list={list}
        columns={columns}
        rowKey={(record) => record.id}
        empty="No change matches."
        sorts={SORTS}
        sort={view.sort}
        onSort={(sort) => setView({ sort })}
      >
        <ChoiceFilter label="Kind" value={view.kind} choices={KINDS} onChange={(kind) => setView({ kind })} />
        <SearchFilter label="Operation code" value={view.operation} onChange={(operation) => setView({ operation }, typing)} />
        <SearchFilter label="Resource id" value={view.resource} onChange={(resource) => setView({ resource }, typing)} />
        <ChoiceFilter
          label="Field"
          value={view.field}
          choices={FIELD_CHOICES.some(([field]) => field === view.field) || !view.field ? FIELD_CHOICES : [...FIELD_CHOICES, [view.field, view.field] as const]}
          onChange={(field) => setView({ field })}
        />
        <ChoiceFilter
          label="Key"
          value={view.actor}
          choices={[...(people.keys?.values() ?? [])].map((key) => [key.id, keyName(key, people)] as const)}
          onChange={(actor) => setView({ actor })}
        />
        <DayRangeFilter from={view.from} to={view.to} onChange={setView} />
      </PagedList>
    </section>
  );
}
