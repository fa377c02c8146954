import type { Schemas } from "@campaign-policy/client";
import { useMutation } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import { useSearch } from "wouter";
// The server's own resolution (pure, no I/O): the browser simulates with the code the API runs, not a copy.
import { buildRuleIndex, evaluateExplained, indexedRuleOf, type ExplainedQuotaResult, type QuotaOrder } from "@campaign-policy/common/rule-index";
import { useSession } from "../shared/context";
import { CurrencyNote, Money, moneyInputText, moneyUnit, parseMoney, useCurrency } from "../labels/money";
import { accountHint, RuleName, useTypedAccountName } from "../labels/names";
import { useUnsavedEdits } from "../shared/leaving";
import { toRefusal, type Refusal } from "../shared/session";
import { Link, ProblemView } from "../shared/ui";
import { saveMinimums, useEvaluation, useQuotaDefault, useRulesChanged, useRulesOfOrder, type QuotaRule } from "../api/rules";
import "./rules.css";
import { type MessageKey, t } from "../shared/i18n";

type Evaluation = Schemas["EvaluationResult"];
type Explanation = ExplainedQuotaResult["explanation"];
type Candidate = Explanation["levels"][number]["candidates"][number];

const LEVEL_LABELS = {
  ACCOUNT_SUPPLIER: "sim.level.accountSupplier",
  ACCOUNT: "field.accountId",
  SUPPLIER: "field.supplierId",
  DEFAULT: "changes.tenantDefault",
} as const;
/** Each outcome the API names, in words: what happened to the rule, then why. */
const OUTCOME_WORDS: Record<Candidate["outcome"], [MessageKey, MessageKey]> = {
  selected: ["sim.decides", "sim.selectedWhy"],
  lower_minimum: ["sim.outranked", "sim.outrankedWhy"],
  tie_older_rule_wins: ["sim.tied", "sim.tiedWhy"],
  shadowed_by_higher_level: ["sim.overruled", "sim.overruledWhy"],
  store_mismatch: ["sim.otherStore", "sim.otherStoreWhy"],
};

/** An outcome in words (the API's code kept in the row's class for styling and tests). */
function Outcome({ outcome }: { outcome: Candidate["outcome"] }) {
  const [word, why] = OUTCOME_WORDS[outcome].map((key) => t(key));
  return (
    <>
      <strong className={`outcome ${outcome}`}>{word}</strong> <span className="muted">{why}</span>
    </>
  );
}

/** JSON with keys sorted: the browser's and the API's answers compare whatever their key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/** The order evaluated in this browser by rule-index.ts, with some rules' minimums replaced. */
function simulate(rules: QuotaRule[], fallback: Schemas["QuotaDefault"], order: QuotaOrder, minimums: Map<string, number>): ExplainedQuotaResult {
  const index = buildRuleIndex({
    version: 0,
    defaultMinimum: fallback.minimum,
    defaultEnforcement: fallback.enforcement,
    rules: rules.map((rule) => indexedRuleOf({ ...rule, minimum: minimums.get(rule.id) ?? rule.minimum })),
  });
  return evaluateExplained(index, order);
}

