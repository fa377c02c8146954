import { useState } from "react";
import { useOperationByCode, useOperationCodes } from "../api/operations";
import { ChangeList } from "../labels/ChangeList";
import { fieldChoices } from "../labels/fields";
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
import { t, tx } from "../shared/i18n";

type Names = ReadonlyMap<string, string | null> | undefined;

const kinds = () =>
  [
    ["operation", t("app.nav.operations")],
    ["line", t("ops.lines")],
    ["attachment", t("accounts.attachedList")],
    ["rule", t("app.nav.rules")],
    ["quota_default", t("changes.tenantDefault")],
    ["account", t("changes.directoryAccounts")],
    ["key", t("app.nav.keys")],
    ["webhook", t("app.nav.webhooks")],
  ] as const;
const sorts = () =>
  [
    ["-at", t("ops.sort.newest")],
    ["at", t("orders.sort.oldest")],
  ] as const;
const ACTIONS = { created: "history.created", updated: "history.changed", deleted: "history.deleted" } as const;
const DEFAULTS = { kind: "", resource: "", operation: "", field: "", actor: "", from: "", to: "", sort: "-at" };

/** A record's values as they were (a deleted rule's scope, a created key's name), from its changes. */
const valuesOf = (record: ChangeRecord) =>
  Object.fromEntries(record.changes.map((change) => [change.field, change.next ?? change.previous])) as Record<string, string | null>;

/** What a record is about, named as people know it: never by an internal id (an Operation by its code, a rule by its scope, a key by its name). */
function Subject({ record, codes, accounts }: { record: ChangeRecord; codes: Map<string, string | null> | undefined; accounts: Names }) {
  const people = usePeople();
  const webhooks = useWebhooksById();
  const { resourceType: type, resourceId: id } = record;
  const values = valuesOf(record);
  // Named by the codes the page read for its rows (one request per hundred), once they are in.
  const operation = (operationId: string | undefined) =>
    !operationId ? t("changes.anOperation") : codes ? <OperationName id={operationId} code={codes.get(operationId) ?? null} /> : "…";
  if (type === "operation") return operation(id);
  if (type === "line") return tx("changes.lineOf", { line: id, operation: operation(record.operationId) });
  if (type === "attachment") return tx("changes.accountOf", { account: accountName(id, accounts), operation: operation(record.operationId) });
  if (type === "approval") return tx("changes.approvalOf", { operation: operation(record.operationId) });
  if (type === "rule") return <RuleName id={id} known={record.action === "updated" ? undefined : values} />;
  if (type === "quota_default") return t("totals.theDefault");
  if (type === "key") {
    const key = people.keys?.get(id);
    const name = key?.name ?? values.name;
    if (name) return t("changes.key", { name });
    if (key?.userId) return t("changes.keyOf", { user: userName(key.userId, people) });
    return key ? keyName(key, people) : t("changes.unnamedKey");
  }
  if (type === "account") return t("changes.directoryAccount", { account: accountName(id, accounts) });
  if (type === "webhook") return t("changes.webhook", { url: webhooks.data?.get(id)?.url ?? values.url ?? t("changes.deleted") });
  if (type === "settings") return t("changes.settings", { which: id });
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
  const restore = useRestoreRule(() => setNote(t("changes.restored")));
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
    { header: t("approvals.when"), cell: (record) => <time dateTime={record.at}>{when(record.at)}</time> },
    // Who wraps: a key's name for people ("an unnamed OPERATOR key of …") would otherwise push Restore out of a 1440 px window.
    { header: t("history.who"), wrap: true, cell: (record) => <ActorName actor={record.actor} actorKeyId={record.actorKeyId} /> },
    {
      header: t("history.what"),
      wrap: true,
      cell: (record) => tx("changes.what", { action: t(ACTIONS[record.action]), subject: <Subject record={record} codes={codes} accounts={accounts} /> }),
    },
    {
      header: t("app.nav.changes"),
      wrap: true,
      cell: (record) => <ChangeList changes={record.changes} accounts={accounts} />,
    },
    { header: t("orders.reason"), wrap: true, cell: (record) => record.reason ?? <span className="muted">—</span> },
    {
      header: <span className="sr-only">{t("orders.actions")}</span>,
      cell: (record) =>
        record.resourceType === "rule" && record.action === "deleted" ? (
          <button
            type="button"
            aria-label={t("changes.restoreLabel", {
              scope: Object.entries(valuesOf(record))
                .filter(([field]) => ["accountId", "supplierId", "storeId"].includes(field))
                .map(([, value]) => value ?? t("changes.any"))
                .join(" / "),
            })}
            disabled={restore.isPending}
            onClick={() => {
              setNote(null);
              restore.mutate(record.resourceId);
            }}
          >
            {t("changes.restore")}
          </button>
        ) : null,
    },
  ];
  const fields = fieldChoices();
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
        <h1>{t("app.nav.changes")}</h1>
        <button type="button" onClick={() => void exportCsv()}>
          {t("common.exportCsv")}
        </button>
      </div>
      <p className="muted">{t("changes.intro")}</p>
      {note && (
        <p role="status" className="note">
          {note}
        </p>
      )}
      <ProblemView refusal={refusal ?? (restore.error ? toRefusal(restore.error) : null)} />
      {unknownCode && (
        <p role="status" className="error-text">
          {t("changes.noCode", { code: view.operation.trim() })}
        </p>
      )}
      <PagedList
        label={t("app.nav.changes")}
        list={list}
        columns={columns}
        rowKey={(record) => record.id}
        empty={t("history.noneMatches")}
        sorts={sorts()}
        sort={view.sort}
        onSort={(sort) => setView({ sort })}
      >
        <ChoiceFilter label={t("changes.kind")} value={view.kind} choices={kinds()} onChange={(kind) => setView({ kind })} />
        <SearchFilter label={t("changes.operationCode")} value={view.operation} onChange={(operation) => setView({ operation }, typing)} />
        <SearchFilter label={t("changes.resourceId")} value={view.resource} onChange={(resource) => setView({ resource }, typing)} />
        <ChoiceFilter
          label={t("changes.field")}
          value={view.field}
          choices={fields.some(([field]) => field === view.field) || !view.field ? fields : [...fields, [view.field, view.field] as const]}
          onChange={(field) => setView({ field })}
        />
        <ChoiceFilter
          label={t("changes.keyFilter")}
          value={view.actor}
          choices={[...(people.keys?.values() ?? [])].map((key) => [key.id, keyName(key, people)] as const)}
          onChange={(actor) => setView({ actor })}
        />
        <DayRangeFilter from={view.from} to={view.to} onChange={setView} />
      </PagedList>
    </section>
  );
}
