import { useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import { AccountsPage } from "./AccountsPage";
import { EventsPage } from "./EventsPage";
import { KeysPage } from "./KeysPage";
import { OrderCheckPage } from "./OrderCheckPage";
import { WebhooksPage } from "./WebhooksPage";
import { OperationPage } from "./OperationPage";
import { OperationsPage } from "./OperationsPage";
import { RuleFormPage } from "./RuleForm";
import { RulesPage } from "./RulesPage";
import { Simulator } from "./Simulator";
import { useLocation, useRoute } from "wouter";
import { answer, clientFor, loadSession, saveSession, toRefusal, type Refusal, type Role, type Session } from "./session";
import { Link, ProblemView } from "./ui";
import { SessionContext } from "./context";
import { LeaveGuard, useConfirmLeave } from "./leaving";

interface Section {
  path: string;
  label: string;
  page: () => ReactNode;
  /** Hidden from an ACCOUNT key, which the API refuses there. */
  operatorOnly?: boolean;
}

const SECTIONS: Section[] = [
  { path: "/console/operations", label: "Operations", page: OperationsPage },
  { path: "/console/quota-rules", label: "Quota rules", page: RulesPage, operatorOnly: true },
  { path: "/console/order-check", label: "Order check", page: OrderCheckPage },
  { path: "/console/accounts", label: "Accounts", page: AccountsPage },
  { path: "/console/events", label: "Events", page: EventsPage, operatorOnly: true },
  { path: "/console/webhooks", label: "Webhooks", page: WebhooksPage, operatorOnly: true },
  { path: "/console/keys", label: "Keys", page: KeysPage, operatorOnly: true },
];

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const queryClient = useQueryClient();
  const signOut = () => {
    saveSession(null);
    queryClient.clear();
    setSession(null);
  };
  if (!session)
    return (
      <SignIn
        onSignedIn={(s) => {
          saveSession(s);
          setSession(s);
        }}
      />
    );
  return (
    <LeaveGuard>
      <Shell session={session} onSignOut={signOut} />
    </LeaveGuard>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [apiKey, setApiKey] = useState("");
  const [role, setRole] = useState<Role>("OPERATOR");
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setRefusal(null);
    const session = { apiKey: apiKey.trim(), role };
    try {
      // A key is checked by a read every role may make.
      await answer(clientFor(session).GET("/v1/operations", { params: { query: { limit: 1 } } }));
      onSignedIn(session);
    } catch (error) {
      setRefusal(toRefusal(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <form onSubmit={submit} className="card">
        <h1>Campaign console</h1>
        <label>
          API key
          <input type="password" autoComplete="off" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            <option value="OPERATOR">OPERATOR</option>
            <option value="ACCOUNT">ACCOUNT</option>
          </select>
        </label>
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
        <p className="muted">The key is kept in this tab only (sessionStorage).</p>
        <ProblemView refusal={refusal} />
      </form>
    </main>
  );
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const [path] = useLocation();
  const confirmLeave = useConfirmLeave();
  const api = useMemo(() => clientFor(session), [session]);
  const [onOperation, operation] = useRoute<{ operationId: string }>("/console/operations/:operationId");
  const sections = SECTIONS.filter((s) => session.role === "OPERATOR" || !s.operatorOnly);
  const [onRule, rule] = useRoute<{ ruleId: string }>("/console/quota-rules/:ruleId");
  const section = SECTIONS.find((s) => path.startsWith(s.path)) ?? SECTIONS[0];
  const Page = section.page;
  return (
    <SessionContext.Provider value={{ session, api }}>
      <header className="top">
        <span className="brand">Campaign console</span>
        <nav aria-label="Sections">
          {sections.map((s) => (
            <Link key={s.path} to={s.path} current={s === section}>
              {s.label}
            </Link>
          ))}
        </nav>
        <span className="who">
          {session.role}
          <button type="button" onClick={() => confirmLeave(onSignOut)}>
            Sign out
          </button>
        </span>
      </header>
      <main className="content">
        {onOperation ? (
          <OperationPage key={operation.operationId} operationId={operation.operationId} />
        ) : !sections.includes(section) ? (
          <section>
            <h1>{section.label}</h1>
            <p className="muted">This page is for OPERATOR keys: an ACCOUNT key cannot use it.</p>
          </section>
        ) : onRule && rule.ruleId === "simulator" ? (
          <Simulator />
        ) : onRule ? (
          <RuleFormPage key={rule.ruleId} ruleId={rule.ruleId === "new" ? null : rule.ruleId} />
        ) : (
          <Page />
        )}
      </main>
    </SessionContext.Provider>
  );
}
