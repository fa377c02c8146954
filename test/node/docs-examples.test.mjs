// Docs that cannot rot: every ```sh block of README.md and docs/*.md runs against a real local server,
// and its answer must be the one the doc shows. The convention (docs/README.md says it too):
//
// - A ```sh block is a paste: it runs in bash with `set -euo pipefail`, after the variables `npm start`
//   prints (API, OP_KEY, ACC_KEY, ACTIVE_OPERATION, DRAFT_OPERATION) are exported. A non-zero exit fails
//   the doc. Blocks of one file run in one shell, in order (a variable set in one is seen by the next),
//   in a scratch directory of that run's own.
// - Every file runs in ONE tenant, seeded once with the demo data, as one reader would paste them into
//   one terminal after `npm start`: the README's tour, every guide in name order, then every guide again
//   in reverse order and the tour last. So each guide works after the README and after any other guide,
//   and again after itself: it makes what it needs (its own Operation, codes and scopes unique to the run).
// - The answer a block must give goes in the fenced block right after it (nothing but blank lines
//   between): ```json is compared as JSON, where the doc may leave out fields of an object (the answer
//   may carry more), "…" matches any value, a string with … in it matches with … standing for any run
//   of characters ("FALL-27-…"), and an array ending in "…" may go on; ```output is compared as text,
//   line by line, where … matches any run of characters. Any other block (```text, ```console, ```ts) is
//   never run: use ```console for commands that cannot run here (install, deploy, bench).
// - A path of the running service that a doc names in its prose (`/docs`, `/v1/openapi.json`, a link)
//   must answer 200 there.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DEMO_ACCOUNT_USER, exampleVariables, httpCaller, seedDemo } from "../../scripts/lib/demo.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { listGuides } from "../../scripts/lib/guides.mjs";
import { issueKeys } from "../../scripts/lib/keys.mjs";
import { applyMigrations, repoRoot } from "../../scripts/lib/wrangler.mjs";

const ELLIPSIS = "…";

/** The fenced blocks of a Markdown file, each with what is between it and the previous one. */
export function fencedBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split("\n");
  let gap = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(`{3,})\s*([\w-]*)/);
    if (!open) {
      gap.push(lines[i]);
      continue;
    }
    const body = [];
    const line = i + 1;
    for (i++; i < lines.length && !lines[i].startsWith(open[1]); i++) body.push(lines[i]);
    blocks.push({ info: open[2], body: body.join("\n"), line, after: gap.join("\n") });
    gap = [];
  }
  return blocks;
}

/** The text of a Markdown file outside its fenced blocks. */
function proseOf(markdown) {
  const kept = [];
  let fence = null;
  for (const line of markdown.split("\n")) {
    if (fence) {
      if (line.startsWith(fence)) fence = null;
    } else {
      fence = line.match(/^`{3,}/)?.[0] ?? null;
      if (!fence) kept.push(line);
    }
  }
  return kept.join("\n");
}

/** The runnable examples of a file: each ```sh block with the answer shown right after it, if any. */
export function examples(markdown) {
  const blocks = fencedBlocks(markdown);
  return blocks.flatMap((block, i) => {
    if (block.info !== "sh") return [];
    const next = blocks[i + 1];
    const shown = next && next.after.trim() === "" && (next.info === "json" || next.info === "output") ? next : undefined;
    return [{ line: block.line, script: block.body, expected: shown && { kind: shown.info, text: shown.body, line: shown.line } }];
  });
}

/** Whether `actual` matches `expected` as the docs show answers; the path of the first difference, else null. */
export function jsonDifference(expected, actual, path = "$") {
  if (expected === ELLIPSIS) return null;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array`;
    const open = expected.at(-1) === ELLIPSIS;
    const shown = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < shown.length : actual.length !== shown.length) return `${path}: expected ${shown.length}${open ? " or more" : ""} items, got ${actual.length}`;
    for (let i = 0; i < shown.length; i++) {
      const difference = jsonDifference(shown[i], actual[i], `${path}[${i}]`);
      if (difference) return difference;
    }
    return null;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return `${path}: expected an object`;
    for (const [key, value] of Object.entries(expected)) {
      if (!(key in actual)) return `${path}.${key}: missing`;
      const difference = jsonDifference(value, actual[key], `${path}.${key}`);
      if (difference) return difference;
    }
    return null;
  }
  if (typeof expected === "string" && expected.includes(ELLIPSIS)) {
    return typeof actual === "string" && elidedPattern(expected).test(actual) ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  return Object.is(expected, actual) ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** A shown text as a whole-text pattern, where … stands for any run of characters. */
function elidedPattern(shown) {
  return new RegExp(`^${shown.split(ELLIPSIS).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
}

function textMatches(expected, actual) {
  const want = expected.trimEnd().split("\n");
  const got = actual.trimEnd().split("\n");
  return want.length === got.length && want.every((line, i) => elidedPattern(line.trimEnd()).test(got[i].trimEnd()));
}

/** Runs the scripts in one bash, in order: the stdout of each, until one fails ({ outputs, failed, stderr }). */
function runInOneShell(scripts, { cwd, env }) {
  const marker = `__docs_example_${randomBytes(8).toString("hex")}__`;
  const program = ["set -euo pipefail"];
  scripts.forEach((script, i) => program.push(`printf '\\n${marker}%s\\n' ${i}`, script));
  program.push(`printf '\\n${marker}end\\n'`);
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", program.join("\n")], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const parts = stdout.split(new RegExp(`\\n${marker}(\\d+|end)\\n`));
      const outputs = [];
      for (let i = 1; i < parts.length; i += 2) if (parts[i] !== "end") outputs[Number(parts[i])] = parts[i + 1] ?? "";
      resolve({ code, outputs, failed: code === 0 ? null : outputs.length - 1, stderr });
    });
  });
}

