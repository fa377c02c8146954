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
import { type Language, onWords, prefetchWords, words } from "./languages";

/**
 * The console's words, said in the language chosen. They come from the catalogs of console/messages
 * (ICU MessageFormat, compiled when the console is built: console/i18n-messages.ts), each language
 * two chunks read as languages.ts says: the first load's words beside it, the later pages' with the
 * first of them. `t` says a message in the language chosen; the root re-renders on a change
 * (useLanguage), so nothing keeps the last language's words.
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

export { LANGUAGES, type Language, preferredLanguage, switchLanguage, withLaterWords } from "./languages";

export type MessageValues = Record<string, string | number | ReactNode>;

/** Starts reading a language's chunks (a pointer over the Language control), so choosing it is instant. */
export const prefetchLanguage = (language: Language) => void prefetchWords(language).catch(() => undefined);

export const currentLanguage = () => words().language;

/**
 * The language chosen, re-rendering the component when it changes. Later words coming in change
 * nothing shown: what says them loads with them (withLaterWords).
 */
export function useLanguage(): Language {
  return useSyncExternalStore(onWords, currentLanguage, currentLanguage);
}

/** A message in the language chosen (its key should a catalog lack it: the catalogs test forbids that). */
export function t(key: MessageKey, values?: Record<string, string | number>): string {
  const message = words().messages[key];
  return message ? message(values) : key;
}

/** Whether a message exists (keys made from the API's values: a problem code, a status); every language has the same keys. */
export const hasMessage = (key: string): key is MessageKey => Object.hasOwn(words().messages, key);

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
export const listText = (items: readonly string[]) => new Intl.ListFormat(currentLanguage(), { type: "conjunction" }).format(items);
