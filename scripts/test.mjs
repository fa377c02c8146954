// npm test: the linter (npm run lint), the Worker suite (vitest inside workerd), then the checks that
// need a real local server, a browser or a packed tarball (node:test); all always run, and the run
// ends with one line: "N passed, N failed" (", N skipped" when some were; a lint finding is a failure).
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, statfsSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { buildConsole } from "./build-console.mjs";
import { dirname, join, relative } from "node:path";
import { writeGuideList } from "./lib/guides.mjs";
import { migratedTemplate } from "./lib/migrated-state.mjs";
import { startSharedServer } from "./lib/shared-server.mjs";
import { repoRoot } from "./lib/wrangler.mjs";

/** How many of the slowest test files the run names at its end. */
const SLOWEST_SHOWN = 10;

/** The files that took longest (vitest's from their start and end, node:test's from their top-level tests), and each suite's total. */
function printSlowestFiles(vitest, node) {
  const files = [...(vitest?.testResults ?? []).map((result) => [result.name, result.endTime - result.startTime]), ...Object.entries(node?.fileMs ?? {})].map(
    ([file, ms]) => [relative(repoRoot, file), ms],
  );
  if (!files.length) return;
  files.sort((a, b) => b[1] - a[1]);
  console.log(`\nSlowest test files (of ${files.length}):`);
  for (const [file, ms] of files.slice(0, SLOWEST_SHOWN)) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
}

/** Runs' scratch left by a run that was killed is removed by a later one after this long. */
const LEFT_SCRATCH_MS = 24 * 60 * 60 * 1000;

/**
 * Where the run keeps its temporary files, its checks' too (local D1 states, the Worker suite's
 * databases, browser profiles): a memory-backed file system where there is one with room (Linux's
 * /dev/shm), as SQLite's writes and syncs there cost no disk (docs/tests.md has the measure).
 */
function scratchRoot() {
  const memory = "/dev/shm";
  try {
    accessSync(memory, constants.W_OK);
    const { bavail, bsize } = statfsSync(memory);
    if (bavail * bsize >= 2 * 1024 ** 3) {
      for (const name of readdirSync(memory).filter((entry) => entry.startsWith("npm-test-"))) {
        const left = join(memory, name);
        if (Date.now() - statSync(left).mtimeMs > LEFT_SCRATCH_MS) rmSync(left, { recursive: true, force: true });
      }
      return memory;
    }
  } catch {
    // No such file system here, or not ours to write: the usual temp dir.
  }
  return tmpdir();
}

const scratch = mkdtempSync(join(scratchRoot(), "npm-test-"));
// Every child (the suites, their servers, wrangler, Chromium) makes its temporary files under the scratch.
process.env.TMPDIR = join(scratch, "tmp");
mkdirSync(process.env.TMPDIR);
/** The local server the node checks share (started with them): a server runs in a process group of its own. */
let sharedServer;
// A run stopped from the keyboard stops that server and takes its scratch with it (it may be in memory).
for (const signal of ["SIGINT", "SIGTERM"])
  process.once(signal, async () => {
    await sharedServer?.stop().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
    process.exit(130);
  });
const vitestReport = join(scratch, "vitest.json");
const nodeReport = join(scratch, "node.json");

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: "inherit" });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function readJson(path) {
  try {
    return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
  } catch {
    return undefined;
  }
}

const vitestArgs = process.argv.slice(2);

