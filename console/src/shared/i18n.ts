import { createElement, Fragment, isValidElement, type ReactNode, useRef, useSyncExternalStore } from "react";
import type app from "../../messages/en/app.json";
import type common from "../../messages/en/common.json";
import type desk from "../../messages/en/desk.json";
import type excel from "../../messages/en/excel.json";
import type fields from "../../messages/en/fields.json";
import type grid from "../../messages/en/grid.json";
import type history from "../../messages/en/history.json";
import type live from "../../messages/en/live.json";
import type operations from "../../messages/en/operations.json";
import type orders from "../../messages/en/orders.json";
import type problems from "../../messages/en/problems.json";
import type rules from "../../messages/en/rules.json";
import type totals from "../../messages/en/totals.json";

/**
 * The console's languages. Its words come from the catalogs of console/messages (ICU MessageFormat,
 * compiled when the console is built: console/i18n-messages.ts), each language a chunk of its own:
 * the one remembered (or the browser's) is read before the first page shows, another when it is
 * chosen, so every language's first load weighs the same. `t` says a message in the language
 * chosen; the root re-renders on a change (useLanguage), so nothing keeps the last language's words.
 */

export type MessageKey =
  | keyof typeof app
  | keyof typeof common
  | keyof typeof desk
  | keyof typeof excel
  | keyof typeof fields
  | keyof typeof grid
  | keyof typeof history
  | keyof typeof live
  | keyof typeof operations
  | keyof typeof orders
  | keyof typeof problems
  | keyof typeof rules
  | keyof typeof totals;

/** Each language by its own name (a name: never translated). */
export const LANGUAGES = { en: "English", fr: "Français", de: "Deutsch", es: "Español", it: "Italiano" } as const;
export type Language = keyof typeof LANGUAGES;

type Messages = Record<string, (values?: Record<string, unknown>) => string>;
export type MessageValues = Record<string, string | number | ReactNode>;

const loaders: Record<Language, () => Promise<{ default: Messages }>> = {
  en: () => import("virtual:messages/en"),
  fr: () => import("virtual:messages/fr"),
  de: () => import("virtual:messages/de"),
  es: () => import("virtual:messages/es"),
  it: () => import("virtual:messages/it"),
};

const STORAGE_KEY = "campaign-console-language";
const isLanguage = (value: unknown): value is Language => typeof value === "string" && Object.hasOwn(LANGUAGES, value);

// Empty until main.tsx (or a test's setup) reads the first language, before anything is shown.
let current: { language: Language; messages: Messages } = { language: "en", messages: {} };
const listeners = new Set<() => void>();

/** The language remembered in this browser, else the first of the browser's languages the console speaks, else English. */
export function preferredLanguage(): Language {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {}
  if (isLanguage(stored)) return stored;
  const spoken = (typeof navigator === "undefined" ? [] : navigator.languages).map((tag) => tag.split("-")[0].toLowerCase()).find(isLanguage);
  return spoken ?? "en";
}

/** Reads a language's catalog (its chunk, once), makes it the console's, and remembers it when `remember`. */
export async function switchLanguage(language: Language, { remember = false } = {}) {
  const messages = (await loaders[language]()).default;
  current = { language, messages };
  if (typeof document !== "undefined") document.documentElement.lang = language;
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, language);
    } catch {}
  }
  for (const listener of listeners) listener();
}

/** Starts reading a language's chunk (a pointer over the Language control), so choosing it is instant. */
export const prefetchLanguage = (language: Language) => void loaders[language]().catch(() => undefined);

export const currentLanguage = () => current.language;

/** The language chosen, re-rendering the component when it changes. */
export function useLanguage(): Language {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    currentLanguage,
    currentLanguage,
  );
}

/** A message in the language chosen (its key should a catalog lack it: the catalogs test forbids that). */
export function t(key: MessageKey, values?: Record<string, string | number>): string {
  const message = current.messages[key];
  return message ? message(values) : key;
}

/** Whether a message exists (keys made from the API's values: a problem code, a status); every language has the same keys. */
export const hasMessage = (key: string): key is MessageKey => Object.hasOwn(current.messages, key);

const MARK = /\u{F0000}(\d+)\u{F0001}/u;

/** A message whose values may be elements (a link, a name in bold): the sentence with them in place. */
export function tx(key: MessageKey, values: MessageValues): ReactNode {
  const elements: ReactNode[] = [];
  const text: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === "string" || typeof value === "number") text[name] = value;
    else {
      text[name] = `\u{F0000}${elements.length}\u{F0001}`;
      elements.push(isValidElement(value) ? value : createElement(Fragment, null, value));
    }
  }
  const said = t(key, text);
  if (!elements.length) return said;
  return said.split(MARK).map((part, i) => (i % 2 ? createElement(Fragment, { key: i }, elements[Number(part)]) : part));
}

/**
 * A value made of words (a grid's columns, a menu's choices), made again only when the language (or
 * `key`, what else it is made of) changes: its identity holds between renders.
 */
export function useInLanguage<T>(make: () => T, key?: unknown): T {
  const language = useLanguage();
  const made = useRef<{ language: Language; key: unknown; value: T } | null>(null);
  if (made.current?.language !== language || made.current.key !== key) made.current = { language, key, value: make() };
  return made.current.value;
}

/** Items as the language lists them: "Min and Max", "Min und Max". */
export const listText = (items: readonly string[]) => new Intl.ListFormat(current.language, { type: "conjunction" }).format(items);
