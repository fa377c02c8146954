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
//   and again after itself: it makes what it needs (its own Operation, codes and scopes unique to the run),
//   and leaves the tenant's webhooks, keys and settings as it found them (what it subscribed, issued or
//   changed, it deletes, revokes or puts back), so it can run any number of times.
// - The answer a block must give goes in the fenced block right after it (nothing but blank lines
//   between): ```json is compared as JSON, where the doc may leave out fields of an object (the answer
//   may carry more), "…" matches any value, a string with … in it matches with … standing for any run
//   of characters ("FALL-27-…"), and an array ending in "…" may go on; ```output is compared as text,
//   line by line, where … matches any run of characters. Any other block (```text, ```console, ```ts) is
//   never run: use ```console for commands that cannot run here (install, deploy, bench).
// - A path of the running service that a doc names in its prose (`/docs`, `/v1/openapi.json`, a link)
//   must answer 200 there.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DEMO_KEYS, exampleVariables, httpCaller, seedDemo } from "../../scripts/lib/demo.mjs";
import { listGuides } from "../../scripts/lib/guides.mjs";
import { serverKeys } from "../../scripts/lib/keys.mjs";
import { localServer } from "../../scripts/lib/shared-server.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";
import { answerDifference, examples, runInOneShell, servedPathMentions } from "./support/doc-examples.mjs";

const scratch = mkdtempSync(join(tmpdir(), "docs-examples-"));
// DOCS_ONLY=docs/live.md runs one file's examples (while writing it); the suite runs them all.
const only = process.env.DOCS_ONLY?.split(",");
const documents = ["README.md", ...listGuides().map((guide) => guide.path)]
  .filter((path) => !only || only.includes(path))
  .map((path) => ({ path, markdown: readFileSync(join(repoRoot, path), "utf8") }));
const runnable = documents.map((document) => ({ ...document, examples: examples(document.markdown) })).filter((document) => document.examples.length);
// One reader, one terminal: the tour, every guide, then every guide again the other way round and the tour last.
const readingOrder = [...runnable, ...[...runnable].reverse()];
let server;
let env;

before(async () => {
  server = await localServer("docs-examples", { WEBHOOKS_ALLOW_LOCAL: "on" });
  const tenant = `docs-${randomBytes(3).toString("hex")}`;
  // As `npm start` issues them: through the server, which holds the databases.
  const [operator, account] = await serverKeys(server.operator).issue([
    { tenant, ...DEMO_KEYS.operator },
    { tenant, ...DEMO_KEYS.account },
  ]);
  const seeded = await seedDemo(httpCaller(server.baseUrl, "OPERATOR", operator.key), { log: () => {} });
  assert.deepEqual(seeded.skipped, [], "the demo data seeds whole");
  env = exampleVariables({ baseUrl: server.baseUrl, operatorKey: operator.key, accountKey: account.key, operations: seeded.operations });
  // A setting away from its default (approvals still off): a guide that puts back the default rather
  // than what it found is caught by the footprint check below.
  const approvals = await httpCaller(env.API, "OPERATOR", env.OP_KEY)("PUT", "/v1/settings/approvals", {
    activation: { required: 0, allowSelfApproval: true },
  });
  assert.equal(approvals.status, 200, JSON.stringify(approvals.body));
});

/** What a guide must leave as it found it: the tenant's webhooks, its keys still in force, its settings. */
async function tenantFootprint() {
  const api = httpCaller(env.API, "OPERATOR", env.OP_KEY);
  const read = async (path) => {
    const answer = await api("GET", path);
    assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const inForce = (key) => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > new Date().toISOString());
  return {
    webhooks: (await read("/v1/webhooks?limit=100")).items.map((webhook) => webhook.id).sort(),
    keys: (await read("/v1/keys?limit=500")).items
      .filter(inForce)
      .map((key) => key.id)
      .sort(),
    settings: {
      approvals: await read("/v1/settings/approvals"),
      display: await read("/v1/settings/display"),
      history: await read("/v1/settings/history"),
    },
  };
}

after(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the docs' examples paste and answer what the docs show, one file after another in one tenant", () => {
  for (const [step, document] of readingOrder.entries()) {
    const pass = step < runnable.length ? "first pass" : "second pass, reversed";
    it(`${pass}: ${document.path} (${document.examples.length} example(s))`, async () => {
      const cwd = join(scratch, `step-${step}`);
      mkdirSync(cwd);
      const found = await tenantFootprint();
      const { outputs, failed, stderr } = await runInOneShell(
        document.examples.map((example) => example.script),
        { cwd, env: { ...process.env, ...env } },
      );
      if (failed !== null) {
        const example = document.examples[failed];
        assert.fail(
          `${document.path}:${example.line}: the example exits non-zero\n${example.script}\n--- stdout\n${outputs[failed] ?? ""}\n--- stderr\n${stderr.slice(-2000)}`,
        );
      }
      for (const [i, example] of document.examples.entries()) {
        if (!example.expected) continue;
        const difference = answerDifference(example, outputs[i], document.path);
        assert.equal(difference, null, difference);
      }
      assert.deepEqual(await tenantFootprint(), found, `${document.path} leaves the tenant's webhooks, keys or settings otherwise than it found them`);
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
    assert.deepEqual(
      missing.map((guide) => guide.path),
      [],
      "add a link to each of these guides in README.md's guide list",
    );
  });
});
