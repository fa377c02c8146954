import { useQueryClient } from "@tanstack/react-query";
import { Suspense, useMemo, useState, type FormEvent, type ReactNode } from "react";
import { Route, Switch, useLocation } from "wouter";
import { AmountsReady } from "./labels/money";
import { OperationPage } from "./operations/OperationPage";
import { OperationsPage } from "./operations/OperationsPage";
import { LAZY_PAGES } from "./pages";
import { SessionContext } from "./shared/context";
import { type MessageKey, t, useLanguage } from "./shared/i18n";
import { LanguageChoice } from "./shared/LanguageChoice";
import { LeaveGuard, useConfirmLeave } from "./shared/leaving";
import { answer, clientFor, loadSession, saveSession, toRefusal, type Refusal, type Role, type Session } from "./shared/session";
import { Link, ProblemView } from "./shared/ui";

/** The console's sections, as the menu lists them. */
interface Section {
  path: string;
  label: MessageKey;
  /** Hidden from an ACCOUNT key, which the API refuses there. */
  operatorOnly?: boolean;
}

const SECTIONS = {
  operations: { path: "/console/operations", label: "app.nav.operations" },
  rules: { path: "/console/quota-rules", label: "app.nav.rules", operatorOnly: true },
  orderCheck: { path: "/console/order-check", label: "app.nav.orderCheck" },
  accounts: { path: "/console/accounts", label: "app.nav.accounts" },
  events: { path: "/console/events", label: "app.nav.events", operatorOnly: true },
  webhooks: { path: "/console/webhooks", label: "app.nav.webhooks", operatorOnly: true },
  keys: { path: "/console/keys", label: "app.nav.keys", operatorOnly: true },
  changes: { path: "/console/changes", label: "app.nav.changes", operatorOnly: true },
  settings: { path: "/console/settings", label: "app.nav.settings", operatorOnly: true },
} satisfies Record<string, Section>;
const MENU: Section[] = Object.values(SECTIONS);

/**
 * Every page of the console, in one place: its path (the most specific first: wouter's <Switch>
 * takes the first that matches), its section, and what it shows with the path's parameters. The
 * first load holds the Operations and an Operation's lines (what people open first); every other
 * page loads on its first visit (LAZY_PAGES): the first load stays within its budget.
 */
const ROUTES: { path: string; section: Section; page: (params: Record<string, string>) => ReactNode }[] = [
  {
    path: LAZY_PAGES.history.path,
    section: SECTIONS.operations,
    page: ({ operationId }) => <LAZY_PAGES.history.Page key={operationId} operationId={operationId} />,
  },
  {
    path: LAZY_PAGES.orders.path,
    section: SECTIONS.operations,
    page: ({ operationId }) => <LAZY_PAGES.orders.Page key={operationId} operationId={operationId} />,
  },
  {
    path: LAZY_PAGES.totals.path,
    section: SECTIONS.operations,
    page: ({ operationId }) => <LAZY_PAGES.totals.Page key={operationId} operationId={operationId} />,
  },
  {
    path: "/console/operations/:operationId",
    section: SECTIONS.operations,
    page: ({ operationId }) => <OperationPage key={operationId} operationId={operationId} />,
  },
  { path: "/console/operations", section: SECTIONS.operations, page: () => <OperationsPage /> },
  { path: LAZY_PAGES.simulator.path, section: SECTIONS.rules, page: () => <LAZY_PAGES.simulator.Page /> },
  { path: LAZY_PAGES.newRule.path, section: SECTIONS.rules, page: () => <LAZY_PAGES.newRule.Page key="new" ruleId={null} /> },
  { path: LAZY_PAGES.rule.path, section: SECTIONS.rules, page: ({ ruleId }) => <LAZY_PAGES.rule.Page key={ruleId} ruleId={ruleId} /> },
  { path: LAZY_PAGES.rules.path, section: SECTIONS.rules, page: () => <LAZY_PAGES.rules.Page /> },
  { path: LAZY_PAGES.orderCheck.path, section: SECTIONS.orderCheck, page: () => <LAZY_PAGES.orderCheck.Page /> },
  { path: LAZY_PAGES.accounts.path, section: SECTIONS.accounts, page: () => <LAZY_PAGES.accounts.Page /> },
  { path: LAZY_PAGES.events.path, section: SECTIONS.events, page: () => <LAZY_PAGES.events.Page /> },
  { path: LAZY_PAGES.webhooks.path, section: SECTIONS.webhooks, page: ({ webhookId }) => <LAZY_PAGES.webhooks.Page webhookId={webhookId} /> },
  { path: LAZY_PAGES.keys.path, section: SECTIONS.keys, page: () => <LAZY_PAGES.keys.Page /> },
  { path: LAZY_PAGES.changes.path, section: SECTIONS.changes, page: () => <LAZY_PAGES.changes.Page /> },
  { path: LAZY_PAGES.settings.path, section: SECTIONS.settings, page: () => <LAZY_PAGES.settings.Page /> },
];

