/**
 * The console's languages and the words it holds, without React (boot.ts reads them before the
 * console's scripts have loaded). Each language's catalog is two chunks, compiled when the console is
 * built (console/i18n-messages.ts): the words of the first load, read beside it, and the words of the
 * pages loaded on their first visit, read with the first of them (`withLaterWords`).
 */

/** Each language by its own name (a name: never translated). */
export const LANGUAGES = { en: "English", fr: "Français", de: "Deutsch", es: "Español", it: "Italiano" } as const;
export type Language = keyof typeof LANGUAGES;

export type Messages = Record<string, (values?: Record<string, unknown>) => string>;
type Catalog = () => Promise<{ default: Messages }>;

const FIRST: Record<Language, Catalog> = {
  en: () => import("virtual:messages/en"),
  fr: () => import("virtual:messages/fr"),
  de: () => import("virtual:messages/de"),
  es: () => import("virtual:messages/es"),
  it: () => import("virtual:messages/it"),
};
const LATER: Record<Language, Catalog> = {
  en: () => import("virtual:messages/later-en"),
  fr: () => import("virtual:messages/later-fr"),
  de: () => import("virtual:messages/later-de"),
  es: () => import("virtual:messages/later-es"),
  it: () => import("virtual:messages/later-it"),
};

const STORAGE_KEY = "campaign-console-language";
const isLanguage = (value: unknown): value is Language => typeof value === "string" && Object.hasOwn(LANGUAGES, value);

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

/** The words held: a new object on every change (what React compares). `complete`: the later words are in too. */
export interface Words {
  language: Language;
  messages: Messages;
  complete: boolean;
}

// Empty until main.tsx (or a test's setup) has read the first language's words.
let current: Words = { language: preferredLanguage(), messages: {}, complete: false };
/** Once a page loaded on its first visit was wanted, every language read after reads its later words too. */
let laterWanted = false;
const listeners = new Set<() => void>();
const tell = () => {
  for (const listener of listeners) listener();
};

export const words = () => current;

export function onWords(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Starts reading a language's first words (its chunk, once): early.ts, as the console's scripts load. */
export const readFirstWords = (language: Language) => FIRST[language]();

/** Starts reading what choosing `language` will read (a pointer over the Language control), so that choosing it is instant. */
export const prefetchWords = (language: Language) => Promise.all([FIRST[language](), laterWanted ? LATER[language]() : undefined]);

/** Reads a language's words (its chunks, once), makes them the console's, and remembers the language when `remember`. */
export async function switchLanguage(language: Language, { remember = false } = {}) {
  const [first, later] = await Promise.all([FIRST[language](), laterWanted ? LATER[language]() : undefined]);
  current = { language, messages: { ...first.default, ...later?.default }, complete: Boolean(later) };
  if (typeof document !== "undefined") document.documentElement.lang = language;
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, language);
    } catch {}
  }
  tell();
  if (laterWanted && !later) await readLaterWords();
}

/** Reads the language's later words (the pages loaded on first visit), once, into the words held. */
export function readLaterWords(): Promise<void> {
  laterWanted = true;
  const { language, complete } = current;
  if (complete) return Promise.resolve();
  return LATER[language]().then(({ default: later }) => {
    // A switch meanwhile reads its own (laterWanted).
    if (current.language !== language || current.complete) return;
    current = { language, messages: { ...current.messages, ...later }, complete: true };
    tell();
  });
}

/** A chunk loaded on first use, given once the words it says are in too. */
export const withLaterWords = <T>(chunk: Promise<T>): Promise<T> => Promise.all([chunk, readLaterWords()]).then(([module]) => module);
