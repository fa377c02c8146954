import type { Schemas } from "@campaign-policy/client";
import { useMutation } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import { useSearch } from "wouter";
// The server's own resolution (pure, no I/O): the browser simulates with the code the API runs, not a copy.
import { buildRuleIndex, evaluateExplained, indexedRuleOf, type ExplainedQuotaResult, type QuotaOrder } from "@campaign-policy/common/rule-index";
import { useSession } from "../shared/context";
import { CurrencyNote, Money, moneyInputText, moneyUnit, parseMoney, useCurrency } from "../labels/money";
import { accountHint, RuleName, useTypedAccountName } from "../labels/names";
import { plural } from "../shared/format";
import { useUnsavedEdits } from "../shared/leaving";
import { toRefusal, type Refusal } from "../shared/session";
import { Link, ProblemView } from "../shared/ui";
import { saveMinimums, useEvaluation, useQuotaDefault, useRulesChanged, useRulesOfOrder, type QuotaRule } from "../api/rules";
import "./rules.css";

type Evaluation = Schemas["EvaluationResult"];
type Explanation = ExplainedQuotaResult["explanation"];
type Candidate = Explanation["levels"][number]["candidates"][number];

const LEVEL_LABELS = { ACCOUNT_SUPPLIER: "Account + Supplier", ACCOUNT: "Account", SUPPLIER: "Supplier", DEFAULT: "Tenant default" } as const;
/** Each outcome the API names, in words: what happened to the rule, then why. */
const OUTCOME_WORDS: Record<Candidate["outcome"], [string, string]> = {
  selected: ["Decides", "its minimum applies to the order"],
  lower_minimum: ["Outranked", "a higher minimum won at this level"],
  tie_older_rule_wins: ["Tied, older rule wins", "same minimum: an older rule won"],
  shadowed_by_higher_level: ["Overruled", "it matches, but a higher level decided"],
  store_mismatch: ["Other store", "a rule for another store"],
};

/** An outcome in words (the API's code kept in the row's class for styling and tests). */
function Outcome({ outcome }: { outcome: Candidate["outcome"] }) {
  const [word, why] = OUTCOME_WORDS[outcome];
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
      setSaveNote(`Saved ${plural(count, "rule")}; the answer below is the API's, evaluated again.`);
    },
    onError: (error) => setSaveRefusal(toRefusal(error)),
  });

  const shown = whatIf ? simulated : ((server.data as ExplainedQuotaResult | undefined) ?? null);
  return (
    <section className="simulator">
      <p className="crumbs">
        <Link to="/console/quota-rules">Quota rules</Link> /
      </p>
      <h1>Simulator</h1>
      <p className="muted">Which minimum applies to an order, and why: every rule of the order's account and supplier, level by level.</p>
      <CurrencyNote />
      <form className="card sim-form" aria-label="Order to evaluate" onSubmit={evaluate}>
        <div className="field">
          <label htmlFor="sim-account">Account</label>
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
          <label htmlFor="sim-supplier">Supplier</label>
          <input
            id="sim-supplier"
            value={form.supplierId}
            onChange={(e) => setForm({ ...form, supplierId: e.target.value })}
            aria-describedby="sim-supplier-help"
          />
          <span id="sim-supplier-help" className="muted hint">
            Empty: no supplier
          </span>
        </div>
        <div className="field">
          <label htmlFor="sim-store">Store</label>
          <input id="sim-store" value={form.storeId} onChange={(e) => setForm({ ...form, storeId: e.target.value })} aria-describedby="sim-store-help" />
          <span id="sim-store-help" className="muted hint">
            Empty: no store
          </span>
        </div>
        <div className="field">
          <label htmlFor="sim-amount">Amount</label>
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
            In {moneyUnit(currency)}
          </span>
        </div>
        <button type="submit" className="primary">
          Evaluate
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
            What if: try other minimums before saving
          </label>
          {agrees !== null && (
            <p className={agrees ? "muted" : "error-text"} role="status" data-simulated={canonical(simulated)}>
              {agrees
                ? "This browser's simulation, by the server's own resolution code, gives the API's answer."
                : "This browser's simulation differs from the API's answer: the rules changed since they were read. Evaluate again."}
            </p>
          )}
        </div>
      )}
      {whatIf && (
        <p className="what-if-note" role="note">
          What if: simulated in this browser against your unsaved minimums, by the server's own resolution code. Nothing is saved until you save.
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
            Save {plural(changed.length, "changed minimum")}
          </button>
          <button type="button" disabled={drafts.size === 0} onClick={() => setDrafts(new Map())}>
            Reset
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
      {result.allowed ? (below ? "Allowed with a warning" : "Allowed") : "Blocked"}
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
      aria-label={whatIf ? "Simulated answer" : "API answer"}
      role="region"
      data-result={canonical(result)}
    >
      <h2>{whatIf ? "Simulated answer (not saved)" : "The API's answer"}</h2>
      <dl className="summary">
        <div>
          <dt>Effective minimum</dt>
          <dd>
            <Money amount={result.effectiveMinimum} />
          </dd>
        </div>
        <div>
          <dt>Outcome</dt>
          <dd>
            <Verdict result={result} /> <span className="muted">({result.enforcement})</span>
          </dd>
        </div>
        <div>
          <dt>Shortfall</dt>
          <dd>
            <Money amount={result.shortfall} />
          </dd>
        </div>
        <div>
          <dt>Decided by</dt>
          <dd>
            {LEVEL_LABELS[decided.kind]}
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
            <dt>Now (saved rules)</dt>
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
              {LEVEL_LABELS[level.level]} <span className="muted">({level.level})</span>
              {decided.kind === level.level && <span className="badge active">decides</span>}
            </h3>
            {!level.applicable ? (
              <p className="muted">Not applicable: the order has no supplier.</p>
            ) : level.candidates.length === 0 ? (
              <p className="muted">No rule at this level.</p>
            ) : (
              <table className="list candidates">
                <caption className="sr-only">Rules at the {LEVEL_LABELS[level.level]} level</caption>
                <thead>
                  <tr>
                    <th scope="col">Rule</th>
                    <th scope="col">Store</th>
                    <th scope="col" className="num">
                      Minimum
                    </th>
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  {level.candidates.map((candidate) => (
                    <tr key={candidate.ruleId} className={`outcome-${candidate.outcome}`}>
                      <td>
                        <RuleName id={candidate.ruleId} />
                      </td>
                      <td>{candidate.storeId ?? "every store"}</td>
                      <td className="num">
                        {whatIf ? (
                          <input
                            className="what-if-minimum"
                            inputMode="numeric"
                            aria-label={`What-if minimum of ${candidate.ruleId}`}
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
            {level.omittedStoreMismatches > 0 && <p className="muted">… and {level.omittedStoreMismatches} more rules for other stores.</p>}
          </li>
        ))}
        <li className={`level${decided.kind === "DEFAULT" ? " decided" : ""}`}>
          <h3>
            Tenant default <span className="muted">(DEFAULT)</span>
            {decided.kind === "DEFAULT" && <span className="badge active">decides</span>}
          </h3>
          <p>
            Minimum <Money amount={explanation.default.minimum} /> ·{" "}
            <strong className={`outcome ${explanation.default.outcome}`}>{explanation.default.outcome === "selected" ? "Decides" : "Not used"}</strong>{" "}
            <span className="muted">{explanation.default.outcome === "selected" ? "no rule matched: the default decided" : "a rule decided"}</span>
          </p>
        </li>
      </ol>
    </div>
  );
}
