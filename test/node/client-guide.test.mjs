// docs/client.md's "A new project, step by step", followed as written in a new directory outside the
// repository, against a real `wrangler dev`: its ```console blocks run in one bash, in order (the
// checkout's path put in for its placeholder); its ```json and ```ts blocks are saved under the file
// name the line before each gives; an ```output block is what the commands before it must print.
// The installs come from the registry, so they get what a reader gets today: the newest typescript
// and @types/node, and npm's own `npm init` defaults. client/README.md's example then compiles and
// runs in that project too. Without the registry the test is skipped locally and fails under CI.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { serverKeys } from "../../scripts/lib/keys.mjs";
import { localServer } from "../../scripts/lib/shared-server.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";
import { fencedBlocks, runInOneShell, textMatches } from "./support/doc-examples.mjs";

const GUIDE = "docs/client.md";
const SECTION = "## A new project, step by step";
const CHECKOUT = "/path/to/campaign-policy-api";
const FILE_END = "__GUIDE_FILE_END__";

/**
 * The section's steps as shell scripts, in order, each with the output the guide shows for it (if
 * any): a ```console block as it is, a ```json or ```ts block as the file named by the `code span`
 * that ends the text before it ("Save this as `tsconfig.json`:"), written verbatim.
 */
function guideSteps(markdown, checkout) {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  assert.notEqual(start, -1, `${GUIDE} has no "${SECTION}" section`);
  const rest = markdown.slice(start + SECTION.length + 2);
  const section = rest.slice(0, rest.search(/^## /m) === -1 ? undefined : rest.search(/^## /m));
  const steps = [];
  for (const block of fencedBlocks(section)) {
    if (block.info === "console") {
      steps.push({ script: block.body.replaceAll(CHECKOUT, checkout) });
    } else if (block.info === "json" || block.info === "ts") {
      const file = block.after.trim().match(/`([\w.-]+)`:$/)?.[1];
      assert.ok(file, `${GUIDE}: the text before the ${block.info} block at line ${block.line} must end with the file name, as \`name\`:`);
      assert.ok(!block.body.includes(FILE_END));
      steps.push({ script: `cat > '${file}' <<'${FILE_END}'\n${block.body}\n${FILE_END}`, file });
    } else if (block.info === "output") {
      assert.ok(steps.length && block.after.trim() === "", `${GUIDE}: the output block at line ${block.line} must follow the commands that print it`);
      steps.at(-1).expected = block.body;
    }
  }
  return steps;
}

/** Runs a command to completion: { code, stdout, stderr }, never throwing on a non-zero exit. */
async function run(file, args, options = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { maxBuffer: 16 * 1024 * 1024, ...options });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (typeof error.code !== "number") throw error;
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

// A reader's shell, not an npm script's: `npm test` exports npm_config_* and npm_package_* variables
// (the repository's prefix among them) that would make the scratch project's npm act on the repository.
const readerEnvironment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
const newest = await run("npm", ["view", "typescript", "version"], { env: readerEnvironment, timeout: 60_000 }).catch((error) => ({
  code: 1,
  stderr: error.message,
}));
const offline = newest.code === 0 ? false : `the npm registry does not answer (${newest.stderr.trim().split("\n").at(-1)})`;
if (offline && process.env.CI) throw new Error(`${offline}: CI must reach it for this test`);

describe("docs/client.md's new project, step by step, with today's registry", { skip: offline }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "client-guide-"));
  let server;
  let key;

  before(
    async () => {
      server = await localServer("client-guide");
      [{ key }] = await serverKeys(server.operator).issue([{ tenant: "client-guide", role: "OPERATOR" }]);
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("works as written in a new directory: npm init, the installs, tsc, and the output shown; client/README.md's example compiles and runs there", {
    timeout: 300_000,
  }, async (t) => {
    const steps = guideSteps(readFileSync(join(repoRoot, GUIDE), "utf8"), repoRoot);
    assert.ok(steps.some((step) => step.file === "index.ts") && steps.some((step) => step.expected), `${GUIDE}'s steps save index.ts and show what it prints`);
    const readmeExample = fencedBlocks(readFileSync(join(repoRoot, "client", "README.md"), "utf8")).find((block) => block.info === "ts");
    assert.ok(readmeExample, "client/README.md shows a TypeScript example");
    const afterwards = ["npx tsc --version", `cat > readme.ts <<'${FILE_END}'\n${readmeExample.body}\n${FILE_END}`, "npx tsc && node readme.js"];

    const env = { ...readerEnvironment, API: server.baseUrl, OP_KEY: key };
    const { outputs, failed, stderr } = await runInOneShell([...steps.map((step) => step.script), ...afterwards], { cwd: scratch, env });
    if (failed !== null) {
      const script = failed < steps.length ? steps[failed].script : afterwards[failed - steps.length];
      assert.fail(
        `${failed < steps.length ? GUIDE : "client/README.md's example"}: this step exits non-zero\n${script}\n--- stdout\n${outputs[failed]}\n--- stderr\n${stderr.slice(-3000)}`,
      );
    }
    for (const [i, step] of steps.entries()) {
      if (step.expected)
        assert.ok(
          textMatches(step.expected, outputs[i]),
          `${GUIDE}: the output differs from the one shown\n--- shown\n${step.expected}\n--- printed\n${outputs[i]}`,
        );
    }
    const [tscVersion, , readmeOutput] = outputs.slice(steps.length);
    t.diagnostic(`tsc: ${tscVersion.trim()}`);
    assert.equal(tscVersion.trim(), `Version ${newest.stdout.trim()}`, "the steps installed the newest typescript");
    assert.match(readmeOutput, /^404 not_found$/m, "client/README.md's example prints the problem it catches");
  });
});
