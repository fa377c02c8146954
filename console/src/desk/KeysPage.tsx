import { useState, type FormEvent } from "react";
import { ConfirmDialog, SecretOnce } from "../shared/dialogs";
import { useUnsavedForm } from "../shared/leaving";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal } from "../shared/session";
import { keyLabel, useSignedInKeyId } from "../labels/names";
import { ChoiceFilter, FormActions, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { useIssueKey, useKeyList, useRevokeKey, type Key } from "../api/keys";
import { day } from "../shared/format";
import { t, tx } from "../shared/i18n";

type Role = Key["role"];
const ROLES = ["OPERATOR", "ACCOUNT"] as const satisfies readonly Role[];
const sorts = () =>
  [
    ["-createdAt", t("ops.sort.newest")],
    ["createdAt", t("orders.sort.oldest")],
  ] as const;
const STATES = { revoked: "keys.revoked", expired: "keys.expired", active: "keys.active" } as const;

const stateOf = (key: Key) => (key.revokedAt ? "revoked" : key.expiresAt && key.expiresAt <= new Date().toISOString() ? "expired" : "active");

const DEFAULTS = { role: "", user: "", sort: "-createdAt" };

export function KeysPage() {
  const signedInWith = useSignedInKeyId();
  const [view, setView] = useViewParams(DEFAULTS);
  const { role, user: userId, sort } = view;
  const [issuing, setIssuing] = useState(false);
  const [issued, setIssued] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const revoke = useRevokeKey(() => setRevoking(null));
  const list = useKeyList({ role, userId, sort });
  const columns: Column<Key>[] = [
    {
      header: t("field.name"),
      // Names and user ids can be long: they wrap, so the state and Revoke stay in view at any width.
      wrap: true,
      cell: (key) => (
        <>
          {key.name ?? <span className="muted">{t("keys.unnamed")}</span>}
          {key.id === signedInWith && <span className="badge current">{t("keys.signedInWith")}</span>}
        </>
      ),
    },
    { header: t("changes.keyFilter"), cell: (key) => <code>{key.prefix ? `${key.prefix}…` : key.id}</code> },
    { header: t("field.role"), cell: (key) => key.role },
    { header: t("field.userId"), wrap: true, cell: (key) => key.userId ?? "" },
    { header: t("field.createdAt"), cell: (key) => day(key.createdAt) },
    { header: t("keys.expires"), cell: (key) => (key.expiresAt ? day(key.expiresAt) : t("keys.never")) },
    { header: t("keys.state"), cell: (key) => <span className={`badge ${stateOf(key)}`}>{t(STATES[stateOf(key)])}</span> },
    {
      header: <span className="sr-only">{t("orders.actions")}</span>,
      wrap: true,
      cell: (key) =>
        key.revokedAt ? (
          <span className="muted">{day(key.revokedAt)}</span>
        ) : key.id === signedInWith ? (
          <span className="muted">{t("keys.signInOther")}</span>
        ) : (
          <span className="row-actions">
            <button
              type="button"
              className="danger"
              onClick={() => {
                revoke.reset();
                setRevoking(key);
              }}
              aria-label={t("keys.revokeLabel", { key: keyLabel(key) })}
            >
              {t("keys.revoke")}
            </button>
          </span>
        ),
    },
  ];
  return (
    <section>
      <div className="title-row">
        <h1>{t("app.nav.keys")}</h1>
        <button type="button" className="primary" aria-expanded={issuing} onClick={() => setIssuing((open) => !open)}>
          {t("keys.issueKey")}
        </button>
      </div>
      {issuing && (
        <KeyForm
          onDone={(secret) => {
            setIssuing(false);
            if (secret) setIssued(secret);
          }}
        />
      )}
      {issued && <SecretOnce label={t("keys.newKey")} secret={issued} onDone={() => setIssued(null)} />}
      {revoking && (
        <ConfirmDialog
          title={t("keys.revokeTitle")}
          confirm={t("keys.revoke")}
          busy={revoke.isPending}
          onConfirm={() => revoke.mutate(revoking)}
          onClose={() => setRevoking(null)}
        >
          <p>
            {tx("keys.revokeText", {
              key: <strong>{keyLabel(revoking)}</strong>,
              who: revoking.userId ? `${revoking.role}, ${revoking.userId}` : revoking.role,
            })}
          </p>
          <ProblemView refusal={revoke.error ? toRefusal(revoke.error) : null} />
        </ConfirmDialog>
      )}
      <PagedList
        label={t("app.nav.keys")}
        list={list}
        columns={columns}
        rowKey={(key) => key.id}
        empty={t("keys.noneMatches")}
        sorts={sorts()}
        sort={sort}
        onSort={(sort) => setView({ sort })}
      >
        <ChoiceFilter label={t("field.role")} value={role} choices={ROLES} onChange={(role) => setView({ role })} />
        <SearchFilter label={t("directory.userId")} value={userId} onChange={(user) => setView({ user }, { typing: true })} />
      </PagedList>
    </section>
  );
}

/** Issues a key; its secret goes to onDone, to be shown once. */
function KeyForm({ onDone }: { onDone: (secret?: string) => void }) {
  const [role, setRole] = useState<Role>("ACCOUNT");
  const [userId, setUserId] = useState("");
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  useUnsavedForm({ role, userId, name, expires });
  const issue = useIssueKey(onDone);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate({
      role,
      ...(role === "ACCOUNT" && userId.trim() && { userId: userId.trim() }),
      ...(name.trim() && { name: name.trim() }),
      ...(expires && { expiresAt: `${expires}T00:00:00Z` }),
    });
  };
  return (
    <form className="card entity-form" onSubmit={submit} aria-label={t("keys.issueKey")}>
      <div className="fields">
        <label>
          {t("field.role")}
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        {role === "ACCOUNT" && (
          <label>
            {t("directory.userId")}
            <input value={userId} onChange={(e) => setUserId(e.target.value)} />
          </label>
        )}
        <label>
          {t("field.name")}
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          {t("keys.expiresOn")}
          <input type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </label>
      </div>
      <FormActions submit={t("keys.issue")} busy={issue.isPending} onCancel={onDone} error={issue.error} />
    </form>
  );
}
