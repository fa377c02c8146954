import { useState, type FormEvent } from "react";
import { ConfirmDialog, SecretOnce } from "../shared/dialogs";
import { useUnsavedForm } from "../shared/leaving";
import { PagedList, type Column } from "../shared/PagedList";
import { toRefusal } from "../shared/session";
import { keyLabel, useSignedInKeyId } from "../labels/names";
import { ChoiceFilter, FormActions, ProblemView, SearchFilter } from "../shared/ui";
import { useViewParams } from "../shared/viewParams";
import { useIssueKey, useKeyList, useRevokeKey, type Key } from "../api/keys";

type Role = Key["role"];
const ROLES = ["OPERATOR", "ACCOUNT"] as const satisfies readonly Role[];
const SORTS = [
  ["-createdAt", "Newest first"],
  ["createdAt", "Oldest first"],
] as const;

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
      header: "Name",
      // Names and user ids can be long: they wrap, so the state and Revoke stay in view at any width.
      wrap: true,
      cell: (key) => (
        <>
          {key.name ?? <span className="muted">unnamed</span>}
          {key.id === signedInWith && <span className="badge current">you are signed in with it</span>}
        </>
      ),
    },
    { header: "Key", cell: (key) => <code>{key.prefix ? `${key.prefix}…` : key.id}</code> },
    { header: "Role", cell: (key) => key.role },
    { header: "User", wrap: true, cell: (key) => key.userId ?? "" },
    { header: "Created", cell: (key) => key.createdAt.slice(0, 10) },
    { header: "Expires", cell: (key) => key.expiresAt?.slice(0, 10) ?? "never" },
    { header: "State", cell: (key) => <span className={`badge ${stateOf(key)}`}>{stateOf(key)}</span> },
    {
      header: <span className="sr-only">Actions</span>,
      wrap: true,
      cell: (key) =>
        key.revokedAt ? (
          <span className="muted">{key.revokedAt.slice(0, 10)}</span>
        ) : key.id === signedInWith ? (
          <span className="muted">Sign in with another key to revoke this one</span>
        ) : (
          <span className="row-actions">
            <button
              type="button"
              className="danger"
              onClick={() => {
                revoke.reset();
                setRevoking(key);
              }}
              aria-label={`Revoke ${keyLabel(key)}`}
            >
              Revoke
            </button>
          </span>
        ),
    },
  ];
  return (
    <section>
      <div className="title-row">
        <h1>Keys</h1>
        <button type="button" className="primary" aria-expanded={issuing} onClick={() => setIssuing((open) => !open)}>
          Issue a key
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
      {issued && <SecretOnce label="New API key" secret={issued} onDone={() => setIssued(null)} />}
      {revoking && (
        <ConfirmDialog
          title="Revoke this key?"
          confirm="Revoke"
          busy={revoke.isPending}
          onConfirm={() => revoke.mutate(revoking)}
          onClose={() => setRevoking(null)}
        >
          <p>
            <strong>{keyLabel(revoking)}</strong> ({revoking.role}
            {revoking.userId ? `, ${revoking.userId}` : ""}) will be refused from now on. This cannot be undone.
          </p>
          <ProblemView refusal={revoke.error ? toRefusal(revoke.error) : null} />
        </ConfirmDialog>
      )}
      <PagedList
        label="Keys"
        list={list}
        columns={columns}
        rowKey={(key) => key.id}
        empty="No key matches."
        sorts={SORTS}
        sort={sort}
        onSort={(sort) => setView({ sort })}
      >
        <ChoiceFilter label="Role" value={role} choices={ROLES} onChange={(role) => setView({ role })} />
        <SearchFilter label="User id" value={userId} onChange={(user) => setView({ user }, { typing: true })} />
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
    <form className="card entity-form" onSubmit={submit} aria-label="Issue a key">
      <div className="fields">
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        {role === "ACCOUNT" && (
          <label>
            User id
            <input value={userId} onChange={(e) => setUserId(e.target.value)} />
          </label>
        )}
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Expires on
          <input type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </label>
      </div>
      <FormActions submit="Issue" busy={issue.isPending} onCancel={onDone} error={issue.error} />
    </form>
  );
}