/** Whether a block's answer is the one its doc shows: an assertion message naming the doc's line, else null. */
function answerDifference(example, actual, document) {
  const where = `${document}:${example.expected.line}`;
  if (example.expected.kind === "output") {
    return textMatches(example.expected.text, actual) ? null : `${where}: the answer differs from the doc's\n--- doc\n${example.expected.text}\n--- answer\n${actual}`;
  }
  let expected;
  let parsed;
  try {
    expected = JSON.parse(example.expected.text);
  } catch (error) {
    return `${where}: the doc's answer is not JSON (${error.message})`;
  }
  try {
    parsed = JSON.parse(actual);
  } catch {
    return `${where}: the answer is not one JSON value\n${actual}`;
  }
  const difference = jsonDifference(expected, parsed);
  return difference && `${where}: the answer differs from the doc's at ${difference}\n--- doc\n${example.expected.text}\n--- answer\n${actual}`;
}

// Path-like mentions that are no path of this service: the version prefixes themselves, the /v2
// that versioning.md describes as what would come, and the host's own files.
const NOT_SERVED = [/^\/v\d+$/, /^\/v2\//, /^\/(proc|usr|etc|tmp)(\/|$)/];

/**
 * The paths of the running service a doc names outside its runnable examples: `/docs`-like code
 * spans of its prose, links to `/…`, and `http://127.0.0.1:8787/…` anywhere. Templates (`{id}`,
 * `<id>`, `:id`, `*`, `…`) are left out: they name many paths, not one.
 */
export function servedPathMentions(markdown) {
  const prose = proseOf(markdown);
  const mentioned = [
    ...[...prose.matchAll(/`([^`]+)`/g)].map((match) => match[1]).filter((span) => /^\/\S*$/.test(span)),
    ...[...prose.matchAll(/\]\((\/[^)\s]*)\)/g)].map((match) => match[1]),
    ...[...markdown.matchAll(/https?:\/\/(?:127\.0\.0\.1|localhost):8787(\/[^\s'"`)<>]*)/g)].map((match) => match[1]),
  ];
  return [...new Set(mentioned.map((path) => path.replace(/[.,;:]+$/, "")))].filter((path) => !/[{}<>*…]|\/:/.test(path) && !NOT_SERVED.some((pattern) => pattern.test(path)));
}

const state = mkdtempSync(join(tmpdir(), "docs-examples-"));
const documents = ["README.md", ...listGuides().map((guide) => guide.path)].map((path) => ({ path, markdown: readFileSync(join(repoRoot, path), "utf8") }));
const runnable = documents.map((document) => ({ ...document, examples: examples(document.markdown) })).filter((document) => document.examples.length);
// One reader, one terminal: the tour, every guide, then every guide again the other way round and the tour last.
const readingOrder = [...runnable, ...[...runnable].reverse()];
let server;
let env;

before(async () => {
  await applyMigrations({ persistTo: state });
  server = await startDevServer({ persistTo: state, vars: { WEBHOOKS_ALLOW_LOCAL: "on" } });
  const tenant = `docs-${randomBytes(3).toString("hex")}`;
  const [operator, account] = await issueKeys(
    [
      { tenant, role: "OPERATOR" },
      { tenant, role: "ACCOUNT", user: DEMO_ACCOUNT_USER },
    ],
    { persistTo: state },
  );
  const seeded = await seedDemo(httpCaller(server.baseUrl, "OPERATOR", operator.key), { log: () => {} });
  assert.deepEqual(seeded.skipped, [], "the demo data seeds whole");
  env = exampleVariables({ baseUrl: server.baseUrl, operatorKey: operator.key, accountKey: account.key, operations: seeded.operations });
});

after(async () => {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe("the docs' examples paste and answer what the docs show, one file after another in one tenant", () => {
  for (const [step, document] of readingOrder.entries()) {
    const pass = step < runnable.length ? "first pass" : "second pass, reversed";
    it(`${pass}: ${document.path} (${document.examples.length} example(s))`, async () => {
      const cwd = join(state, `scratch-${step}`);
      mkdirSync(cwd);
      const { outputs, failed, stderr } = await runInOneShell(
        document.examples.map((example) => example.script),
        { cwd, env },
      );
      if (failed !== null) {
        const example = document.examples[failed];
        assert.fail(`${document.path}:${example.line}: the example exits non-zero\n${example.script}\n--- stdout\n${outputs[failed] ?? ""}\n--- stderr\n${stderr.slice(-2000)}`);
      }
      for (const [i, example] of document.examples.entries()) {
        if (!example.expected) continue;
        const difference = answerDifference(example, outputs[i], document.path);
        assert.equal(difference, null, difference);
      }
    });
  }
});

describe("the served paths the docs name answer", () => {
  for (const document of documents) {
    const paths = servedPathMentions(document.markdown);
    if (!paths.length) continue;
    it(`${document.path}: ${paths.join(", ")}`, async () => {
      const failures = [];
      for (const path of paths) {
        const headers = path.startsWith("/v1/") ? { "svc-client": "OPERATOR", "svc-api-key": env.OP_KEY } : {};
        const response = await fetch(`${server.baseUrl}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
        await response.arrayBuffer();
        if (response.status !== 200) failures.push(`${path} answers ${response.status}`);
      }
      assert.deepEqual(failures, [], `${document.path} names paths the server does not serve`);
    });
  }
});

describe("every guide is found", () => {
  it("README.md links every docs/*.md", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const missing = listGuides().filter((guide) => !readme.includes(`](${guide.path})`));
    assert.deepEqual(missing.map((guide) => guide.path), [], "add a link to each of these guides in README.md's guide list");
  });
});
