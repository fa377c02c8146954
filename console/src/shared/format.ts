import type { Schemas } from "@campaign-policy/client";
import { currentLanguage, type Language } from "./i18n";

/** How the console writes values for people: counts, dates, the values of a change, a change itself. */

export type FieldChange = Schemas["FieldChange"];

/** What an empty value reads as, wherever a value is shown. */
export const EMPTY = "—";

/** Intl's formats, made once per language and options (making one is far slower than using it). */
function cached<T>(make: (language: Language) => T) {
  const made = new Map<Language, T>();
  return () => {
    const language = currentLanguage();
    const format = made.get(language) ?? make(language);
    made.set(language, format);
    return format;
  };
}

const numbers = cached((language) => new Intl.NumberFormat(language));
const dateTimes = cached(
  (language) =>
    new Intl.DateTimeFormat(language, {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZone: "UTC",
    }),
);
const days = cached((language) => new Intl.DateTimeFormat(language, { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" }));

/** A number as the language writes it: 5,000.5 (English), 5.000,5 (German), 5 000,5 (French). */
export const formatNumber = (n: number) => numbers().format(n);

/**
 * A date-time in UTC (as the API stores it), 24-hour, or "—" when there is none. English keeps the
 * API's own order, which reads the same everywhere ("2026-03-01 07:00:00"); the other languages
 * write it as Intl does for them ("01.03.2026, 07:00:00").
 */
export const when = (at: string | null | undefined) =>
  !at ? EMPTY : currentLanguage() === "en" ? at.replace("T", " ").slice(0, 19) : dateTimes().format(new Date(at));

const clocks = cached(
  (language) => new Intl.DateTimeFormat(language, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: "UTC" }),
);

/** A date-time's time of day in UTC, 24-hour: "07:00:00". */
export const clock = (at: Date) => clocks().format(at);

/** A day (a date, or a date-time's UTC day): "2026-03-01" in English, "01.03.2026" in German. */
export const day = (at: string | null | undefined) =>
  !at ? EMPTY : currentLanguage() === "en" ? at.slice(0, 10) : days().format(new Date(at.length === 10 ? `${at}T00:00:00Z` : at));

/** A date-time as the API writes one (2026-03-01T07:00:00Z, with or without its fraction, or with an offset). */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

/** Whether a value says nothing (a created record lists every field, the empty ones too). */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value as object).length === 0;
}

/**
 * A recorded value: a localized name as its texts ("Spring (en) · Printemps (fr)"), a date-time in
 * the console's one style, a list item by item, nothing as "—", anything else as JSON.
 */
export function formatValue(value: unknown): string {
  if (isEmptyValue(value)) return EMPTY;
  if (typeof value === "string") return DATE_TIME.test(value) ? when(value) : value;
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(formatValue).join(", ");
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.every(([key, text]) => /^[a-z]{2}(-[A-Z]{2})?$/.test(key) && typeof text === "string")) {
    return entries.map(([locale, text]) => `${text} (${locale})`).join(" · ");
  }
  return JSON.stringify(value);
}

/** The changes worth reading: an update's every change, a created or deleted resource's fields that hold something. */
export const meaningfulChanges = (changes: FieldChange[]) =>
  changes.filter((change) => ("previous" in change && "next" in change) || !isEmptyValue(change.next ?? change.previous));

/**
 * One field's change in words: "Max 37 → 40", "Max 40" (created), "Max was 37" (deleted). `value`
 * writes a value (an amount in the tenant's currency; formatValue by default), `name` the field (as
 * the API spells it by default).
 */
export function formatChange(change: FieldChange, value: (value: unknown) => string = formatValue, name: string = change.field): string {
  const had = "previous" in change;
  const has = "next" in change;
  if (had && has) return `${name} ${value(change.previous)} → ${value(change.next)}`;
  if (has) return `${name} ${value(change.next)}`;
  return `${name} was ${value(change.previous)}`;
}
