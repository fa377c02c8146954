import { useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent } from "react";
import { useDirectorySearch } from "../api/directory";
import { useSession } from "../shared/context";
import { useViewParams } from "../shared/viewParams";
import { PagedList } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { ChoiceFilter, ProblemView, SearchFilter } from "../shared/ui";
import {
  changeAttachments,
  useAttachmentList,
  useOperationRefresh,
  type Attachment,
  type AttachmentCounts,
  type AttachmentStatus,
  type Operation,
} from "../api/operations";
import { day } from "../shared/format";
import { t } from "../shared/i18n";

const STATUSES: AttachmentStatus[] = ["NOT_STARTED", "CART_CREATED", "ORDERED"];

/** A write checked first as a dry run (its counts shown), then applied. */
interface Pending {
  action: "attach" | "detach";
  ids?: string[];
  csv?: string;
  counts: AttachmentCounts;
}

/** An attach's or a detach's counts in words, as a dry run says them or once done. */
const countsWords = (action: "attach" | "detach", counts: AttachmentCounts, done: boolean) =>
  t(action === "attach" ? (done ? "accounts.attached" : "accounts.toAttach") : done ? "accounts.detached" : "accounts.toDetach", { ...counts });

/** The accounts attached to a PRIVATE Operation: filters and progress, attach from the directory or a CSV, detach selected. */
export function AccountsPanel({ operation }: { operation: Operation }) {
  const { api, session } = useSession();
  const queryClient = useQueryClient();
  const operator = session.role === "OPERATOR";
  // The attached accounts' filters live in the address, beside the page's.
  const [view, setView] = useViewParams({ accountName: "", progress: "" });
  const { accountName, progress: status } = view;
  const setAccountName = (accountName: string) => setView({ accountName }, { typing: true });
  const setStatus = (progress: string) => setView({ progress });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [search, setSearch] = useState("");
  const [pending, setPending] = useState<Pending | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const attached = useAttachmentList(operation.id, { accountName, status });
  const directory = useDirectorySearch(operator ? search : "");
  const refreshHeader = useOperationRefresh(operation.id);

  const send = async (action: "attach" | "detach", dryRun: boolean, ids?: string[], csv?: string) => {
    setRefusal(null);
    try {
      return await changeAttachments(api, operation.id, action, dryRun, { ids, csv });
    } catch (error) {
      setRefusal(toRefusal(error));
      return null;
    }
  };
  const check = async (action: "attach" | "detach", ids?: string[], csv?: string) => {
    setNote(null);
    const counts = await send(action, true, ids, csv);
    setPending(counts ? { action, ids, csv, counts } : null);
  };
  const apply = async () => {
    if (!pending) return;
    const done = await send(pending.action, false, pending.ids, pending.csv);
    setPending(null);
    if (done) {
      setNote(countsWords(pending.action, done, true));
      setSelected(new Set());
      await queryClient.invalidateQueries({ queryKey: queryKeys.attachments.of(operation.id) });
      void refreshHeader();
    }
  };
  // A new set each time: an updater must not change the state it is given (StrictMode calls it twice).
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <section className="card accounts" aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">{t("accounts.heading", { count: operation.accountCount })}</h2>
      <ProblemView refusal={refusal} />
      {pending && (
        <div role="status" className="import-outcome">
          {t("accounts.dryRun", { counts: countsWords(pending.action, pending.counts, false) })}
          <button type="button" className="primary" onClick={apply}>
            {t(pending.action === "attach" ? "accounts.attach" : "accounts.detach")}
          </button>
          <button type="button" onClick={() => setPending(null)}>
            {t("common.cancel")}
          </button>
        </div>
      )}
      {note && <p role="status">{note}</p>}
      <PagedList
        label={t("accounts.attachedList")}
        list={attached}
        columns={[
          ...(operator
            ? [
                {
                  header: <span className="sr-only">{t("accounts.selected")}</span>,
                  cell: (row: Attachment) => (
                    <input
                      type="checkbox"
                      aria-label={t("accounts.select", { account: row.accountId })}
                      checked={selected.has(row.accountId)}
                      onChange={() => toggle(row.accountId)}
                    />
                  ),
                },
              ]
            : []),
          { header: t("field.accountId"), cell: (row) => row.accountId },
          { header: t("field.name"), cell: (row) => row.accountName },
          { header: t("accounts.progress"), cell: (row) => row.operationStatus },
          { header: t("accounts.attachedAt"), cell: (row) => day(row.attachedAt) },
        ]}
        rowKey={(row) => row.accountId}
        empty={t("accounts.noneMatches")}
      >
        <SearchFilter label={t("accounts.nameContains")} value={accountName} onChange={setAccountName} />
        <ChoiceFilter label={t("accounts.progress")} value={status} choices={STATUSES} onChange={setStatus} />
        {operator && (
          <button type="button" className="filter-action" disabled={selected.size === 0} onClick={() => check("detach", [...selected])}>
            {t("accounts.detachSelected", { count: selected.size })}
          </button>
        )}
      </PagedList>
      {operator && (
        <div className="attach">
          <label>
            {t("accounts.find")}
            <input type="search" value={search} onChange={(e) => setSearch(e.target.value.trim())} />
          </label>
          <label>
            {t("accounts.idsCsv")}
            <input
              type="file"
              accept=".csv,text/csv"
              onChange={async (e: ChangeEvent<HTMLInputElement>) => {
                const file = e.target.files?.[0];
                if (file) await check("attach", undefined, await file.text());
              }}
            />
          </label>
          {directory.data && (
            <ul className="found">
              {directory.data.items.map((account) => (
                <li key={account.accountId}>
                  {account.accountId} · {account.name}{" "}
                  <button type="button" onClick={() => check("attach", [account.accountId])}>
                    {t("accounts.attachOne", { account: account.accountId })}
                  </button>
                </li>
              ))}
              {directory.data.items.length === 0 && <li className="muted">{t("accounts.noneInDirectory")}</li>}
            </ul>
          )}
          <ProblemView refusal={directory.error ? toRefusal(directory.error) : null} />
        </div>
      )}
    </section>
  );
}