/** The page of a section an ACCOUNT key may not use: said, rather than a refusal from the API. */
function OperatorOnly({ section }: { section: Section }) {
  return (
    <section>
      <h1>{t(section.label)}</h1>
      <p className="muted">{t("app.operatorOnly")}</p>
    </section>
  );
}

export function App() {
  // Every page below re-renders in the language chosen (its words are read as it renders).
  useLanguage();
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
    // A key is checked by a read every role may make. A key of the other role than the one chosen is
    // refused as client_mismatch: the key says its role, so the console signs in with that one.
    const check = async (session: Session) => {
      await answer(clientFor(session).GET("/v1/operations", { params: { query: { limit: 1 } } }));
      return session;
    };
    const chosen = { apiKey: apiKey.trim(), role };
    try {
      onSignedIn(
        await check(chosen).catch((error) => {
          if (toRefusal(error).problem.code !== "client_mismatch") throw error;
          return check({ ...chosen, role: role === "OPERATOR" ? "ACCOUNT" : "OPERATOR" });
        }),
      );
    } catch (error) {
      setRefusal(toRefusal(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <form onSubmit={submit} className="card">
        <div className="signin-top">
          <h1>{t("app.brand")}</h1>
          <LanguageChoice />
        </div>
        <label>
          {t("app.apiKey")}
          <input type="password" autoComplete="off" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
        </label>
        <label>
          {t("app.role")}
          <select value={role} onChange={(e) => setRole(e.target.value as Role)} aria-describedby="role-hint">
            <option value="OPERATOR">OPERATOR</option>
            <option value="ACCOUNT">ACCOUNT</option>
          </select>
        </label>
        <button type="submit" className="primary" disabled={busy}>
          {t("app.signIn")}
        </button>
        <p id="role-hint" className="muted hint">
          {t("app.roleHint")}
        </p>
        <p className="muted">{t("app.keptInTab")}</p>
        <ProblemView refusal={refusal} />
      </form>
    </main>
  );
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const [path] = useLocation();
  const confirmLeave = useConfirmLeave();
  const api = useMemo(() => clientFor(session), [session]);
  const allowed = (section: Section) => session.role === "OPERATOR" || !section.operatorOnly;
  const current = MENU.find((section) => path.startsWith(section.path)) ?? SECTIONS.operations;
  return (
    <SessionContext.Provider value={{ session, api }}>
      <header className="top">
        <span className="brand">{t("app.brand")}</span>
        <nav aria-label={t("app.sections")}>
          {MENU.filter(allowed).map((section) => (
            <Link key={section.path} to={section.path} current={section === current}>
              {t(section.label)}
            </Link>
          ))}
        </nav>
        <div className="top-end">
          <LanguageChoice />
          <span className="who">
            {session.role}
            <button type="button" onClick={() => confirmLeave(onSignOut)}>
              {t("app.signOut")}
            </button>
          </span>
        </div>
      </header>
      <main className="content">
        <AmountsReady>
          <Suspense fallback={<p className="muted">{t("common.loading")}</p>}>
            <Switch>
              {ROUTES.map(({ path, section, page }) => (
                <Route key={path} path={path}>
                  {(params) => (allowed(section) ? page(params as Record<string, string>) : <OperatorOnly section={section} />)}
                </Route>
              ))}
              <Route>
                <OperationsPage />
              </Route>
            </Switch>
          </Suspense>
        </AmountsReady>
      </main>
    </SessionContext.Provider>
  );
}
