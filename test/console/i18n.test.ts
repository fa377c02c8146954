/// <reference types="vite/client" />
import MessageFormat from "@messageformat/core";
import { parse, type Token } from "@messageformat/parser";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import errorCatalogue from "../../client/error-catalogue.json";
import { keysNamedBy, resolveModule, staticClosure } from "../../console/i18n-keys";
import { LANGUAGES } from "../../console/src/shared/i18n";
import fixture from "./fixtures/english-left.tsx?raw";
import { userStrings } from "./user-strings";

/*
 * The console's words are in its catalogs (console/messages/<language>/<area>.json): none is left in
 * its sources, every language has every message, and each says it with the same values.
 */

// Every module of the console, its pages (.tsx) and its models and helpers (.ts), whatever the folder.
const sources = import.meta.glob(["../../console/src/**/*.{ts,tsx}", "!**/*.d.ts"], { query: "?raw", import: "default", eager: true }) as Record<
  string,
  string
>;
const files = import.meta.glob("../../console/messages/*/*.json", { import: "default", eager: true }) as Record<string, Record<string, string>>;

/** Each language's messages, its files merged. */
const catalogs = new Map<string, Record<string, string>>();
for (const [path, messages] of Object.entries(files)) {
  const language = path.split("/").at(-2) as string;
  catalogs.set(language, { ...catalogs.get(language), ...messages });
}
const english = catalogs.get("en") ?? {};

/** The values a message uses, each with how (`name`, `name:plural`, `name:number`), sorted. */
function valuesOf(message: string): string[] {
  const found = new Set<string>();
  const walk = (tokens: Token[]) => {
    for (const token of tokens) {
      if (token.type === "argument") found.add(token.arg);
      else if (token.type === "function") found.add(`${token.arg}:${token.key}`);
      else if (token.type === "plural" || token.type === "select" || token.type === "selectordinal") {
        found.add(`${token.arg}:${token.type}`);
        for (const option of token.cases) walk(option.tokens);
      }
    }
  };
  walk(parse(message));
  return [...found].sort();
}

describe("the console's words", () => {
  it("are nowhere in its sources but in the catalogs", () => {
    const left = Object.entries(sources).flatMap(([path, text]) =>
      userStrings(path, text).map(({ line, where, text }) => `${path.replace("../../", "")}:${line} (${where}) ${text}`),
    );
    expect(left).toEqual([]);
  });

  it("are looked for in every module of the console, its .ts files and every folder", () => {
    // Every file under console/src (not read: only named), whatever its kind.
    const modules = Object.keys(import.meta.glob("../../console/src/**/*")).filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts"));
    expect(Object.keys(sources).sort()).toEqual(modules.sort());
    expect(modules.filter((file) => /\/(excel|live)\//.test(file)).length).toBeGreaterThan(5);
  });

  it("would be found if one were left: text, a prop people read, a literal child, a notice, a phrase", () => {
    const found = userStrings("english-left.tsx", fixture);
    expect(found.map(({ where, text }) => `${where} ${text}`)).toEqual([
      'say() "Saved."',
      'title "Lines of the Operation"',
      "text Lines",
      'aria-label "Search"',
      'placeholder "Wait"',
      'placeholder "Type a code"',
      'alt "Chart of orders"',
      'child "Saving…"',
      `child \`\${3} rows\``,
      'phrase "Not live: the key was revoked"',
    ]);
  });

  it("are in each of the five languages, no more and no fewer", () => {
    expect([...catalogs.keys()].sort()).toEqual(Object.keys(LANGUAGES).sort());
    expect(Object.keys(english).length).toBeGreaterThan(40);
    for (const [language, messages] of catalogs) {
      const missing = Object.keys(english).filter((key) => !(key in messages));
      const extra = Object.keys(messages).filter((key) => !(key in english));
      expect({ language, missing, extra }).toEqual({ language, missing: [], extra: [] });
    }
  });

  it("would find a key missing in a language", () => {
    const { "app.language": _left, ...german } = catalogs.get("de") ?? {};
    expect(Object.keys(english).filter((key) => !(key in german))).toEqual(["app.language"]);
  });

  it("compile in their language, with the values and plural forms of the English message", () => {
    const wrong: string[] = [];
    for (const [language, messages] of catalogs) {
      const formatter = new MessageFormat(language);
      for (const [key, message] of Object.entries(messages)) {
        try {
          formatter.compile(message);
          if (valuesOf(message).join() !== valuesOf(english[key] ?? "").join())
            wrong.push(`${language} ${key}: ${valuesOf(message)} ≠ ${valuesOf(english[key])}`);
          if (!message.trim()) wrong.push(`${language} ${key}: empty`);
        } catch (error) {
          wrong.push(`${language} ${key}: ${(error as Error).message}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("of the first load are its modules' (a language's first chunk); a chunk that says later words waits for them", () => {
    const keys = Object.keys(english);
    const read = (file: string) => sources[file];
    const exists = (file: string) => file in sources;
    const firstModules = staticClosure(["../../console/src/main.tsx", "../../console/src/early.ts"], read);
    const first = keysNamedBy(firstModules.values(), keys);
    const laterWordsOf = (module: string) => [...keysNamedBy(staticClosure([module], read).values(), keys)].filter((key) => !first.has(key));
    expect(firstModules.has("../../console/src/operations/LinesGrid.tsx")).toBe(true);
    expect(firstModules.has("../../console/src/desk/ChangesPage.tsx")).toBe(false);
    expect([first.has("app.brand"), first.has("problem.not_found"), first.size < keys.length * 0.75]).toEqual([true, true, true]);
    // What the check below would find: a page loaded on first visit says words of its own.
    expect(laterWordsOf("../../console/src/desk/ChangesPage.tsx").length).toBeGreaterThan(10);

    const unready: string[] = [];
    for (const [file, text] of Object.entries(sources)) {
      const visit = (node: ts.Node) => {
        if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0])) {
          // withLaterWords(import(…)), or a page of pages.ts: page(path, () => import(…)) loads with withLaterWords.
          const caller = ts.isArrowFunction(node.parent) ? node.parent.parent : node.parent;
          const waits = ts.isCallExpression(caller) && ["withLaterWords", "page"].includes(caller.expression.getText());
          const target = resolveModule(file, node.arguments[0].text, exists);
          const later = target && !waits ? laterWordsOf(target) : [];
          if (later.length) unready.push(`${file.replace("../../", "")} → ${node.arguments[0].text}: ${later.slice(0, 3).join(", ")}…`);
        }
        ts.forEachChild(node, visit);
      };
      visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS));
    }
    expect(unready).toEqual([]);
  });

  it("name every problem the API answers, by its code", () => {
    const codes = Object.keys(errorCatalogue).filter((code) => !(`problem.${code}` in english));
    expect(codes).toEqual([]);
  });
});
