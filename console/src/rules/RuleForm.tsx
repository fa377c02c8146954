import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { navigate } from "wouter/use-browser-location";
import { ConfirmDialog } from "../shared/dialogs";
import { useUnsavedForm } from "../shared/leaving";
import { queryKeys } from "../shared/queryKeys";
import { toRefusal, type Refusal } from "../shared/session";
import { Field, Link, ProblemView } from "../shared/ui";
import { useDisplaySettings } from "../api/settings";
import { CurrencyNote, moneyInputText, moneyUnit, parseMoney, useCurrency } from "../labels/money";
import { useDeleteRule, useRule, useSaveRule, type QuotaRule } from "../api/rules";
import { CheckImpactButton, ImpactRegion, impactWords, saveLabel, useImpactCheck } from "./Impact";
import { accountHint, useScopeLabel, useTypedAccountName } from "../labels/names";
import { t } from "../shared/i18n";

const FIELDS = [
  ["accountId", "rules.accountId"],
  ["supplierId", "rules.supplierId"],
  ["storeId", "rules.storeId"],
] as const;
type FormField = (typeof FIELDS)[number][0] | "minimum" | "enforcement";

/** The refusal's message per form field: a 400's errors[] by field, a 409 duplicate_scope on the scope. */
function fieldErrors(refusal: Refusal | null): Map<FormField, string> {
  const errors = new Map<FormField, string>();
  if (!refusal) return errors;
  if (refusal.problem.code === "duplicate_scope") errors.set("accountId", refusal.problem.detail ?? t("rules.scopeTaken"));
  for (const item of (refusal.problem as { errors?: { field?: string; message?: string }[] }).errors ?? []) {
    const field = item.field?.replace(/^body\./, "") as FormField | undefined;
    if (field) errors.set(field, item.message ?? refusal.problem.code);
  }
  return errors;
}

/** /console/quota-rules/new and /console/quota-rules/:ruleId: one rule's form, with Delete on a stored one. */
export function RuleFormPage({ ruleId }: { ruleId: string | null }) {
  const rule = useRule(ruleId, { forForm: true });
  // The minimum is typed in the tenant's currency: the form waits for it.
  const display = useDisplaySettings();
  const scope = useScopeLabel(rule.data);
  return (
    <section>
      <p className="crumbs">
        <Link to="/console/quota-rules">{t("app.nav.rules")}</Link> /
      </p>
      <h1>{rule.data ? t("rules.ruleOf", { scope }) : t(ruleId ? "rules.rule" : "rules.new")}</h1>
      <CurrencyNote />
      {rule.error ? (
        <ProblemView refusal={toRefusal(rule.error)} />
      ) : (ruleId && !rule.data) || display.isPending ? (
        <p className="muted">{t("common.loading")}</p>
      ) : (
        <RuleForm rule={rule.data ?? null} />
      )}
    </section>
  );
}

