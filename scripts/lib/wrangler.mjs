// Runs the repo's own wrangler (never a global one, never a download) with Node 22, offline-friendly.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyLocalMigrations, localDatabases, migrationProgress } from "./local-migrations.mjs";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const wranglerEntry = join(repoRoot, "node_modules", "wrangler", "bin", "wrangler.js");
// Wrangler needs Node ≥ 22; the `node` devDependency provides it even when the shell's node is older.
const localNode = join(repoRoot, "node_modules", ".bin", "node");
const nodeBinary = existsSync(localNode) ? localNode : process.execPath;

/** Environment for every wrangler child: no telemetry, no Cloudflare account needed for local work. */
export function wranglerEnv(extra = {}) {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    // Local runs use miniflare's placeholder `Request.cf` instead of downloading one.
    CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
    PATH: `${join(repoRoot, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    ...extra,
  };
}

/** Starts wrangler with the given arguments; the caller owns the child process. */
export function spawnWrangler(args, options = {}) {
  if (!existsSync(wranglerEntry)) {
    throw new Error("wrangler is not installed: run `npm install` first.");
  }
  return spawn(nodeBinary, [wranglerEntry, ...args], { cwd: repoRoot, ...options, env: wranglerEnv(options.env) });
}

/** Runs wrangler to completion and returns its output; rejects with that output when it fails. `onOutput` hears every chunk. */
export function runWrangler(args, { echo = false, cwd = repoRoot, onOutput = () => {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawnWrangler(args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      onOutput(String(chunk));
      if (echo) process.stderr.write(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      onOutput(String(chunk));
      if (echo) process.stderr.write(chunk);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed (exit ${code}):\n${stderr || stdout}`.trim()));
    });
  });
}

/** `--local` (optionally with a persist dir) or `--remote`: where a D1 command runs. */
export function d1Target({ remote = false, persistTo } = {}) {
  if (remote) return ["--remote"];
  return persistTo ? ["--local", "--persist-to", persistTo] : ["--local"];
}

/** The control database's binding; every binding named SHARD_… is a tenant shard (as the Worker sees them). */
export const CONTROL = "CONTROL";
export const isShard = (binding) => /^SHARD_[A-Z0-9_]+$/.test(binding);

/** The D1 bindings of wrangler.toml (`configPath`: another config, e.g. the bench's copy). */
export async function d1Bindings(configPath = join(repoRoot, "wrangler.toml")) {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig({ config: configPath }).d1_databases.map((database) => database.binding);
}

/** The tenant shards of wrangler.toml, in name order. */
export async function shardBindings(configPath) {
  return (await d1Bindings(configPath)).filter(isShard).sort();
}

/**
 * Applies each database's migrations: the control schema to CONTROL, the tenant schema to every shard
 * (`cwd`: another tree's). `progress(line, { final })` hears which database and which migration of
 * how many is being applied. Locally in one runtime for all (scripts/lib/local-migrations.mjs); remote
 * databases through wrangler, which applies each migration in a process of its own.
 */
export async function applyMigrations(target = {}, { echo = false, configPath, cwd, progress } = {}) {
  if (!target.remote) {
    const config = configPath ?? join(repoRoot, "wrangler.toml");
    const tell = progress ?? (echo ? (line) => console.error(line) : undefined);
    return applyLocalMigrations({
      databases: await localDatabases(config),
      persistTo: target.persistTo,
      configDir: dirname(config),
      cwd: cwd ?? repoRoot,
      progress: tell,
      retryBusy: (run, database) => retryWhileBusy(run, target, database),
    });
  }
  const config = configPath ? ["--config", configPath] : [];
  const bindings = await d1Bindings(configPath);
  for (const [index, binding] of bindings.entries()) {
    const onOutput = progress ? migrationReporter(`${binding} (database ${index + 1} of ${bindings.length})`, progress) : undefined;
    await runLocalD1(["d1", "migrations", "apply", binding, ...d1Target(target), ...config], target, binding, { echo, cwd, onOutput });
  }
}

/**
 * Follows `wrangler d1 migrations apply`'s output: the migrations it lists before applying them, and
 * one "commands executed successfully" per migration applied; tells `progress` where it stands.
 */
export function migrationReporter(database, progress) {
  const names = [];
  let total = null;
  let applied = 0;
  let pending = "";
  const startedAt = Date.now();
  const onLine = (line) => {
    const listed = line.match(/│\s*(\S+\.sql)\s*│/);
    if (listed && total === null) names.push(listed[1]);
    const about = line.match(/About to apply (\d+) migration/);
    if (about) {
      total = Number(about[1]);
      progress(migrationProgress.toApply(database, total), { final: false });
    }
    if (/commands? executed successfully/.test(line) && total !== null) {
      applied += 1;
      const final = applied === total;
      progress(migrationProgress.applied(database, applied, total, names[applied - 1] ?? "…", (Date.now() - startedAt) / 1000), { final });
    }
    if (/No migrations to apply/.test(line)) progress(migrationProgress.upToDate(database), { final: true });
  };
  return (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines) onLine(line);
  };
}

/**
 * A local database another process is writing (`npm start` serving) answers SQLITE_BUSY for a
 * moment: the command waits and runs again (a D1 command's statements, and each migration, are
 * refused whole when the lock is not had), this many times over about 12 s, then says what to do.
 */
export const BUSY_ATTEMPTS = 6;
const BUSY = /SQLITE_BUSY|database is locked/;

/**
 * Runs a wrangler D1 command on `database`, waiting out a local database another process holds
 * (saying so once, on stderr) rather than failing at random. `busyWaitMs(attempt)` is the wait after a
 * refused attempt. Remote databases have no such lock: their errors are thrown as they are.
 */
export function runLocalD1(args, target, database, options = {}, busyWaitMs = undefined) {
  return retryWhileBusy(() => runWrangler(args, options), target, database, busyWaitMs);
}

/** Runs `run` (a D1 command, a migration's batch) again while `database`, local, answers that it is busy: see runLocalD1. */
export async function retryWhileBusy(run, target, database, busyWaitMs = (attempt) => 400 * 2 ** (attempt - 1)) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (target.remote || !BUSY.test(String(error))) throw error;
      if (attempt >= BUSY_ATTEMPTS) {
        throw new Error(
          `The local database ${database} stayed busy through ${BUSY_ATTEMPTS} attempts: another process (\`npm start\` serving, a test server) kept writing it. Nothing was changed by this command; run it again, or stop the other process first.\n${error.message}`,
        );
      }
      if (attempt === 1) console.error(`The local database ${database} is busy (another process is writing it, e.g. \`npm start\`): waiting and trying again…`);
      await new Promise((resolve) => setTimeout(resolve, busyWaitMs(attempt)));
    }
  }
}

/** Runs SQL on one D1 database (the control database unless named) and returns the rows of each statement. */
export async function executeSql(sqlText, target = {}, database = CONTROL) {
  const args = ["d1", "execute", database, ...d1Target(target), "--json", "--command", sqlText];
  const { stdout } = await runLocalD1(args, target, database);
  const start = stdout.indexOf("[");
  if (start < 0) throw new Error(`wrangler d1 execute printed no JSON:\n${stdout}`);
  const parsed = JSON.parse(stdout.slice(start));
  return parsed.map((statement) => statement.results ?? []);
}

/** A SQL string literal: quotes doubled, so any value is safe inside the statement. */
export function sqlString(value) {
  if (value === null || value === undefined) return "null";
  const text = String(value);
  if (text.includes("\u0000")) throw new Error("SQL values may not contain NUL characters.");
  return `'${text.replace(/'/g, "''")}'`;
}
