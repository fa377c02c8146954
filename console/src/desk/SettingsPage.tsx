import { useEffect, useState, type FormEvent } from "react";
import { useUnsavedEdits } from "../shared/leaving";
import { formatMoney } from "../labels/money";
import { toRefusal } from "../shared/session";
import { ProblemView } from "../shared/ui";
import { useApprovalSettings, useDisplaySettings, useSaveApprovalSettings, useSaveDisplaySettings } from "../api/settings";
import { currentLanguage, t, useInLanguage } from "../shared/i18n";

/**
 * /console/settings: how amounts are shown (the tenant's currency) and the approvals an activation
 * needs. Each field waits for the stored setting (disabled until read), so a choice made meanwhile is
 * never overwritten by it.
 */
export function SettingsPage() {
  return (
    <section>
      <h1>{t("app.nav.settings")}</h1>
      <DisplayForm />
      <ApprovalsForm />
    </section>
  );
}

/** Every ISO 4217 currency the browser knows, by its name in the console's language ("EUR · Euro"). */
function useCurrencies() {
  return useInLanguage(() => {
    const names = new Intl.DisplayNames([currentLanguage()], { type: "currency" });
    return Intl.supportedValuesOf("currency").map((code) => [code, `${code} · ${names.of(code) ?? code}`] as const);
  });
}

function DisplayForm() {
  const current = useDisplaySettings();
  const currencies = useCurrencies();
  const [currency, setCurrency] = useState("");
  const [saved, setSaved] = useState(false);
  const stored = current.data?.currency ?? "";
  useEffect(() => setCurrency(stored), [stored]);
  useUnsavedEdits(Boolean(current.data) && currency !== stored);
  const save = useSaveDisplaySettings(() => setSaved(true));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate({ currency: currency || null });
  };
  return (
    <form className="card entity-form settings-form" aria-labelledby="display-heading" onSubmit={submit}>
      <h2 id="display-heading">{t("settings.amounts")}</h2>
      <div className="fields">
        <label>
          {t("field.currency")}
          <select
            value={currency}
            onChange={(e) => {
              setCurrency(e.target.value);
              setSaved(false);
            }}
            aria-describedby="currency-help"
            disabled={!current.data}
          >
            <option value="">{t("settings.noCurrency")}</option>
            {currencies.map(([code, label]) => (
              <option key={code} value={code}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p id="currency-help" className="muted help">
        {t("settings.currencyHelp", { example: formatMoney(18000, currency || null) })}
      </p>
      <SettingFooter setting="currency" saved={saved} save={save} current={current} />
    </form>
  );
}

function ApprovalsForm() {
  const current = useApprovalSettings();
  const [required, setRequired] = useState("0");
  const [allowSelf, setAllowSelf] = useState(false);
  const [saved, setSaved] = useState(false);
  // Set from the stored setting when it changes, not on every read of it (a refetch keeps what is chosen).
  const storedRequired = current.data?.activation.required;
  const storedAllowSelf = current.data?.activation.allowSelfApproval;
  useEffect(() => {
    if (storedRequired === undefined || storedAllowSelf === undefined) return;
    setRequired(String(storedRequired));
    setAllowSelf(storedAllowSelf);
  }, [storedRequired, storedAllowSelf]);
  useUnsavedEdits(storedRequired !== undefined && (required !== String(storedRequired) || allowSelf !== storedAllowSelf));
  const save = useSaveApprovalSettings(() => setSaved(true));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate({ activation: { required: Number(required), allowSelfApproval: allowSelf } });
  };
  return (
    <form className="card entity-form settings-form" aria-labelledby="approvals-heading" onSubmit={submit}>
      <h2 id="approvals-heading">{t("settings.approvals")}</h2>
      <div className="fields">
        <label>
          {t("settings.approvalsNeeded")}
          <select value={required} onChange={(e) => setRequired(e.target.value)} aria-describedby="approvals-help" disabled={!current.data}>
            {[0, 1, 2, 3, 4, 5].map((n) => (
              <option key={n} value={n}>
                {n === 0 ? t("settings.approvalsOff") : n}
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={allowSelf} onChange={(e) => setAllowSelf(e.target.checked)} disabled={!current.data} />
          {t("settings.selfApproval")}
        </label>
      </div>
      <p id="approvals-help" className="muted help">
        {t("settings.approvalsHelp")}
      </p>
      <SettingFooter setting="approvals" saved={saved} save={save} current={current} />
    </form>
  );
}

/** A setting form's end: its Save button (while the stored setting is read, and not while saving), "saved", or what refused it. */
function SettingFooter({
  setting,
  saved,
  save,
  current,
}: {
  setting: "currency" | "approvals";
  saved: boolean;
  save: { isPending: boolean; error: unknown };
  current: { data?: unknown; error: unknown };
}) {
  return (
    <>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending || !current.data}>
          {t("settings.save", { what: setting })}
        </button>
      </div>
      {saved && (
        <p role="status" className="note">
          {t("settings.saved", { what: setting })}
        </p>
      )}
      <ProblemView refusal={save.error ? toRefusal(save.error) : current.error ? toRefusal(current.error) : null} />
    </>
  );
}
