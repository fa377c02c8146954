import { useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent } from "react";
import { useDirectorySearch } from "../api/directory";
import { useSession } from "../shared/context";
import { useViewParams } from "../shared/viewParams";
import { PagedList } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { ChoiceFilter, ProblemView, SearchFilter } from "../shared/ui";
import { changeAttachments, useAttachmentList, useOperationRefresh, type Attachment, type AttachmentStatus, type Operation } from "../api/operations";

const STATUSES: AttachmentStatus[] = ["NOT_STARTED", "CART_CREATED", "ORDERED"];

/** A write checked first as a dry run (its counts shown), then applied. */
interface Pending {
  action: "attach" | "detach";
  ids?: string[];
  csv?: string;
  counts: string;
}

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
      setNote(`${pending.action === "attach" ? "Attached" : "Detached"}: ${done.replace(/ to (attach|detach)/, "")}.`);
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
      <h2 id="accounts-heading">Accounts ({operation.accountCount})</h2>
      <ProblemView refusal={refusal} />
      {pending && (
        <div role="status" className="import-outcome">
          Dry run: {pending.counts}.
          <button type="button" className="primary" onClick={apply}>
            {pending.action === "attach" ? "Attach" : "Detach"}
          </button>
          <button type="button" onClick={() => setPending(null)}>
            Cancel
          </button>
        </div>
      )}
      {note && <p role="status">{note}</p>}
      <PagedList
        label="Attached accounts"
        list={attached}
        columns={[
          ...(operator
            ? [
                {
                  header: <span className="sr-only">Selected</span>,
                  cell: (row: Attachment) => (
                    <input
                      type="checkbox"
                      aria-label={`Select ${row.accountId}`}
                      checked={selected.has(row.accountId)}
                      onChange={() => toggle(row.accountId)}
                    />
                  ),
                },
              ]
            : []),
          { header: "Account", cell: (row) => row.accountId },
          { header: "Name", cell: (row) => row.accountName },
          { header: "Progress", cell: (row) => row.operationStatus },
          { header: "Attached", cell: (row) => row.attachedAt.slice(0, 10) },
        ]}
        rowKey={(row) => row.accountId}
        empty="No attached account matches."
      >
        <SearchFilter label="Account name contains" value={accountName} onChange={setAccountName} />
        <ChoiceFilter label="Progress" value={status} choices={STATUSES} onChange={setStatus} />
        {operator && (
          <button type="button" className="filter-action" disabled={selected.size === 0} onClick={() => check("detach", [...selected])}>
            Detach selected ({selected.size})
          </button>
        )}
      </PagedList>
      {operator && (
        <div className="attach">
          <label>
            Find accounts in the directory
            <input type="search" value={search} onChange={(e) => setSearch(e.target.value.trim())} />
          </label>
          <label>
            Account ids CSV
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
                    Attach {account.accountId}
                  </button>
                </li>
              ))}
              {directory.data.items.length === 0 && <li className="muted">No account in the directory matches.</li>}
            </ul>
          )}
          <ProblemView refusal={directory.error ? toRefusal(directory.error) : null} />
        </div>
      )}
    </section>
  );
}