/** A command's exit code and what it printed (stdout and stderr, interleaved), kept to show later. */
function runQuietly(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

// Biome (a warning counts too) beside everything else: it takes a core for a second or two while the
// builds below take the other. Its findings are printed at the end, before the count they make fail.
// Only for the whole run: `npm test -- <files>` runs just those files.
const linting = vitestArgs.length ? Promise.resolve({ code: 0, output: "" }) : runQuietly("npm", ["run", "--silent", "lint"]);

// The contract as built now (client/openapi.json, its types, the client package), from the code as it
// stands: what the compatibility gate and the client's tests read is never a stale build.
const specCode = await run(process.execPath, [join(repoRoot, "scripts", "write-openapi.mjs"), "--types"]);
if (specCode !== 0) {
  console.log("0 passed, 1 failed (the contract could not be built: npm run spec)");
  process.exit(specCode);
}
if ((await run(process.execPath, [join(repoRoot, "client", "build.mjs")])) !== 0) {
  console.log("0 passed, 1 failed (the client package could not be built: npm run build:client)");
  process.exit(1);
}

// The node checks longest first, by the last run's times (kept beside the installed packages): a long
// file that starts last would end the run alone. Files not timed yet (all of them in a fresh clone) go
// first, largest first: the size of a check is the best guess of its length there is without a run.
const nodeDurationsFile = join(repoRoot, "node_modules", ".cache", "npm-test", "node-file-ms.json");
const lastNodeMs = readJson(nodeDurationsFile) ?? {};
const untimedFirst = (file) => lastNodeMs[file] ?? Number.POSITIVE_INFINITY;
const nodeTests = readdirSync(join(repoRoot, "test", "node"))
  .filter((name) => name.endsWith(".test.mjs"))
  .map((name) => join("test", "node", name))
  .sort((a, b) => untimedFirst(b) - untimedFirst(a) || statSync(join(repoRoot, b)).size - statSync(join(repoRoot, a)).size || a.localeCompare(b));
const nodeSpec = join(scratch, "node-spec.txt");
// The console and the guides' copies first: the browser checks serve them, and the suite's production
// bundle reads the assets. A running local server reloads when a file under public/ changes, so
// nothing there may be written once the servers are up (writeGuideList writes only what differs).
if (!vitestArgs.length) {
  await buildConsole({ ifChanged: true });
  writeGuideList();
}
// The Worker suite and the node checks run side by side: the checks spend much of their time waiting
// (a local server starting, a cron or an alarm due, a browser answering) while the suite keeps the
// cores busy. The checks' report is printed once the suite's is, so the two never interleave.
const vitestRun = run(join(repoRoot, "node_modules", ".bin", "vitest"), [
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestReport}`,
  ...vitestArgs,
]);
const nodeRun = vitestArgs.length ? Promise.resolve(0) : runNodeChecks();

async function runNodeChecks() {
  // Migrated once before the checks start (each server check would otherwise migrate a state of its own),
  // and one server for the checks that need only a server (each would otherwise start its own).
  try {
    await migratedTemplate();
    sharedServer = await startSharedServer();
  } catch (error) {
    console.error(`The node checks could not start: ${error.message}`);
    return 1;
  }
  try {
    return await runNodeTests();
  } finally {
    await sharedServer.stop();
  }
}

function runNodeTests() {
  return run(process.execPath, [
    "--test",
    // Two files at a time: most of their time is a local server starting, or a cron or an alarm awaited.
    `--test-concurrency=${Math.max(2, availableParallelism() - 1)}`,
    "--test-reporter=spec",
    `--test-reporter-destination=${nodeSpec}`,
    `--test-reporter=${join(repoRoot, "scripts", "lib", "node-test-counts.mjs")}`,
    `--test-reporter-destination=${nodeReport}`,
    ...nodeTests,
  ]);
}

const vitestCode = await vitestRun;
if (!vitestArgs.length) console.log("\nThe node checks (a local server, a browser, a packed tarball): running beside the suite, reported once done…\n");
const nodeCode = await nodeRun;
if (existsSync(nodeSpec)) process.stdout.write(readFileSync(nodeSpec));

const vitest = readJson(vitestReport);
const node = readJson(nodeReport) ?? { passed: 0, failed: 0, skipped: 0, fileMs: {} };
if (Object.keys(node.fileMs).length) {
  mkdirSync(dirname(nodeDurationsFile), { recursive: true });
  const byFile = Object.fromEntries(Object.entries(node.fileMs).map(([file, ms]) => [relative(repoRoot, file), Math.round(ms)]));
  writeFileSync(nodeDurationsFile, JSON.stringify({ ...lastNodeMs, ...byFile }, null, 1));
}
printSlowestFiles(vitest, node);
rmSync(scratch, { recursive: true, force: true });
const { code: lintCode, output: lintOutput } = await linting;
if (lintCode !== 0) process.stdout.write(`\nThe linter (npm run lint):\n${lintOutput}`);

// A suite that crashed before reporting counts as one failure, so the line never reads as all green.
const passed = (vitest?.numPassedTests ?? 0) + node.passed;
const failed =
  (vitest?.numFailedTests ?? (vitestCode === 0 ? 0 : 1)) +
  node.failed +
  (vitestCode !== 0 && vitest?.numFailedTests === 0 ? 1 : 0) +
  (nodeCode !== 0 && node.failed === 0 ? 1 : 0) +
  (lintCode === 0 ? 0 : 1);
const skipped = (vitest?.numPendingTests ?? 0) + (vitest?.numTodoTests ?? 0) + node.skipped;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}${lintCode === 0 ? "" : " (the linter found problems: npm run lint)"}`);
process.exit(lintCode || vitestCode || nodeCode);
