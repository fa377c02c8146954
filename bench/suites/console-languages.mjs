// Issue 50: what the five languages cost the console, side by side with the code before them
// (BENCH_CONSOLE_BASELINE, main before the languages merged by default), served by a second
// `wrangler dev` from its own checkout with its own console build. Both seed the same tenant (a
// 5000-line Operation, 5000 quota rules); fresh tabs open each grid, the two sides interleaved round
// by round, timed from navigation to the first grid rows. This tree also opens the lines grid with
// German remembered, and reports when its language's chunk was read against the page's first call
// to the API (the two go out together, not one after the other). And each build's first load,
// gzipped: what index.html names, this tree's heaviest language's catalog with it.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildConsole, consoleWeight } from "../../scripts/build-console.mjs";
import { launchChromium } from "../../scripts/lib/chromium.mjs";
import { extractTree } from "../lib.mjs";
import { benchLines, benchRules } from "./console.mjs";

/** The commit before the languages: main as it was when issue 50's branch was brought up to date with it. */
const BASELINE_REF = process.env.BENCH_CONSOLE_BASELINE ?? "f3f6fa6";
const LINES = 5000;
const RULES = 5000;
const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 7);
const FIRST_LOAD_GOAL = 1.05;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const kib = (bytes) => Math.round((bytes / 1024) * 10) / 10;
const ratio = (a, b) => Math.round((a / b) * 100) / 100;

/** A tenant of `side` (a bench context) with a 5000-line Operation and 5000 quota rules. */
async function seed(side) {
  const { operator } = await side.newTenant();
  const operation = (
    await side.expect(operator, "POST", "/v1/operations", {
      code: `LANGUAGES-${Date.now().toString(36)}`,
      name: { en: "Languages bench", de: "Sprachen-Bench" },
      type: "PUBLIC",
      startDate: "2098-01-01T00:00:00Z",
      endDate: "2098-12-31T00:00:00Z",
    })
  ).body.id;
  await side.expect(operator, "PUT", `/v1/operations/${operation}/lines`, benchLines(LINES), 200);
  await side.expect(operator, "PUT", "/v1/buying-policies/quotas/rules", benchRules(RULES), 200);
  return { operator, linesUrl: `${side.baseUrl}/console/operations/${operation}`, rulesUrl: `${side.baseUrl}/console/quota-rules?view=grid` };
}

/** A build's first load as the console-budget test counts it (`weigh`: that tree's consoleWeight). */
function firstLoadOf(weigh) {
  const { js, css, html, language = 0 } = weigh();
  return { total: js + css + html + language, js, css, html, language };
}
const runNode = (args, cwd) => execFileSync(process.execPath, args, { cwd, stdio: "ignore" });

