import { useState, type FormEvent } from "react";
import { useUnsavedForm } from "../shared/leaving";
import { FormActions } from "../shared/ui";
import { useSaveOperation, type Operation } from "../api/operations";
import { t } from "../shared/i18n";

export const LOCALES = ["en", "fr", "de"] as const;

const toInputDate = (value: string | undefined) => (value ? value.slice(0, 10) : "");

/** Create (no operation) or edit: localized names side by side, one column per locale. */
export function OperationForm({ operation, onDone }: { operation?: Operation; onDone: (saved?: Operation) => void }) {
  const [code, setCode] = useState(operation?.code ?? "");
  const [type, setType] = useState<Operation["type"]>(operation?.type ?? "PUBLIC");
  const [startDate, setStartDate] = useState(toInputDate(operation?.startDate));
  const [endDate, setEndDate] = useState(toInputDate(operation?.endDate));
  const [names, setNames] = useState<Record<string, string>>(() => ({ ...Object.fromEntries(LOCALES.map((l) => [l, ""])), ...operation?.name }));
  useUnsavedForm({ code, type, startDate, endDate, names });
  const save = useSaveOperation(operation, onDone);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const dates = { startDate: `${startDate}T00:00:00Z`, endDate: `${endDate}T23:59:59Z` };
    // A new Operation names its filled locales; a Merge Patch removes a cleared locale with null.
    const name = operation
      ? Object.fromEntries(
          Object.keys(names)
            .map((locale) => [locale, names[locale].trim() || (operation.name[locale] ? null : undefined)])
            .filter(([, v]) => v !== undefined),
        )
      : Object.fromEntries(Object.entries(names).filter(([, value]) => value.trim()));
    save.mutate({ code, type, name, ...dates });
  };
  return (
    <form className="card operation-form" onSubmit={submit} aria-label={t(operation ? "ops.edit" : "ops.new")}>
      <div className="fields">
        <label>
          {t("field.code")}
          <input required value={code} onChange={(e) => setCode(e.target.value)} />
        </label>
        <label>
          {t("field.type")}
          <select value={type} onChange={(e) => setType(e.target.value as Operation["type"])}>
            <option>PUBLIC</option>
            <option>PRIVATE</option>
          </select>
        </label>
        <label>
          {t("field.startDate")}
          <input type="date" required value={startDate} onChange={(e) => setStartDate(e.target.value)} />
        </label>
        <label>
          {t("field.endDate")}
          <input type="date" required value={endDate} onChange={(e) => setEndDate(e.target.value)} />
        </label>
      </div>
      <fieldset className="locales">
        <legend>{t("ops.namePerLocale")}</legend>
        {Object.keys(names).map((locale) => (
          <label key={locale}>
            {t("ops.nameIn", { locale })}
            <input lang={locale} value={names[locale]} onChange={(e) => setNames({ ...names, [locale]: e.target.value })} />
          </label>
        ))}
      </fieldset>
      <FormActions submit={t(operation ? "common.saveChanges" : "common.create")} busy={save.isPending} onCancel={onDone} error={save.error} />
    </form>
  );
}
