// The console's first load (what its page loads before any page of it shows) stays within its budget:
// 148.9 KiB gzipped of HTML, scripts and style sheets and the heaviest language's first words (issue
// 50 allowed the five languages 1.05× the 141.8 KiB of main without them, f3f6fa6). Each language is
// two chunks: the words the first load names, read beside it, and the later pages' words, read with
// the first of them. Pages loaded on their first visit are counted apart, and so is the Excel library,
// a chunk of its own loaded on the first Export or Import Excel; the bench (npm run bench --
// console-languages) weighs main's beside this tree's.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { buildConsole, consoleWeight, EXCEL_LIBRARY_MARK } from "../../scripts/build-console.mjs";

const ASSETS = join(import.meta.dirname, "..", "..", "public", "console", "assets");

const BUDGET_KIB = 148.9;

it(`loads at most ${BUDGET_KIB} KiB gzipped first, the Orders and Totals pages and the Excel library apart`, { timeout: 300_000 }, async () => {
  await buildConsole({ ifChanged: true });
  const { js, css, html, language, lazy, excel, firstFiles } = consoleWeight();
  const kib = (bytes) => Math.round((bytes / 1024) * 10) / 10;
  const first = js + css + html + language;
  assert.ok(language > 0, "each language's catalog is a chunk of its own");
  const assets = readdirSync(ASSETS);
  for (const tag of ["en", "fr", "de", "es", "it"])
    for (const part of [tag, `later-${tag}`])
      assert.ok(
        assets.some((file) => file.startsWith(`${part}-`)),
        `${part}: the language's words in two chunks`,
      );
  assert.ok(
    first <= BUDGET_KIB * 1024,
    `first load ${kib(first)} KiB (JS ${kib(js)}, CSS ${kib(css)}, HTML ${kib(html)}, the heaviest language ${kib(language)}) > ${BUDGET_KIB} KiB`,
  );
  assert.ok(lazy > 0, "the Orders and Totals pages are chunks of their own, loaded on first visit");
  assert.ok(excel > 50 * 1024, `the Excel library is a chunk of its own (${kib(excel)} KiB)`);
  for (const file of firstFiles) assert.doesNotMatch(readFileSync(file, "utf8"), EXCEL_LIBRARY_MARK, `${file} (first load) holds the Excel library`);
});
