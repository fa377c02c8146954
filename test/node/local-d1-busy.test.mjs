// An operator command that writes the local databases while another process holds them (`npm start`
// serving, a move running in it) waits and tries again, saying so, instead of failing at random: here
// every local D1 file stays locked until the command has said it waits (longer than wrangler and SQLite
// wait on their own), and `npm run key` still issues its key once the lock is gone.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { copyMigratedState } from "../../scripts/lib/migrated-state.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const state = mkdtempSync(join(tmpdir(), "local-d1-busy-test-"));
// Node 22 (the repository's devDependency) has node:sqlite: it holds the lock as another process would.
const node22 = join(repoRoot, "node_modules", ".bin", "node");

after(() => rmSync(state, { recursive: true, force: true }));

/** Holds a write lock on every local D1 database until `release()`; resolves once they are all locked. */
function lockDatabases(directory) {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite")
    .map((name) => join(directory, name));
  const holder = spawn(
    node22,
    [
      "--no-warnings",
      "--input-type=module",
      "-e",
      `import { DatabaseSync } from "node:sqlite";
       const dbs = ${JSON.stringify(files)}.map((file) => new DatabaseSync(file));
       for (const db of dbs) db.exec("BEGIN EXCLUSIVE");
       console.log("locked");
       process.stdin.once("data", () => { for (const db of dbs) db.exec("COMMIT"); process.exit(0); });`,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const closed = new Promise((resolve) => holder.on("close", resolve));
  const release = () => {
    if (holder.exitCode === null) holder.stdin.end("release\n");
    return closed;
  };
  return new Promise((resolve) => holder.stdout.once("data", () => resolve(release)));
}

describe("a local D1 database another process holds", { skip: !existsSync(node22) && "no Node 22 in node_modules" }, () => {
  it("npm run key waits for it, says so, and issues the key once it is free", { timeout: 180_000 }, async () => {
    await copyMigratedState(state);
    const release = await lockDatabases(join(state, "v3", "d1", "miniflare-D1DatabaseObject"));
    const command = execFile(process.execPath, [join(repoRoot, "scripts", "key.mjs"), "--tenant", "t_busy", "--role", "OPERATOR", "--persist-to", state], {
      cwd: repoRoot,
    });
    let stderr = "";
    let stdout = "";
    command.stdout.on("data", (chunk) => (stdout += chunk));
    // The lock goes once the command says it is waiting for it (or after two minutes, and the test fails).
    const waited = new Promise((resolve) => {
      const timer = setTimeout(resolve, 120_000);
      command.stderr.on("data", (chunk) => {
        stderr += chunk;
        if (stderr.includes("waiting and trying again")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await waited;
    await release();
    const code = await new Promise((resolve) => command.on("close", resolve));
    assert.equal(code, 0, stderr);
    assert.match(stderr, /The local database CONTROL is busy \(another process is writing it, e\.g\. `npm start`\): waiting and trying again…/);
    assert.match(stdout.trim().split("\n").at(-1), /^sk3_/);
    assert.match(stderr, /Created tenant t_busy/);
  });
});