export default async function consoleLanguages(ctx) {
  await buildConsole({ ifChanged: true });
  const { commit, dir } = extractTree(BASELINE_REF);
  ctx.log(`baseline: ${BASELINE_REF} = ${commit.slice(0, 12)}, served from ${dir}`);
  // The baseline's console, built from its own sources (its contract first: the console's types and limits read it).
  runNode([join(dir, "scripts", "write-openapi.mjs"), "--types"], dir);
  runNode([join(dir, "scripts", "build-console.mjs")], dir);
  const baselineWeight = (await import(pathToFileURL(join(dir, "scripts", "build-console.mjs")).href)).consoleWeight;
  const baselineServer = await ctx.startServer({ root: dir, stateDir: join(dir, ".bench-state") });
  const browser = await launchChromium();
  try {
    const sides = { baseline: await seed(ctx.createContext(baselineServer.baseUrl)), current: await seed(ctx) };
    const open = async ({ operator }, { url, language }) => {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.addInitScript(
        ({ session, language }) => {
          sessionStorage.setItem("campaign-console-session", session);
          if (language) localStorage.setItem("campaign-console-language", language);
        },
        { session: JSON.stringify({ apiKey: operator.key, role: "OPERATOR" }), language },
      );
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(url);
      await page.locator('[role="gridcell"]').first().waitFor({ timeout: 60_000 });
      const ms = Date.now() - started;
      // When the language's chunk came and when the first API call went out, from the navigation's start.
      const timing = await page.evaluate(() => {
        const resources = performance.getEntriesByType("resource");
        const first = (test) => resources.find((entry) => test(new URL(entry.name).pathname));
        const language = first((path) => /\/assets\/(en|fr|de|es|it)-[\w-]+\.js$/.test(path));
        const api = first((path) => path.startsWith("/v1/"));
        const trace = resources.map(
          (entry) =>
            `${new URL(entry.name).pathname.replace(/^\/console\/assets\//, "").slice(0, 40)} ${Math.round(entry.startTime)}→${Math.round(entry.responseEnd)}`,
        );
        return { language: language && Math.round(language.responseEnd), api: api && Math.round(api.startTime), trace };
      });
      // BENCH_CONSOLE_TRACE=1: what the page read and when, to tell where its time goes.
      if (process.env.BENCH_CONSOLE_TRACE) ctx.log(`${url}${language ? ` (${language})` : ""}: first rows at ${ms} ms; ${timing.trace.join(", ")}`);
      await context.close();
      return { ms, timing };
    };

    const samples = { baselineLines: [], currentLines: [], baselineRules: [], currentRules: [], germanLines: [], languageCame: [], apiStart: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so neither always meets a warmer machine.
      const order = round % 2 ? ["current", "baseline"] : ["baseline", "current"];
      for (const side of order) {
        const lines = await open(sides[side], { url: sides[side].linesUrl });
        samples[`${side}Lines`].push(lines.ms);
        if (side === "current") {
          samples.languageCame.push(lines.timing.language);
          samples.apiStart.push(lines.timing.api);
        }
        samples[`${side}Rules`].push((await open(sides[side], { url: sides[side].rulesUrl })).ms);
      }
      samples.germanLines.push((await open(sides.current, { url: sides.current.linesUrl, language: "de" })).ms);
    }

    const current = firstLoadOf(consoleWeight);
    const baseline = firstLoadOf(baselineWeight);
    const row = (figure, measured, before, goal) => ({
      figure,
      value: median(measured),
      baseline: median(before),
      ratio: ratio(median(measured), median(before)),
      goal,
      samples: `${measured.join(" ")} | before: ${before.join(" ")}`,
    });
    return {
      title: `The console's languages side by side with ${BASELINE_REF} (${commit.slice(0, 12)}), ${LINES} lines, ${RULES} rules, median of ${ROUNDS} fresh tabs each`,
      rows: [
        row("lines grid: navigation → first rows (ms)", samples.currentLines, samples.baselineLines, "≤ 1.1×"),
        row("rules grid: navigation → first rows (ms)", samples.currentRules, samples.baselineRules, "≤ 1.1×"),
        row("lines grid in German (remembered): navigation → first rows (ms)", samples.germanLines, samples.baselineLines, "≤ 1.1×"),
        {
          figure: "lines grid: the first API call's start after the language's chunk came (ms; < 0: it did not wait for it)",
          value: median(samples.apiStart.map((at, i) => at - samples.languageCame[i])),
          samples: samples.apiStart.map((at, i) => `API ${at} / language ${samples.languageCame[i]}`).join(", "),
        },
        {
          figure: "first load JS + CSS + HTML (+ the heaviest language), gzip (KiB)",
          value: kib(current.total),
          baseline: kib(baseline.total),
          ratio: ratio(current.total, baseline.total),
          goal: `≤ ${FIRST_LOAD_GOAL}×`,
          samples: `JS ${kib(current.js)}, CSS ${kib(current.css)}, HTML ${kib(current.html)}, language ${kib(current.language)} | before: JS ${kib(baseline.js)}, CSS ${kib(baseline.css)}, HTML ${kib(baseline.html)}`,
        },
      ],
    };
  } finally {
    await browser.close();
    await baselineServer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
