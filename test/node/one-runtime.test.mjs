// `npm test`, `npm start` and `wrangler deploy` must run one wrangler and one workerd: the Worker tests
// are worth only as much as the runtime they run on is the one that ships. Every wrangler in the tree
// must also stay outside 4.114.0–4.129.0, where a client that drops mid-body kills `wrangler dev`.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

/** The folder of the package `name` that code in `fromDir` loads (Node's lookup: each node_modules up the tree). */
function packageDir(fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed where ${fromDir} can load it`);
  }
}
const versionOf = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;

describe("one runtime for tests, the local server and deploys", () => {
  const rootWrangler = packageDir(repoRoot, "wrangler");
  const testPlugin = packageDir(repoRoot, "@cloudflare/vitest-plugin");

  it("the test plugin runs the wrangler that npm start and deploy run", () => {
    assert.equal(packageDir(testPlugin, "wrangler"), rootWrangler);
  });

  it("the test plugin's miniflare runs the workerd that wrangler dev runs", () => {
    const testWorkerd = packageDir(packageDir(testPlugin, "miniflare"), "workerd");
    const devWorkerd = packageDir(packageDir(rootWrangler, "miniflare"), "workerd");
    assert.equal(testWorkerd, devWorkerd);
    assert.equal(versionOf(testWorkerd), versionOf(packageDir(rootWrangler, "workerd")));
  });

  it("the deprecated test pool is gone", () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    assert.equal(manifest.devDependencies["@cloudflare/vitest-pool-workers"], undefined);
  });

  it("no wrangler in the lockfile is one that dies on a dropped upload", () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8"));
    const wranglers = Object.entries(lock.packages).filter(([path]) => path.endsWith("node_modules/wrangler"));
    assert.ok(wranglers.length > 0);
    for (const [path, { version }] of wranglers) {
      const [major, minor, patch] = version.split(".").map(Number);
      const dying = major === 4 && minor >= 114 && (minor < 129 || (minor === 129 && patch < 1));
      assert.equal(dying, false, `${path} is wrangler ${version}`);
    }
  });
});