export function Simulator() {
  const { api } = useSession();
  const rulesChanged = useRulesChanged();
  const initial = new URLSearchParams(useSearch());
  const [form, setForm] = useState({
    accountId: initial.get("accountId") ?? "",
    supplierId: initial.get("supplierId") ?? "",
    storeId: initial.get("storeId") ?? "",
    amount: "",
  });
  const [order, setOrder] = useState<QuotaOrder | null>(null);
  const [whatIf, setWhatIf] = useState(false);
  const [drafts, setDrafts] = useState<Map<string, string>>(new Map());
  const [saveNote, setSaveNote] = useState<string | null>(null);
  const [saveRefusal, setSaveRefusal] = useState<Refusal | null>(null);

  const server = useEvaluation(order);
  const rules = useRulesOfOrder(order);
  const fallback = useQuotaDefault();

  const currency = useCurrency();
  const account = accountHint(useTypedAccountName(form.accountId));
  const minimums = useMemo(() => {
    const parsed = new Map<string, number>();
    for (const [ruleId, text] of drafts) {
      const minimum = parseMoney(text, currency);
      if (Number.isSafeInteger(minimum)) parsed.set(ruleId, minimum);
    }
    return parsed;
  }, [drafts, currency]);
  const changed = [...minimums].filter(([ruleId, minimum]) => rules.data?.find((rule) => rule.id === ruleId)?.minimum !== minimum);
  useUnsavedEdits(changed.length > 0);
  const simulated = useMemo(
    () => (order && rules.data && fallback.data ? simulate(rules.data, fallback.data, order, whatIf ? minimums : new Map()) : null),
    [order, rules.data, fallback.data, whatIf, minimums],
  );
  const agrees = simulated && server.data && !whatIf ? canonical(simulated) === canonical(server.data) : null;

  const evaluate = (event: FormEvent) => {
    event.preventDefault();
    setSaveNote(null);
    const next: QuotaOrder = {
      accountId: form.accountId.trim(),
      supplierId: form.supplierId.trim() || null,
      storeId: form.storeId.trim() || null,
      amount: parseMoney(form.amount, currency),
    };
    if (canonical(next) === canonical(order)) void server.refetch();
    setOrder(next);
  };
  const saveChanges = useMutation({
    mutationFn: async () => {
      await saveMinimums(api, rules.data!, new Map(changed));
      return changed.length;
    },
    onMutate: () => {
      setSaveRefusal(null);
      setSaveNote(null);
    },
    onSuccess: async (count) => {
      await rulesChanged({ withForms: true });
      setDrafts(new Map());
      setWhatIf(false);
      setSaveNote(t("sim.saved", { count }));
    },
    onError: (error) => setSaveRefusal(toRefusal(error)),
  });

  const shown = whatIf ? simulated : ((server.data as ExplainedQuotaResult | undefined) ?? null);
  return (
    <section className="simulator">
      <p className="crumbs">
        <Link to="/console/quota-rules">{t("app.nav.rules")}</Link> /
      </p>
      <h1>{t("rules.simulator")}</h1>
      <p className="muted">{t("sim.intro")}</p>
      <CurrencyNote />
      <form className="card sim-form" aria-label={t("sim.orderToEvaluate")} onSubmit={evaluate}>
        <div className="field">
          <label htmlFor="sim-account">{t("field.accountId")}</label>
          <input
            id="sim-account"
            required
            value={form.accountId}
            onChange={(e) => setForm({ ...form, accountId: e.target.value })}
            aria-describedby={account ? "sim-account-help" : undefined}
          />
          {account && (
            <span id="sim-account-help" className="muted hint">
              {account}
            </span>
          )}
        </div>
        {/* Each label holds the field's name only; its hint describes the field (aria-describedby), outside the label. */}
        <div className="field">
          <label htmlFor="sim-supplier">{t("field.supplierId")}</label>
          <input
            id="sim-supplier"
            value={form.supplierId}
            onChange={(e) => setForm({ ...form, supplierId: e.target.value })}
            aria-describedby="sim-supplier-help"
          />
          <span id="sim-supplier-help" className="muted hint">
            {t("sim.noSupplier")}
          </span>
        </div>
        <div className="field">
          <label htmlFor="sim-store">{t("field.storeId")}</label>
          <input id="sim-store" value={form.storeId} onChange={(e) => setForm({ ...form, storeId: e.target.value })} aria-describedby="sim-store-help" />
          <span id="sim-store-help" className="muted hint">
            {t("sim.noStore")}
          </span>
        </div>
        <div className="field">
          <label htmlFor="sim-amount">{t("totals.amount")}</label>
          <input
            id="sim-amount"
            required
            inputMode="decimal"
            value={form.amount}
            onChange={(e) => setForm({ ...form, amount: e.target.value })}
            aria-describedby="sim-amount-help"
            aria-invalid={form.amount.trim() !== "" && Number.isNaN(parseMoney(form.amount, currency)) ? true : undefined}
          />
          <span id="sim-amount-help" className="muted hint">
            {t("rules.in", { unit: moneyUnit(currency) })}
          </span>
        </div>
        <button type="submit" className="primary">
          {t("sim.evaluate")}
        </button>
      </form>
      <ProblemView refusal={server.error ? toRefusal(server.error) : rules.error ? toRefusal(rules.error) : null} />
      {order && (
        <div className="sim-mode">
          <label className="inline">
            <input
              type="checkbox"
              checked={whatIf}
              onChange={(e) => {
                setWhatIf(e.target.checked);
                setSaveNote(null);
              }}
            />
            {t("sim.whatIf")}
          </label>
          {agrees !== null && (
            <p className={agrees ? "muted" : "error-text"} role="status" data-simulated={canonical(simulated)}>
              {t(agrees ? "sim.agrees" : "sim.differs")}
            </p>
          )}
        </div>
      )}
      {whatIf && (
        <p className="what-if-note" role="note">
          {t("sim.whatIfNote")}
        </p>
      )}
      {saveNote && (
        <p role="status" className="note">
          {saveNote}
        </p>
      )}
      <ProblemView refusal={saveRefusal} />
      {shown && order && (
        <Answer
          result={shown}
          whatIf={whatIf}
          now={whatIf ? (server.data as ExplainedQuotaResult | undefined) : undefined}
          drafts={drafts}
          onDraft={(ruleId, text) => setDrafts((current) => new Map(current).set(ruleId, text))}
        />
      )}
      {whatIf && (
        <div className="actions">
          <button type="button" className="primary" disabled={changed.length === 0 || saveChanges.isPending} onClick={() => saveChanges.mutate()}>
            {t("sim.saveChanged", { count: changed.length })}
          </button>
          <button type="button" disabled={drafts.size === 0} onClick={() => setDrafts(new Map())}>
            {t("sim.reset")}
          </button>
        </div>
      )}
    </section>
  );
}

function Verdict({ result }: { result: Evaluation | ExplainedQuotaResult }) {
  const below = result.shortfall > 0;
  return (
    <span className={`badge ${result.allowed ? (below ? "warn" : "active") : "blocked"}`}>
      {t(result.allowed ? (below ? "sim.allowedWarning" : "sim.allowed") : "sim.blocked")}
    </span>
  );
}

