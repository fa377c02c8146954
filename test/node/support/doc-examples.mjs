// Reading the docs' examples: the fenced blocks of a Markdown file, the ```sh examples with the answer
// each shows, how a shown answer matches a real one ("…" elides), running a file's examples in one
// shell, and the paths of the running service a doc names. docs/README.md states the conventions;
// test/node/docs-examples.test.mjs and test/node/client-guide.test.mjs use them.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

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
    if (open ? actual.length < shown.length : actual.length !== shown.length)
      return `${path}: expected ${shown.length}${open ? " or more" : ""} items, got ${actual.length}`;
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
    return typeof actual === "string" && elidedPattern(expected).test(actual)
      ? null
      : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  return Object.is(expected, actual) ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** A shown text as a whole-text pattern, where … stands for any run of characters. */
function elidedPattern(shown) {
  return new RegExp(
    `^${shown
      .split(ELLIPSIS)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
}

/** Whether a text matches the one a doc shows, line by line, where … stands for any run of characters. */
export function textMatches(expected, actual) {
  const want = expected.trimEnd().split("\n");
  const got = actual.trimEnd().split("\n");
  return want.length === got.length && want.every((line, i) => elidedPattern(line.trimEnd()).test(got[i].trimEnd()));
}

/**
 * Runs the scripts in one bash, in order, with `env` as its whole environment: the stdout of each,
 * until one fails ({ outputs, failed, stderr }).
 */
export function runInOneShell(scripts, { cwd, env }) {
  const marker = `__docs_example_${randomBytes(8).toString("hex")}__`;
  const program = ["set -euo pipefail"];
  for (const [i, script] of scripts.entries()) program.push(`printf '\\n${marker}%s\\n' ${i}`, script);
  program.push(`printf '\\n${marker}end\\n'`);
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", program.join("\n")], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
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
export function answerDifference(example, actual, document) {
  const where = `${document}:${example.expected.line}`;
  if (example.expected.kind === "output") {
    return textMatches(example.expected.text, actual)
      ? null
      : `${where}: the answer differs from the doc's\n--- doc\n${example.expected.text}\n--- answer\n${actual}`;
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
// that versioning.md describes as what would come, the host's own files (and a checkout's /path/to/…), and the
// bench Worker's own routes (bench/worker: never part of the deployed Worker).
const NOT_SERVED = [/^\/v\d+$/, /^\/v2\//, /^\/(proc|usr|etc|tmp|path)(\/|$)/, /^\/(v1\/)?__bench\//];

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
  return [...new Set(mentioned.map((path) => path.replace(/[.,;:]+$/, "")))].filter(
    (path) => !/[{}<>*…]|\/:/.test(path) && !NOT_SERVED.some((pattern) => pattern.test(path)),
  );
}
