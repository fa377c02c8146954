// npm run bench [-- <suite> ...]: starts a private `wrangler dev` of bench/worker (fresh local D1),
// runs the suites against it over loopback, prints their tables, writes bench/results/<suite>.json,
// ends with a summary line per suite and draws the charts of every result into docs/charts/.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { repoRoot } from "../scripts/lib/wrangler.mjs";
import { writeCharts } from "./charts.mjs";
import { outcomeOf } from "./goals.mjs";
import { createContext, createProgress, round } from "./lib.mjs";
import { startBenchServer, tail } from "./server.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
const suitesDir = join(benchDir, "suites");
const resultsDir = join(benchDir, "results");
/** A suite's time unless it says its own (`export const timeoutMs = () => ms`: the moves suite's grows with the tenants it moves). */
const SUITE_TIMEOUT_MS = 45 * 60_000;
const suiteTimeoutMs = (module) => Number(process.env.BENCH_SUITE_TIMEOUT_MS ?? module.timeoutMs?.() ?? SUITE_TIMEOUT_MS);

function availableSuites() {
  return readdirSync(suitesDir)
    .filter((file) => file.endsWith(".mjs"))
    .map((file) => basename(file, ".mjs"))
    .sort();
}

function formatCell(value) {
  if (typeof value === "number") return String(Number.isInteger(value) ? value : round(value));
  if (value === null || value === undefined) return "";
  return String(value);
}

function renderTable(rows) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => formatCell(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i].length)));
  const line = (values) => values.map((value, i) => (i === 0 ? value.padEnd(widths[i]) : value.padStart(widths[i]))).join("  ");
  return [line(columns), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n");
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000}s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function wranglerVersion() {
  try {
    return JSON.parse(readFileSync(join(repoRoot, "node_modules", "wrangler", "package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

async function main() {
  const requested = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
  const known = availableSuites();
  const unknown = requested.filter((name) => !known.includes(name));
  if (unknown.length) {
    console.error(`Unknown suite(s): ${unknown.join(", ")}. Available: ${known.join(", ")}`);
    process.exit(2);
  }
  const suites = requested.length ? requested : known;
  if (!suites.length) {
    console.error("No suites in bench/suites.");
    process.exit(2);
  }

  const stateDir = mkdtempSync(join(tmpdir(), "bench-wrangler-"));
  let server;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await server?.close();
    if (!process.env.BENCH_KEEP_STATE) rmSync(stateDir, { recursive: true, force: true });
    else console.error(`state and wrangler log kept in ${stateDir}`);
  };
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      cleanup().finally(() => process.exit(130));
    });
  }

  let failures = 0;
  /** One line per suite for the summary: name, seconds, goals met or the result's title. */
  const summary = [];
  const progress = createProgress();
  try {
    server = await startBenchServer({ stateDir });
    const ctx = createContext(server.baseUrl, progress);
    /** Stops the local server and starts it again on the same state: the next requests meet fresh Worker instances. */
    ctx.restartServer = server.restart;
    /** For suites that serve a second tree (an older commit) side by side: in their own state directory. */
    ctx.startServer = (options) => startBenchServer({ log: progress.log, ...options });
    ctx.createContext = (baseUrl) => createContext(baseUrl, progress);
    mkdirSync(resultsDir, { recursive: true });

    for (const name of suites) {
      console.log(`\n== ${name} ==`);
      const started = Date.now();
      const loadAtStart = loadavg().map((n) => Math.round(n * 100) / 100);
      progress.setPrefix(name);
      try {
        const module = await import(pathToFileURL(join(suitesDir, `${name}.mjs`)).href);
        const result = await withTimeout(module.default(ctx), suiteTimeoutMs(module), `suite ${name}`);
        progress.setPrefix("");
        const seconds = Math.round((Date.now() - started) / 100) / 10;
        // A suite answers one table (title, rows) or several (tables: [{ title, rows }]).
        const tables = result.tables ?? [{ title: result.title, rows: result.rows }];
        if (result.tables && result.title) console.log(`${result.title}\n`);
        tables.forEach((table, i) => {
          if (i > 0) console.log("");
          console.log(table.title);
          console.log(renderTable(table.rows));
        });
        for (const note of [].concat(result.notes ?? [])) console.log(`note: ${note}`);
        console.log(
          `(${seconds}s; load average ${loadAtStart.join(" ")} at start, ${loadavg()
            .map((n) => n.toFixed(2))
            .join(" ")} at end, ${cpus().length} cores)`,
        );
        const record = {
          suite: name,
          title: result.title ?? tables[0].title,
          ranAt: new Date().toISOString(),
          durationSeconds: seconds,
          machine: {
            cpus: cpus().length,
            cpuModel: cpus()[0]?.model ?? "unknown",
            memoryGb: Math.round(totalmem() / 2 ** 30),
            platform: `${process.platform}-${process.arch}`,
            node: process.version,
            wrangler: wranglerVersion(),
            // Other work on the machine skews every figure: the 1/5/15-minute load averages around the run.
            loadAverageAtStart: loadAtStart,
            loadAverageAtEnd: loadavg().map((n) => Math.round(n * 100) / 100),
          },
          server: "wrangler dev: local workerd with local D1 (SQLite) and Durable Objects, over loopback",
          rows: tables[0].rows,
          ...(result.tables && { tables }),
          notes: [].concat(result.notes ?? []),
        };
        writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
        summary.push({ name, seconds, outcome: outcomeOf(record) });
      } catch (error) {
        progress.setPrefix("");
        failures++;
        summary.push({ name, seconds: Math.round((Date.now() - started) / 100) / 10, outcome: `FAILED: ${String(error?.message ?? error).split("\n")[0]}` });
        console.error(`suite ${name} failed: ${error?.stack ?? error}`);
        if (server.exited()) console.error(`wrangler dev exited:\n${tail(server.logFile)}`);
      }
    }
  } finally {
    await cleanup();
  }
  if (summary.length) {
    const width = Math.max(...summary.map((line) => line.name.length));
    console.log("\n== summary ==");
    for (const line of summary) console.log(`${line.name.padEnd(width)}  ${`${line.seconds}s`.padStart(7)}  ${line.outcome}`);
  }
  try {
    const charts = await writeCharts({ resultsDir });
    console.log(`\n${charts.length} chart(s) from bench/results in docs/charts/ (npm run bench:charts redraws them).`);
  } catch (error) {
    process.exitCode = 1;
    console.error(`charts failed: ${error?.stack ?? error}`);
  }
  if (failures) {
    console.error(`${failures} suite(s) failed.`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error?.stack ?? error);
  process.exitCode = 1;
});
