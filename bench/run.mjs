// npm run bench [-- <suite> ...]: starts a private `wrangler dev` of bench/worker (fresh local D1),
// runs the suites against it over loopback, prints their tables, writes bench/results/<suite>.json,
// ends with a summary line per suite and draws the charts of every result into docs/charts/.
import { mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { freePort } from "../scripts/lib/dev-server.mjs";
import { applyMigrations, repoRoot, runWrangler, spawnWrangler } from "../scripts/lib/wrangler.mjs";
import { writeCharts } from "./charts.mjs";
import { outcomeOf } from "./goals.mjs";
import { createContext, createProgress, round } from "./lib.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
const suitesDir = join(benchDir, "suites");
// The bench serves its own entry: the API plus the baselines (bench/worker), never the production bundle.
const BENCH_ENTRY = join(benchDir, "worker", "index.ts");
const resultsDir = join(benchDir, "results");
const READY_TIMEOUT_MS = 120_000;
const SUITE_TIMEOUT_MS = Number(process.env.BENCH_SUITE_TIMEOUT_MS ?? 45 * 60_000);

// The bench's copy of wrangler.toml, next to it so its relative paths hold (git-ignored, removed after).
const BENCH_CONFIG_NAME = ".bench.wrangler.toml";
const LIFTED_RATE_LIMIT = 1_000_000_000;

/**
 * wrangler.toml with every per-key [[ratelimits]] budget lifted: the bench drives thousands of
 * requests a minute through one key, which is what budgets exist to stop. The limiter still runs on
 * every request. The budget of failed authentications per address stays as configured: the
 * auth-abuse suite measures it at work (no other suite fails to authenticate).
 */
const KEPT_RATE_LIMITS = new Set(["RATE_LIMIT_AUTH_FAILURES"]);

function withLiftedRateLimits(config) {
  let seen = 0;
  const lifted = config.replace(/(name = "([A-Z0-9_]+)"\nnamespace_id = "\d+"\n)simple = \{ limit = \d+, period = (\d+) \}/g, (block, head, name, period) => {
    seen++;
    return KEPT_RATE_LIMITS.has(name) ? block : `${head}simple = { limit = ${LIFTED_RATE_LIMIT}, period = ${period} }`;
  });
  const budgets = (config.match(/simple = \{ limit = /g) ?? []).length;
  if (budgets !== seen || lifted.includes("[ratelimits.simple]")) {
    throw new Error("wrangler.toml's [[ratelimits]] are not in the `name`, `namespace_id`, `simple = { limit = N, period = P }` form the bench lifts.");
  }
  return lifted;
}

function availableSuites() {
  return readdirSync(suitesDir)
    .filter((file) => file.endsWith(".mjs"))
    .map((file) => basename(file, ".mjs"))
    .sort();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function tail(file, lines = 40) {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

async function waitUntilReady(baseUrl, child, logFile) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode} before it was ready:\n${tail(logFile)}`);
    try {
      const response = await fetch(`${baseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(300);
  }
  throw new Error(`wrangler dev was not ready after ${READY_TIMEOUT_MS / 1000}s:\n${tail(logFile)}`);
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
  const persistTo = join(stateDir, "state");
  const logFile = join(stateDir, "wrangler.log");
  const bundleDir = join(stateDir, "dist");
  const benchConfig = join(repoRoot, BENCH_CONFIG_NAME);
  let child;
  /** Stops wrangler dev (and its workerd: the whole process group we created). */
  const stopServer = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      // wrangler runs workerd as a child: signal the whole process group we created.
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      for (let i = 0; i < 50 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  };
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    await stopServer();
    rmSync(benchConfig, { force: true });
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
    console.error(`Applying migrations to a fresh local D1 in ${persistTo} …`);
    await applyMigrations({ persistTo });
    // Serve a snapshot of the Worker: other edits to src/ during the run must not reload it mid-measure.
    console.error("Building the Worker …");
    await runWrangler(["deploy", BENCH_ENTRY, "--dry-run", "--outdir", bundleDir]);
    writeFileSync(benchConfig, withLiftedRateLimits(readFileSync(join(repoRoot, "wrangler.toml"), "utf8")));
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const log = openSync(logFile, "a");
    const startServer = async () => {
      child = spawnWrangler(
        [
          "dev",
          join(bundleDir, "index.js"),
          "--config", benchConfig,
          "--no-bundle",
          "--port", String(port),
          "--ip", "127.0.0.1",
          "--persist-to", persistTo,
          // Production D1 rejects oversized statements; local D1 does not, so the Worker checks them itself.
          "--var", "D1_LIMITS_GUARD:on",
          "--var", `PAGINATION_SECRET:${paginationSecret}`,
          "--var", `KEY_SIGNING_SECRET:${keySigningSecret}`,
          // The webhooks suite's receiver listens on 127.0.0.1.
          "--var", "WEBHOOKS_ALLOW_LOCAL:on",
          "--show-interactive-dev-session=false",
          "--log-level", "warn",
        ],
        { stdio: ["ignore", log, log], detached: true },
      );
      await waitUntilReady(baseUrl, child, logFile);
    };
    const paginationSecret = randomBytes(32).toString("base64url");
    const keySigningSecret = randomBytes(32).toString("base64url");
    console.error(`Starting wrangler dev on ${baseUrl} (log: ${logFile}) …`);
    await startServer();
    const ctx = createContext(baseUrl, progress);
    /** Stops the local server and starts it again on the same state: the next requests meet fresh Worker instances. */
    ctx.restartServer = async () => {
      await stopServer();
      await startServer();
    };
    mkdirSync(resultsDir, { recursive: true });

    for (const name of suites) {
      console.log(`\n== ${name} ==`);
      const started = Date.now();
      const loadAtStart = loadavg().map((n) => Math.round(n * 100) / 100);
      progress.setPrefix(name);
      try {
        const { default: suite } = await import(pathToFileURL(join(suitesDir, `${name}.mjs`)).href);
        const result = await withTimeout(suite(ctx), SUITE_TIMEOUT_MS, `suite ${name}`);
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
        console.log(`(${seconds}s; load average ${loadAtStart.join(" ")} at start, ${loadavg().map((n) => n.toFixed(2)).join(" ")} at end, ${cpus().length} cores)`);
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
        if (child.exitCode !== null) console.error(`wrangler dev exited:\n${tail(logFile)}`);
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
