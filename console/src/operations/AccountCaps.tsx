import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import "./allocation.css";
import { useAccountNames } from "../api/directory";
import { useLineCaps, type CapWrite } from "../api/allocations";
import type { Operation } from "../api/operations";
import { belowOrderedText, figure, poolText } from "../labels/allocation";
import { accountHint, useTypedAccountName } from "../labels/names";
import { accountName } from "../labels/people";
import { ChunkRefused } from "../shared/grid/models/chunkedSave";
import { ListTable } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { useSession } from "../shared/context";
import { useUnsavedEdits } from "../shared/leaving";
import { Field, ProblemView, StatusNote } from "../shared/ui";
import { saveCaps } from "./capsSave";
import type { GridLine } from "./lineRows";
import { t } from "../shared/i18n";

const WHOLE = /^\d+$/;

/** An account's cap on the line as this panel holds it: its stored cap (null: none of its own yet), what is typed, what it ordered. */
interface CapRow {
  accountId: string;
  stored: number | null;
  typed: string;
  ordered: number;
}

/** A typed cap's problem, in words, or null: a whole number, never below what the account ordered (empty removes the cap). */
function capProblem(row: CapRow, name: string): string | null {
  const text = row.typed.trim();
  if (text === "") return null;
  if (!WHOLE.test(text)) return t("caps.whole");
  if (Number(text) < row.ordered) return belowOrderedText({ field: "maxQuantity", value: Number(text), ordered: row.ordered }, name);
  return null;
}
const changedRow = (row: CapRow) => row.typed.trim() !== (row.stored === null ? "" : String(row.stored));

/**
 * A line's accounts and their own caps (GET …/allocations/accounts?variantIds=), with what each
 * ordered: each cap edits in place, an account's cap is added by its id (named as it is typed), an
 * empty cap removes it (the line's Per account applies to it again). `Save caps` checks them as a dry
 * run, then saves them with If-Match; a refusal lands on its account's row, in words.
 */
