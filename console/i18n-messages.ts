import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import MessageFormat from "@messageformat/core";
import compileModule from "@messageformat/core/compile-module.js";
import type { Plugin } from "vite";
import { keysNamedBy, staticClosure } from "./i18n-keys.ts";

/**
 * The console's words: console/messages/<language>/<area>.json, ICU MessageFormat, one key per
 * message, compiled when the console is built (each message a function: no parser in the page).
 * Each language is two chunks: `import("virtual:messages/de")`, the German words of the console's
 * first load (the messages its modules name), read beside it; and `import("virtual:messages/later-de")`,
 * the others (the pages loaded on first visit), read with the first of them. While developing
 * (`vite` serving), the first chunk holds every message.
 */

export const LANGUAGES = ["en", "fr", "de", "es", "it"] as const;
const PREFIX = "virtual:messages/";
const LATER = "later-";

/** The JSON files of a language's catalog. */
export const catalogFiles = (dir: string, language: string) =>
  existsSync(join(dir, language))
    ? readdirSync(join(dir, language))
        .filter((file) => file.endsWith(".json"))
        .sort()
        .map((file) => join(dir, language, file))
    : [];

/** A language's messages, its files merged; a key in two files is an error (one would hide the other). */
export function readCatalog(dir: string, language: string): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const file of catalogFiles(dir, language)) {
    for (const [key, message] of Object.entries(JSON.parse(readFileSync(file, "utf8")) as Record<string, string>)) {
      if (key in messages) throw new Error(`${file}: the key ${key} is in another file of ${language} too`);
      messages[key] = message;
    }
  }
  return messages;
}

/** The keys the first load's modules name (the others are read with the first page loaded on its first visit). */
export function firstLoadKeys(entries: readonly string[], keys: readonly string[]): Set<string> {
  const read = (file: string) => (existsSync(file) && statSync(file).isFile() ? readFileSync(file, "utf8") : undefined);
  return keysNamedBy(staticClosure(entries, read).values(), keys);
}

/**
 * The catalogs as modules: `virtual:messages/<language>` and `virtual:messages/later-<language>`;
 * `entries` are the console's first-load scripts (index.html's), whose static imports make the first load.
 */
export function icuMessages(dir: string, entries: readonly string[] = []): Plugin {
  let building = false;
  let first: Set<string> | null = null;
  return {
    name: "icu-messages",
    configResolved(config) {
      building = config.command === "build";
    },
    resolveId: (id) => (id.startsWith(PREFIX) ? `\0${id}` : undefined),
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return;
      const name = id.slice(PREFIX.length + 1);
      const later = name.startsWith(LATER);
      const language = later ? name.slice(LATER.length) : name;
      if (!(LANGUAGES as readonly string[]).includes(language)) throw new Error(`No catalog for the language ${language}`);
      for (const file of catalogFiles(dir, language)) this.addWatchFile(file);
      const catalog = readCatalog(dir, language);
      if (!building) return compileModule(new MessageFormat(language), later ? {} : catalog);
      first ??= firstLoadKeys(entries, Object.keys(readCatalog(dir, "en")));
      const part = Object.fromEntries(Object.entries(catalog).filter(([key]) => first?.has(key) !== later));
      return compileModule(new MessageFormat(language), part);
    },
  };
}