/** The evaluation drawn as the API explains it: the result, then the four levels and their candidates. */
function Answer({
  result,
  whatIf,
  now,
  drafts,
  onDraft,
}: {
  result: ExplainedQuotaResult;
  whatIf: boolean;
  now?: ExplainedQuotaResult;
  drafts: Map<string, string>;
  onDraft: (ruleId: string, text: string) => void;
}) {
  const { explanation } = result;
  const decided = explanation.decidedBy;
  const currency = useCurrency();
  return (
    <div
      className={`card answer${whatIf ? " simulated" : ""}`}
      aria-label={t(whatIf ? "sim.simulatedAnswer" : "sim.apiAnswer")}
      role="region"
      data-result={canonical(result)}
    >
      <h2>{t(whatIf ? "sim.simulatedTitle" : "sim.apiTitle")}</h2>
      <dl className="summary">
        <div>
          <dt>{t("sim.effectiveMinimum")}</dt>
          <dd>
            <Money amount={result.effectiveMinimum} />
          </dd>
        </div>
        <div>
          <dt>{t("sim.outcome")}</dt>
          <dd>
            <Verdict result={result} /> <span className="muted">({result.enforcement})</span>
          </dd>
        </div>
        <div>
          <dt>{t("sim.shortfall")}</dt>
          <dd>
            <Money amount={result.shortfall} />
          </dd>
        </div>
        <div>
          <dt>{t("sim.decidedBy")}</dt>
          <dd>
            {t(LEVEL_LABELS[decided.kind])}
            {decided.ruleId && (
              <>
                {" "}
                <RuleName id={decided.ruleId} />
              </>
            )}
          </dd>
        </div>
        {now && (
          <div>
            <dt>{t("sim.now")}</dt>
            <dd>
              <Money amount={now.effectiveMinimum} /> · <Verdict result={now} />
            </dd>
          </div>
        )}
      </dl>
      <ol className="levels">
        {explanation.levels.map((level) => (
          <li key={level.level} className={`level${decided.kind === level.level ? " decided" : ""}`}>
            <h3>
              {t(LEVEL_LABELS[level.level])} <span className="muted">({level.level})</span>
              {decided.kind === level.level && <span className="badge active">{t("sim.decidesBadge")}</span>}
            </h3>
            {!level.applicable ? (
              <p className="muted">{t("sim.notApplicable")}</p>
            ) : level.candidates.length === 0 ? (
              <p className="muted">{t("sim.noRule")}</p>
            ) : (
              <table className="list candidates">
                <caption className="sr-only">{t("sim.rulesAt", { level: t(LEVEL_LABELS[level.level]) })}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t("rules.rule")}</th>
                    <th scope="col">{t("field.storeId")}</th>
                    <th scope="col" className="num">
                      {t("field.minimum")}
                    </th>
                    <th scope="col">{t("sim.outcome")}</th>
                  </tr>
                </thead>
                <tbody>
                  {level.candidates.map((candidate) => (
                    <tr key={candidate.ruleId} className={`outcome-${candidate.outcome}`}>
                      <td>
                        <RuleName id={candidate.ruleId} />
                      </td>
                      <td>{candidate.storeId ?? t("scope.everyStore")}</td>
                      <td className="num">
                        {whatIf ? (
                          <input
                            className="what-if-minimum"
                            inputMode="numeric"
                            aria-label={t("sim.whatIfMinimum", { rule: candidate.ruleId })}
                            value={drafts.get(candidate.ruleId) ?? moneyInputText(candidate.minimum, currency)}
                            aria-invalid={drafts.has(candidate.ruleId) && Number.isNaN(parseMoney(drafts.get(candidate.ruleId)!, currency)) ? true : undefined}
                            onChange={(e) => onDraft(candidate.ruleId, e.target.value)}
                          />
                        ) : (
                          <Money amount={candidate.minimum} />
                        )}
                      </td>
                      <td>
                        <Outcome outcome={candidate.outcome} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {level.omittedStoreMismatches > 0 && <p className="muted">{t("sim.omitted", { count: level.omittedStoreMismatches })}</p>}
          </li>
        ))}
        <li className={`level${decided.kind === "DEFAULT" ? " decided" : ""}`}>
          <h3>
            {t("changes.tenantDefault")} <span className="muted">(DEFAULT)</span>
            {decided.kind === "DEFAULT" && <span className="badge active">{t("sim.decidesBadge")}</span>}
          </h3>
          <p>
            {t("field.minimum")} <Money amount={explanation.default.minimum} /> ·{" "}
            <strong className={`outcome ${explanation.default.outcome}`}>
              {t(explanation.default.outcome === "selected" ? "sim.decides" : "sim.notUsed")}
            </strong>{" "}
            <span className="muted">{t(explanation.default.outcome === "selected" ? "sim.defaultDecided" : "sim.ruleDecided")}</span>
          </p>
        </li>
      </ol>
    </div>
  );
}
