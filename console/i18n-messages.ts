import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import MessageFormat from "@messageformat/core";
import compileModule from "@messageformat/core/compile-module.js";
import type { Plugin } from "vite";

/**
 * The console's words: console/messages/<language>/<area>.json, ICU MessageFormat, one key per
 * message. `import("virtual:messages/de")` is the German catalog compiled when the console is built
 * (each message a function: no parser in the page, one chunk per language).
 */

export const LANGUAGES = ["en", "fr", "de", "es", "it"] as const;
const PREFIX = "virtual:messages/";

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

export function icuMessages(dir: string): Plugin {
  return {
    name: "icu-messages",
    resolveId: (id) => (id.startsWith(PREFIX) ? `\0${id}` : undefined),
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return;
      const language = id.slice(PREFIX.length + 1);
      if (!(LANGUAGES as readonly string[]).includes(language)) throw new Error(`No catalog for the language ${language}`);
      for (const file of catalogFiles(dir, language)) this.addWatchFile(file);
      return compileModule(new MessageFormat(language), readCatalog(dir, language));
    },
  };
}