function RuleForm({ rule }: { rule: QuotaRule | null }) {
  const queryClient = useQueryClient();
  const currency = useCurrency();
  const [values, setValues] = useState({
    accountId: rule?.accountId ?? "",
    supplierId: rule?.supplierId ?? "",
    storeId: rule?.storeId ?? "",
    minimum: rule ? moneyInputText(rule.minimum, currency) : "",
    enforcement: rule?.enforcement ?? ("BLOCK" as QuotaRule["enforcement"]),
  });
  const markSaved = useUnsavedForm(values);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const errors = fieldErrors(refusal);
  const account = accountHint(useTypedAccountName(values.accountId));
  const set = (field: FormField) => (value: string) => {
    setValues((current) => ({ ...current, [field]: value }));
    setSaved(false);
  };
  const body = () => ({
    accountId: values.accountId.trim() || null,
    supplierId: values.supplierId.trim() || null,
    storeId: values.storeId.trim() || null,
    minimum: parseMoney(values.minimum, currency),
    enforcement: values.enforcement,
  });
  const impact = useImpactCheck({ changes: [rule ? { op: "replace", ruleId: rule.id, rule: body() } : { op: "create", rule: body() }] });
  const save = useSaveRule(rule, {
    onMutate: () => {
      setRefusal(null);
      setSaved(false);
    },
    onSuccess: (stored) => {
      queryClient.setQueryData(queryKeys.rule.one(stored.id), stored);
      // What the check said was of the change now saved: the form no longer claims it.
      impact.reset();
      markSaved();
      if (rule) setSaved(true);
      else navigate(`/console/quota-rules/${stored.id}`);
    },
    onError: (error) => setRefusal(toRefusal(error)),
  });
  const remove = useDeleteRule(rule, {
    onMutate: () => setRefusal(null),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: queryKeys.rule.one(rule!.id) });
      navigate("/console/quota-rules");
    },
    onError: (error) => setRefusal(toRefusal(error)),
  });
  return (
    <form
      className="card rule-form"
      aria-label={t(rule ? "rules.edit" : "rules.new")}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate(body());
      }}
    >
      <fieldset className="fields">
        <legend>{t("rules.scopeLegend")}</legend>
        {FIELDS.map(([field, label]) => (
          <Field key={field} id={`rule-${field}`} label={t(label)} hint={field === "accountId" ? account : undefined} error={errors.get(field)}>
            {(control) => <input {...control} value={values[field]} onChange={(e) => set(field)(e.target.value)} />}
          </Field>
        ))}
      </fieldset>
      <div className="fields">
        <Field id="rule-minimum" label={t("field.minimum")} hint={t("rules.in", { unit: moneyUnit(currency) })} error={errors.get("minimum")}>
          {(control) => <input {...control} inputMode="decimal" required value={values.minimum} onChange={(e) => set("minimum")(e.target.value)} />}
        </Field>
        <label>
          {t("field.enforcement")}
          <select value={values.enforcement} onChange={(e) => set("enforcement")(e.target.value)}>
            <option value="BLOCK">{t("rules.block")}</option>
            <option value="WARN">{t("rules.warn")}</option>
          </select>
        </label>
      </div>
      <div className="actions">
        <CheckImpactButton impact={impact} />
        <button type="submit" className="primary" disabled={save.isPending}>
          {saveLabel(t(rule ? "common.save" : "common.create"), impact)}
        </button>
        {rule && (
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => setDeleting(true)}>
            {t("common.delete")}
          </button>
        )}
        {rule && (
          <Link
            to={`/console/quota-rules/simulator?accountId=${encodeURIComponent(rule.accountId ?? "")}&supplierId=${encodeURIComponent(rule.supplierId ?? "")}&storeId=${encodeURIComponent(rule.storeId ?? "")}`}
          >
            {t("rules.simulateScope")}
          </Link>
        )}
      </div>
      {rule && deleting && (
        <DeleteRuleDialog
          rule={rule}
          onConfirm={() => {
            setDeleting(false);
            remove.mutate();
          }}
          onClose={() => setDeleting(false)}
        />
      )}
      {saved && (
        <p role="status" className="note">
          {t("rules.saved")}
        </p>
      )}
      <ProblemView refusal={refusal} />
      <ImpactRegion impact={impact} of={rule ? "change" : "rule"} />
    </form>
  );
}

/** Asks before deleting a rule, with what the deletion would do to past orders (checked as the dialog opens). */
function DeleteRuleDialog({ rule, onConfirm, onClose }: { rule: QuotaRule; onConfirm: () => void; onClose: () => void }) {
  const impact = useImpactCheck({ changes: [{ op: "delete", ruleId: rule.id }] }, { auto: true });
  const scope = useScopeLabel(rule);
  return (
    <ConfirmDialog title={t("rules.deleteTitle", { scope })} confirm={saveLabel(t("common.delete"), impact)} onConfirm={onConfirm} onClose={onClose}>
      <p>{t("rules.deleteText")}</p>
      <p role="status">{impact.result ? t("rules.over90", { impact: impactWords(impact.result) }) : impact.busy ? t("rules.checkingImpact") : ""}</p>
      <ProblemView refusal={impact.refusal} />
    </ConfirmDialog>
  );
}
