import { useEffect, useState, type ReactNode } from "react";
import { Link as RouterLink } from "wouter";
import { currentLanguage, hasMessage, t } from "./i18n";
import { toRefusal, type Refusal } from "./session";

export function Link({ to, children, current }: { to: string; children: ReactNode; current?: boolean }) {
  return (
    <RouterLink href={to} aria-current={current ? "page" : undefined}>
      {children}
    </RouterLink>
  );
}

/** Every refusal the API answers, with its problem detail and the items it names. */
export function ProblemView({ refusal, children }: { refusal: Refusal | null | undefined; children?: ReactNode }) {
  if (!refusal) return null;
  const { problem, status } = refusal;
  const items = (problem as { errors?: { field?: string; message?: string; row?: number; index?: number; code?: string }[] }).errors ?? [];
  const key = `problem.${problem.code}`;
  // The API speaks English: in another language its title is the catalog's sentence for the code, and
  // its detail and items follow as it said them (marked English for a screen reader).
  const english = currentLanguage() === "en";
  return (
    <div role="alert" className="problem">
      <strong>{hasMessage(key) ? t(key) : (problem.title ?? problem.code)}</strong>{" "}
      {status ? (
        <span className="muted">
          ({status} {problem.code})
        </span>
      ) : null}
      {problem.detail && (
        <p lang="en">
          {!english && <span className="muted">{t("common.serverSaid")} </span>}
          {problem.detail}
        </p>
      )}
      {items.length > 0 && (
        <ul lang="en">
          {items.slice(0, 20).map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: one answer's items, never reordered, and two may read the same.
            <li key={i}>
              {item.row !== undefined ? `${t("common.row", { row: item.row })}: ` : ""}
              {item.field ? `${item.field}: ` : ""}
              {item.message ?? item.code}
            </li>
          ))}
          {items.length > 20 && <li>{t("common.andMore", { count: items.length - 20 })}</li>}
        </ul>
      )}
      {children}
    </div>
  );
}

/** What the last action did, said to screen readers as it changes (nothing while there is none). */
export function StatusNote({ children }: { children: ReactNode }) {
  return children ? (
    <p role="status" className="note">
      {children}
    </p>
  ) : null;
}

/** Sentences as a list, the first 20 and how many more: a long list of refusals stays readable. */
export function FirstOf({ items }: { items: readonly string[] }) {
  return (
    <ul>
      {items.slice(0, 20).map((item) => (
        <li key={item}>{item}</li>
      ))}
      {items.length > 20 && <li>{t("common.andMore", { count: items.length - 20 })}</li>}
    </ul>
  );
}

/** A list filter: a text the API matches by "contains". */
export function SearchFilter({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <label>
      {label}
      <input type="search" value={value} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/** A list filter on whole days: From and To (YYYY-MM-DD, both included; empty sends no bound). */
export function DayRangeFilter({ from, to, onChange }: { from: string; to: string; onChange: (range: { from?: string; to?: string }) => void }) {
  return (
    <>
      <label>
        {t("common.from")}
        <input type="date" value={from} onChange={(e) => onChange({ from: e.target.value })} />
      </label>
      <label>
        {t("common.to")}
        <input type="date" value={to} onChange={(e) => onChange({ to: e.target.value })} />
      </label>
    </>
  );
}

/** A list filter on one of a few values (each a value, or a [value, label] pair), or any ("" sends no filter). */
export function ChoiceFilter({
  label,
  value,
  choices,
  onChange,
}: {
  label: string;
  value: string;
  choices: readonly (string | readonly [string, string])[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t("common.any")}</option>
        {choices.map((choice) => {
          const [option, text] = typeof choice === "string" ? [choice, choice] : choice;
          return (
            <option key={option} value={option}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/** A list's order: one of `choices`, each [the API's sort value, its label]. */
export function SortChoice({
  value,
  choices,
  onChange,
  disabled,
}: {
  value: string;
  choices: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
  disabled?: boolean;
}) {
  return (
    <label>
      {t("common.sort")}
      <select value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
        {choices.map(([choice, text]) => (
          <option key={choice} value={choice}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A form's submit and Cancel buttons, then the refusal of its last submit (`error`: what the mutation threw). */
export function FormActions({ submit, busy, onCancel, error }: { submit: string; busy: boolean; onCancel: () => void; error: unknown }) {
  return (
    <>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submit}
        </button>
        <button type="button" onClick={() => onCancel()}>
          {t("common.cancel")}
        </button>
      </div>
      <ProblemView refusal={error ? toRefusal(error) : null} />
    </>
  );
}

/** `value` once it has stayed the same for `delay` ms (a filter typed into, sent when the typing pauses). */
export function useDebounced<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

/** What a field's control takes to be named by its label and described by its hint and error. */
export interface FieldControl {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

/**
 * A form field whose label holds its name only: the hint and the error (the server's, after a
 * refusal) are outside the label and describe the control (`aria-describedby`), so a screen reader
 * says "Minimum, edit text, In EUR" rather than one run-on name.
 */
export function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(described && { "aria-describedby": described }), ...(error && { "aria-invalid": true as const }) })}
      {hint && (
        <span id={`${id}-hint`} className="muted hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="error-text">
          {error}
        </span>
      )}
    </div>
  );
}