export function AccountCaps({ operation, line, onClose }: { operation: Operation; line: GridLine; onClose: () => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const variant = line.variantExternalId;
  const caps = useLineCaps(operation.id, variant);
  const [typed, setTyped] = useState<ReadonlyMap<string, string>>(new Map());
  const [added, setAdded] = useState<string[]>([]);
  const [serverErrors, setServerErrors] = useState<ReadonlyMap<string, string>>(new Map());
  const [newAccount, setNewAccount] = useState("");
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const newName = useTypedAccountName(newAccount);
  // Opened from the grid's bar, it takes the focus: its controls are next, not past the rest of the bar.
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);

  const stored = caps.data ?? [];
  const rows: CapRow[] = [
    ...stored.map((cap) => ({ accountId: cap.accountId, stored: cap.maxQuantity, ordered: cap.orderedQuantity, typed: "" })),
    ...added.filter((accountId) => !stored.some((cap) => cap.accountId === accountId)).map((accountId) => ({ accountId, stored: null, ordered: 0, typed: "" })),
  ].map((row) => ({ ...row, typed: typed.get(row.accountId) ?? (row.stored === null ? "" : String(row.stored)) }));
  const names = useAccountNames(rows.map((row) => row.accountId));
  const named = (accountId: string) => accountName(accountId, names);
  const changes = rows.filter(changedRow);
  const problems = new Map(
    rows.flatMap((row) => (changedRow(row) && capProblem(row, named(row.accountId)) ? [[row.accountId, capProblem(row, named(row.accountId))!]] : [])),
  );
  useUnsavedEdits(changes.length > 0);
  const heading = t("caps.heading", { variant });

  const edit = (accountId: string, value: string) => {
    setTyped((current) => new Map(current).set(accountId, value));
    setServerErrors((current) => {
      const next = new Map(current);
      next.delete(accountId);
      return next;
    });
    setNote(null);
  };
  const add = () => {
    const accountId = newAccount.trim();
    if (!accountId) return;
    if (!rows.some((row) => row.accountId === accountId)) setAdded((current) => [...current, accountId]);
    setNewAccount("");
    setNote(t("caps.added", { account: accountName(accountId, new Map([[accountId, newName ?? null]])) }));
    // Its cap is the field to fill next.
    requestAnimationFrame(() => document.getElementById(`cap-${accountId}`)?.focus());
  };
  const save = async () => {
    setRefusal(null);
    setNote(null);
    if (problems.size) return setNote(t("caps.fixFirst", { count: problems.size }));
    const entries: CapWrite[] = changes.map((row) => ({
      variantExternalId: variant,
      accountId: row.accountId,
      maxQuantity: row.typed.trim() === "" ? null : Number(row.typed),
    }));
    const refused = new Map<string, string>();
    setBusy(true);
    try {
      const counts = await saveCaps(api, operation, entries, {
        named,
        sink: { setServerError: (cap, message) => void refused.set(cap.accountId, message), settle: () => {}, refresh: () => {} },
      });
      await Promise.all(
        [queryKeys.allocations.of(operation.id), queryKeys.operation(operation.id)].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
      setTyped(new Map());
      setAdded([]);
      setNote(t("caps.saved", { set: counts.set, removed: counts.removed }));
    } catch (error) {
      if (!(error instanceof ChunkRefused)) throw error;
      setRefusal(error.refusal);
      setServerErrors(refused);
    } finally {
      setBusy(false);
    }
  };
  const errorOf = (row: CapRow) => problems.get(row.accountId) ?? serverErrors.get(row.accountId);

  return (
    <section className="card caps" aria-labelledby="caps-heading">
      <div className="caps-head">
        <h3 id="caps-heading" tabIndex={-1} ref={headingRef}>
          {heading}
        </h3>
        <button type="button" onClick={onClose}>
          {t("common.close")}
        </button>
      </div>
      <p className="muted">
        {line.poolQuantity === null || line.poolQuantity === undefined
          ? t("caps.noPool")
          : t("caps.pool", { pool: poolText(String(line.poolQuantity), line.orderedQuantity, line.poolRemaining) })}{" "}
        · {line.maxPerAccount === null || line.maxPerAccount === undefined ? t("caps.noPerAccount") : t("caps.perAccount", { cap: figure(line.maxPerAccount) })}{" "}
        · {t("caps.ordered", { ordered: figure(line.orderedQuantity ?? 0) })}
      </p>
      <ListTable<CapRow>
        label={heading}
        items={rows}
        rowKey={(row) => row.accountId}
        pending={caps.isPending}
        empty={t("caps.none", { variant })}
        rowClass={(row) => (changedRow(row) ? "dirty" : undefined)}
        columns={[
          { header: t("field.accountId"), cell: (row) => named(row.accountId) },
          {
            header: t("caps.cap"),
            cell: (row) => {
              const error = errorOf(row);
              return (
                <span className="cap-cell">
                  <input
                    id={`cap-${row.accountId}`}
                    className="cap-input"
                    inputMode="numeric"
                    aria-label={t("caps.capOf", { account: named(row.accountId) })}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `cap-error-${row.accountId}` : undefined}
                    value={row.typed}
                    onChange={(e) => edit(row.accountId, e.target.value)}
                  />
                  {error && (
                    <span id={`cap-error-${row.accountId}`} className="error-text">
                      {error}
                    </span>
                  )}
                </span>
              );
            },
          },
          { header: t("field.orderedQuantity"), numeric: true, cell: (row) => figure(row.ordered) },
          {
            header: <span className="sr-only">{t("caps.remove")}</span>,
            cell: (row) =>
              row.stored !== null && row.typed.trim() === "" ? null : (
                <button
                  type="button"
                  aria-label={t("caps.removeOf", { account: named(row.accountId) })}
                  // An account added here and not saved just goes; a stored cap is removed when saved.
                  onClick={() => (row.stored === null ? setAdded((current) => current.filter((id) => id !== row.accountId)) : edit(row.accountId, ""))}
                >
                  {t("caps.remove")}
                </button>
              ),
          },
        ]}
      />
      <ProblemView refusal={caps.error ? toRefusal(caps.error) : null} />
      <form
        className="caps-add"
        onSubmit={(e) => {
          e.preventDefault();
          add();
        }}
      >
        <Field id="caps-new-account" label={t("orders.accountId")} hint={accountHint(newName) ?? t("caps.newHint")}>
          {(control) => <input {...control} value={newAccount} onChange={(e) => setNewAccount(e.target.value)} />}
        </Field>
        <button type="submit" disabled={!newAccount.trim()}>
          {t("caps.addAccount")}
        </button>
      </form>
      <div className="actions">
        <button type="button" className="primary" disabled={busy || changes.length === 0} onClick={() => void save()}>
          {t("caps.save")}
        </button>
        {changes.length > 0 && (
          <button
            type="button"
            onClick={() => {
              setTyped(new Map());
              setAdded([]);
              setServerErrors(new Map());
            }}
          >
            {t("caps.discard")}
          </button>
        )}
        <span className="muted">{t("caps.emptyRemoves")}</span>
      </div>
      <StatusNote>{note}</StatusNote>
      <ProblemView refusal={refusal} />
    </section>
  );
}
