// A private `wrangler dev` of a tree's bench Worker (bench/worker: the API plus the baselines) on a
// fresh local D1: the bench's server, and a second one when a suite compares with an older commit.
import { randomBytes } from "node:crypto";
import { openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../scripts/lib/dev-server.mjs";
import { applyMigrations, repoRoot, runWrangler, spawnWrangler } from "../scripts/lib/wrangler.mjs";

const READY_TIMEOUT_MS = 120_000;
// The bench's copy of wrangler.toml, next to it so its relative paths hold (git-ignored, removed after);
// one per server, so a suite's second server of the same tree (first-evaluate's seeder) leaves the first's alone.
const benchConfigName = (port) => `.bench.wrangler.${port}.toml`;
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last lines of a log file, for error messages. */
export function tail(file, lines = 40) {
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

/**
 * Migrates a fresh local D1 in `stateDir`, builds a snapshot of `root`'s bench Worker (other edits to
 * src/ during the run must not reload it mid-measure) and serves it. `root` defaults to this checkout;
 * another tree (an older commit) is served by this checkout's wrangler, so only the code differs.
 */
export async function startBenchServer({ root = repoRoot, stateDir, log = (line) => console.error(line) }) {
  const persistTo = join(stateDir, "state");
  const logFile = join(stateDir, "wrangler.log");
  const bundleDir = join(stateDir, "dist");
  const config = join(root, "wrangler.toml");
  log(`Applying migrations to a fresh local D1 in ${persistTo} …`);
  await applyMigrations({ persistTo }, { configPath: config, cwd: root });
  log("Building the Worker …");
  await runWrangler(["deploy", join(root, "bench", "worker", "index.ts"), "--config", config, "--dry-run", "--outdir", bundleDir], { cwd: root });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const benchConfig = join(root, benchConfigName(port));
  writeFileSync(benchConfig, withLiftedRateLimits(readFileSync(config, "utf8")));
  const paginationSecret = randomBytes(32).toString("base64url");
  const keySigningSecret = randomBytes(32).toString("base64url");
  const output = openSync(logFile, "a");
  let child;

  const start = async () => {
    child = spawnWrangler(
      [
        "dev",
        join(bundleDir, "index.js"),
        "--config",
        benchConfig,
        "--no-bundle",
        "--port",
        String(port),
        "--ip",
        "127.0.0.1",
        "--persist-to",
        persistTo,
        // Production D1 rejects oversized statements; local D1 does not, so the Worker checks them itself.
        "--var",
        "D1_LIMITS_GUARD:on",
        "--var",
        `PAGINATION_SECRET:${paginationSecret}`,
        "--var",
        `KEY_SIGNING_SECRET:${keySigningSecret}`,
        // The webhooks suite's receiver listens on 127.0.0.1.
        "--var",
        "WEBHOOKS_ALLOW_LOCAL:on",
        "--show-interactive-dev-session=false",
        "--log-level",
        "warn",
      ],
      { cwd: root, stdio: ["ignore", output, output], detached: true },
    );
    await waitUntilReady(baseUrl, child, logFile);
  };
  /** Stops wrangler dev (and its workerd: the whole process group we created). */
  const stop = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    for (const signal of ["SIGTERM", "SIGKILL"]) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        return; // already gone
      }
      for (let i = 0; i < 50 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
      if (child.exitCode !== null || child.signalCode !== null) return;
    }
  };

  log(`Starting wrangler dev on ${baseUrl} (log: ${logFile}) …`);
  try {
    await start();
  } catch (error) {
    await stop();
    rmSync(benchConfig, { force: true });
    throw error;
  }
  return {
    baseUrl,
    logFile,
    /** Whether wrangler dev has exited. */
    exited: () => child.exitCode !== null,
    /** Stops the local server and starts it again on the same state: the next requests meet fresh Worker instances. */
    restart: async () => {
      await stop();
      await start();
    },
    /** Stops the server and removes the config copy (the state directory is the caller's). */
    close: async () => {
      await stop();
      rmSync(benchConfig, { force: true });
    },
  };
}
