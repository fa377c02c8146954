import type { Schemas } from "@campaign-policy/client";

/** How the console writes values for people: dates, the values of a change, a change itself. */

export type FieldChange = Schemas["FieldChange"];

/** A date-time as "2026-03-01 07:00:00" (UTC, as the API stores it), or "—" when there is none. */
export const when = (at: string | null | undefined) => (at ? at.replace("T", " ").slice(0, 19) : "—");

/** A recorded value: a localized name as its English (or first) text, nothing as "empty", anything else as JSON. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "empty";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(formatValue).join(", ");
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.length) return "empty";
  if (entries.length && entries.every(([key, text]) => /^[a-z]{2}(-[A-Z]{2})?$/.test(key) && typeof text === "string")) {
    return entries.map(([locale, text]) => `${text} (${locale})`).join(" · ");
  }
  return JSON.stringify(value);
}

/** Whether a value says nothing (a created record lists every field, the empty ones too). */
export const isEmptyValue = (value: unknown) => formatValue(value) === "empty";

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
