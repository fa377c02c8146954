// What only the real local server shows (run by `npm test` after the Worker suite, with node:test):
// it survives clients that hang up mid-body, and `npm run key` issues, lists and revokes keys in
// the database it serves.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { answers, startDevServer } from "../../scripts/lib/dev-server.mjs";
import { DROPPED_UPLOADS, dropMidBody } from "../../scripts/lib/drop-client.mjs";
import { applyMigrations, executeSql, repoRoot } from "../../scripts/lib/wrangler.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const state = mkdtempSync(join(tmpdir(), "dev-server-test-"));
let server;

/** `npm run key -- …args` against this test's database: { code, stdout, stderr }. */
async function keyCommand(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(repoRoot, "scripts", "key.mjs"), ...args, "--persist-to", state], { cwd: repoRoot });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

async function api(key, role, path, init = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, { ...init, headers: { "svc-client": role, "svc-api-key": key, ...init.headers } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

before(async () => {
  await applyMigrations({ persistTo: state });
  server = await startDevServer({ persistTo: state });
});

after(async () => {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe("the local server and a client that drops mid-body", () => {
  for (const upload of DROPPED_UPLOADS) {
    it(`answers the next request after a ${upload.name}`, async () => {
      await dropMidBody(server.port, upload);
      await sleep(1000);
      assert.equal(server.running(), true, `wrangler dev exited:\n${server.output().slice(-2000)}`);
      assert.equal(await answers(server.baseUrl), true);
    });
  }
});

describe("npm run key against the served database", () => {
  it("issues a key the server accepts, lists it without the secret, revokes it: 401 within 10 s", async () => {
    const issued = await keyCommand("--tenant", "node-cli", "--role", "OPERATOR");
    assert.equal(issued.code, 0, issued.stderr);
    const key = issued.stdout.trim().split("\n").at(-1);
    assert.match(key, /^sk_/);
    assert.equal((await api(key, "OPERATOR", "/v1/keys")).status, 200);

    const listed = await keyCommand("--list", "--tenant", "node-cli", "--json");
    assert.equal(listed.code, 0, listed.stderr);
    const [entry] = JSON.parse(listed.stdout);
    assert.equal(entry.prefix, key.slice(0, 8));
    assert.equal(entry.revokedAt, null);
    assert.ok(!listed.stdout.includes(key), "the list never shows a key");
    const served = (await api(key, "OPERATOR", "/v1/keys")).body.items;
    assert.deepEqual(served, [entry], "the command and the API show the same key");

    const revoked = await keyCommand("--revoke", entry.id);
    assert.equal(revoked.code, 0, revoked.stderr);
    const startedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - startedAt < 12_000) {
      status = (await api(key, "OPERATOR", "/v1/operations")).status;
      if (status === 200) await sleep(500);
    }
    assert.equal(status, 401);
    assert.ok(Date.now() - startedAt <= 10_600, `refused only after ${Date.now() - startedAt} ms`);

    const [events] = await executeSql("select type, actor from events where tenant_id = 'node-cli' order by rowid", { persistTo: state });
    assert.deepEqual(events, [
      { type: "key.created", actor: "cli" },
      { type: "key.revoked", actor: "cli" },
    ]);
    const again = await keyCommand("--revoke", entry.id);
    assert.equal(again.code, 0);
    assert.match(again.stderr, /already revoked/);
  });

  it("refuses what it cannot do, with the usage, exit code non-zero", async () => {
    for (const args of [["--tenant", "node-cli", "--role", "ACCOUNT"], ["--revoke", "sk_not_an_id"], ["--revoke", "key_unknown"], ["--list"], ["--list", "--revoke", "key_x", "--tenant", "t"]]) {
      const result = await keyCommand(...args);
      assert.notEqual(result.code, 0, args.join(" "));
      assert.match(result.stderr, /usage: npm run key/, args.join(" "));
    }
  });
});
