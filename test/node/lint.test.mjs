// `npm run lint` (Biome, run by `npm test`, so by .ci/run) fails on any finding, a warning too,
// under the repo's biome.jsonc: run here on a scratch project holding that config and one file.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const TIMEOUT = { timeout: 60_000 };

/** `npm run lint` in `dir`: { code, output }, never throwing on a non-zero exit. */
async function lint(dir) {
  try {
    const { stdout, stderr } = await promisify(execFile)("npm", ["run", "--silent", "lint"], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    if (typeof error.code !== "number") throw error;
    return { code: error.code, output: error.stdout + error.stderr };
  }
}

describe("npm run lint", () => {
  let scratch;
  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "lint-"));
    for (const file of ["package.json", "biome.jsonc"]) copyFileSync(join(repoRoot, file), join(scratch, file));
    symlinkSync(join(repoRoot, "node_modules"), join(scratch, "node_modules"), "dir");
    // biome.jsonc reads .gitignore through git, as in the repo.
    writeFileSync(join(scratch, ".gitignore"), "node_modules\n");
    await promisify(execFile)("git", ["init", "--quiet"], { cwd: scratch });
    mkdirSync(join(scratch, "src"));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("passes on clean code", TIMEOUT, async () => {
    writeFileSync(
      join(scratch, "src", "probe.ts"),
      "export function total(values: number[]): number {\n  return values.reduce((sum, value) => sum + value, 0);\n}\n",
    );
    const { code, output } = await lint(scratch);
    assert.equal(code, 0, output);
  });

  it("fails on a warning (an unused variable), naming the file and the rule", TIMEOUT, async () => {
    writeFileSync(join(scratch, "src", "probe.ts"), "export function total(values: number[]): number {\n  const unused = 1;\n  return values.length;\n}\n");
    const { code, output } = await lint(scratch);
    assert.notEqual(code, 0, output);
    assert.match(output, /src\/probe\.ts:2:9 lint\/correctness\/noUnusedVariables/);
  });

  it("fails on an error (an assignment inside an expression)", TIMEOUT, async () => {
    writeFileSync(
      join(scratch, "src", "probe.ts"),
      "export function first(values: number[]): number {\n  let found = 0;\n  if ((found = values[0]) > 0) return found;\n  return 0;\n}\n",
    );
    const { code, output } = await lint(scratch);
    assert.notEqual(code, 0, output);
    assert.match(output, /lint\/suspicious\/noAssignInExpressions/);
  });
});
