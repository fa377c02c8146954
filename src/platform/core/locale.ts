import * as z from "zod";
import { resolveLocale } from "../../common/locale";
import { characterCount } from "./identifier-text.mjs";

export type LocalizedText = Record<string, string>;

const LOCALE_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

const LOCALE_TAG_MESSAGE = "must be a BCP 47 language tag such as en or fr-FR";

export const localeTag = z.string().regex(LOCALE_TAG, LOCALE_TAG_MESSAGE);

const MAX_LOCALES = 50;
const MAX_TEXT_LENGTH = 2000;

/**
 * A localized map as written by clients: locale → text. Tags and lengths are checked in one pass over
 * the map rather than by a schema per key and per value: a 5000-line PUT checks 5000 of these maps,
 * and zod's per-entry parse was a third of that call's validation. The document shows the same rules.
 */
export const localizedText = z
  .record(z.string(), z.string())
  .check((ctx) => {
    const locales = Object.keys(ctx.value);
    for (const locale of locales) {
      if (!LOCALE_TAG.test(locale)) {
        ctx.issues.push({ code: "custom", params: { code: "invalid_key" }, input: locale, path: [locale], message: LOCALE_TAG_MESSAGE });
      } else if (characterCount(ctx.value[locale]) > MAX_TEXT_LENGTH) {
        ctx.issues.push({
          code: "custom",
          params: { code: "too_big" },
          input: ctx.value[locale],
          path: [locale],
          message: `at most ${MAX_TEXT_LENGTH} characters`,
        });
      }
    }
    if (locales.length > MAX_LOCALES) ctx.issues.push({ code: "custom", input: ctx.value, message: `at most ${MAX_LOCALES} locales` });
  })
  .meta({
    id: "LocalizedText",
    description: 'Text per BCP 47 locale, e.g. { "en": "Spring", "fr": "Printemps" }.',
    propertyNames: { type: "string", pattern: LOCALE_TAG.source },
    additionalProperties: { type: "string", maxLength: MAX_TEXT_LENGTH },
  });

/** A merge-patch of a localized map: a locale set to null is removed. */
export const localizedTextPatch = z
  .record(
    localeTag,
    z
      .string()
      .refine((text) => characterCount(text) <= MAX_TEXT_LENGTH, `at most ${MAX_TEXT_LENGTH} characters`)
      .meta({ maxLength: MAX_TEXT_LENGTH })
      .nullable(),
  )
  .describe("Merge patch by locale: a value replaces, null removes that locale.");

export function mergeLocalized(current: LocalizedText, patch: Record<string, string | null>): LocalizedText {
  const merged: LocalizedText = { ...current };
  for (const [locale, value] of Object.entries(patch)) {
    if (value === null) delete merged[locale];
    else merged[locale] = value;
  }
  return merged;
}

/** Lower-cased values of every locale, joined: what case-insensitive substring filters search. */
export function searchText(text: LocalizedText): string {
  return Object.values(text)
    .map((v) => v.toLowerCase())
    .join("\u001f");
}

/**
 * The map with tags and values lower-cased (Unicode-aware, unlike SQLite's lower()): stored beside a
 * localized field so a filter or sort narrowed to one locale can stay case-insensitive in SQL.
 */
export function foldedText(text: LocalizedText): LocalizedText {
  const folded: LocalizedText = {};
  for (const [locale, value] of Object.entries(text)) folded[locale.toLowerCase()] ??= value.toLowerCase();
  return folded;
}

// One resolution for the API and the console (which shows names in its language the same way).
export { resolveLocale };

/** The sort key for a localized field: the tenant default locale's text, else any. */
export function sortText(text: LocalizedText, tenantDefault: string): string {
  return (resolveLocale(text, null, tenantDefault).value ?? "").toLowerCase();
}
