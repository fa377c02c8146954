// The console's first load (what its page loads before any page of it shows) stays within its budget:
// 156 KiB gzipped of HTML, scripts and style sheets and the heaviest language's catalog (issue 50
// allowed the five languages 1.05× the first load of main without them; each language is a chunk of
// its own, read beside the first page). Pages loaded on their first visit (an Operation's Orders and
// Totals) are counted apart, and so is the Excel library, a chunk of its own loaded on the first
// Export or Import Excel; the bench (npm run bench -- console) reports all of them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { buildConsole, consoleWeight, EXCEL_LIBRARY_MARK } from "../../scripts/build-console.mjs";

const BUDGET_KIB = 156;

it(`loads at most ${BUDGET_KIB} KiB gzipped first, the Orders and Totals pages and the Excel library apart`, { timeout: 300_000 }, async () => {
  await buildConsole({ ifChanged: true });
  const { js, css, html, language, lazy, excel, firstFiles } = consoleWeight();
  const kib = (bytes) => Math.round((bytes / 1024) * 10) / 10;
  const first = js + css + html + language;
  assert.ok(language > 0, "each language's catalog is a chunk of its own");
  assert.ok(
    first <= BUDGET_KIB * 1024,
    `first load ${kib(first)} KiB (JS ${kib(js)}, CSS ${kib(css)}, HTML ${kib(html)}, the heaviest language ${kib(language)}) > ${BUDGET_KIB} KiB`,
  );
  assert.ok(lazy > 0, "the Orders and Totals pages are chunks of their own, loaded on first visit");
  assert.ok(excel > 50 * 1024, `the Excel library is a chunk of its own (${kib(excel)} KiB)`);
  for (const file of firstFiles) assert.doesNotMatch(readFileSync(file, "utf8"), EXCEL_LIBRARY_MARK, `${file} (first load) holds the Excel library`);
});
