// What only the real local server shows (run by `npm test` after the Worker suite, with node:test):
// it survives clients that hang up mid-body, `npm run key` issues, lists and revokes keys in the
// databases it serves, `npm run tenant:move` moves a tenant between shards while it serves, and its
// history archive is a local bucket (no account) that `npm run tenant:delete` empties of the tenant.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { answers, startDevServer } from "../../scripts/lib/dev-server.mjs";
import { fireScheduled } from "../../scripts/lib/local-crons.mjs";
import { DROPPED_UPLOADS, dropMidBody } from "../../scripts/lib/drop-client.mjs";
import { copyMigratedState } from "../../scripts/lib/migrated-state.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";
import { servedSql } from "./support/served-sql.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const state = mkdtempSync(join(tmpdir(), "dev-server-test-"));
let server;

/** `node scripts/<script> …args` against this test's databases: { code, stdout, stderr }. */
async function command(script, ...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(repoRoot, "scripts", script), ...args, "--persist-to", state], {
      cwd: repoRoot,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}
const keyCommand = (...args) => command("key.mjs", ...args);

/** The shard the tenant directory names for a tenant. */
async function shardOf(tenant) {
  const [entry] = await servedSql(server, "select shard from tenant_directory where tenant_id = ?", "CONTROL", [tenant]);
  return entry?.shard;
}

async function issue(tenant, ...more) {
  const issued = await keyCommand("--tenant", tenant, "--role", "OPERATOR", ...more);
  assert.equal(issued.code, 0, issued.stderr);
  return issued.stdout.trim().split("\n").at(-1);
}

async function api(key, role, path, init = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, { ...init, headers: { "svc-client": role, "svc-api-key": key, ...init.headers } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

before(async () => {
  await copyMigratedState(state);
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
    assert.match(key, /^sk3_[A-Za-z0-9_-]{62}$/);
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

    const events = await servedSql(server, "select type, actor from events where tenant_id = 'node-cli' order by rowid", await shardOf("node-cli"));
    assert.deepEqual(events, [
      { type: "key.created", actor: "cli" },
      { type: "key.revoked", actor: "cli" },
    ]);
    // The command records the change history the Worker would: created, then revoked, its hash redacted.
    const history = await servedSql(
      server,
      "select r.action, r.resource_id as keyId, r.changes, s.actor from change_records r join change_sets s on s.id = r.set_id where s.tenant_id = 'node-cli' and r.resource_type = 'k' order by s.id",
      await shardOf("node-cli"),
    );
    assert.deepEqual(
      history.map(({ action, keyId, actor }) => [action, keyId, actor]),
      [
        ["c", entry.id, "cli"],
        ["u", entry.id, "cli"],
      ],
    );
    assert.equal(JSON.parse(history[0].changes).keyHash, "[redacted]");
    assert.deepEqual(Object.keys(JSON.parse(history[1].changes)), ["revokedAt"]);
    const again = await keyCommand("--revoke", entry.id);
    assert.equal(again.code, 0);
    assert.match(again.stderr, /already revoked/);
  });

  it("lists 50 keys issued at once in one tenant (by the API and by itself) with 50 different prefixes, as the API does", async () => {
    const first = await issue("node-prefixes");
    const byApi = await Promise.all(
      Array.from({ length: 48 }, async (_, i) => {
        const created = await api(first, "OPERATOR", "/v1/keys", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ role: "OPERATOR", name: `key ${i}` }),
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body.key;
      }),
    );
    const keys = [first, ...byApi, await issue("node-prefixes")];

    const listed = await keyCommand("--list", "--tenant", "node-prefixes", "--json");
    assert.equal(listed.code, 0, listed.stderr);
    const entries = JSON.parse(listed.stdout);
    assert.equal(entries.length, 50);
    assert.equal(new Set(entries.map((entry) => entry.prefix)).size, 50, "no two keys share a prefix");
    for (const key of keys) assert.equal(entries.filter((entry) => key.startsWith(entry.prefix)).length, 1, `one prefix starts ${key.slice(0, 8)}…`);
    const served = (await api(first, "OPERATOR", "/v1/keys?limit=500")).body.items;
    assert.deepEqual(new Map(served.map((entry) => [entry.id, entry.prefix])), new Map(entries.map((entry) => [entry.id, entry.prefix])));

    const table = await keyCommand("--list", "--tenant", "node-prefixes");
    assert.equal(table.code, 0, table.stderr);
    for (const entry of entries) assert.match(table.stdout, new RegExp(`^${entry.id} .* ${entry.prefix} `, "m"));
  });

  it("refuses what it cannot do, with the usage, exit code non-zero", async () => {
    for (const args of [
      ["--tenant", "node-cli", "--role", "ACCOUNT"],
      ["--tenant", "node-x", "--role", "OPERATOR", "--shard", "shard_1"],
      ["--revoke", "sk_not_an_id"],
      ["--revoke", "key_unknown"],
      ["--list"],
      ["--list", "--revoke", "key_x", "--tenant", "t"],
    ]) {
      const result = await keyCommand(...args);
      assert.notEqual(result.code, 0, args.join(" "));
      assert.match(result.stderr, /usage: npm run key/, args.join(" "));
    }
  });

  it("refuses to issue a --remote key without the deployed signing secret, before touching any database", async () => {
    const { KEY_SIGNING_SECRET: _unset, ...env } = process.env;
    const result = await promisify(execFile)(
      process.execPath,
      [join(repoRoot, "scripts", "key.mjs"), "--tenant", "node-remote", "--role", "OPERATOR", "--remote"],
      { cwd: repoRoot, env },
    ).then(
      () => ({ code: 0, stderr: "" }),
      (error) => ({ code: error.code, stderr: error.stderr }),
    );
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /KEY_SIGNING_SECRET environment variable/);
  });
});

describe("shards: placement and moves against the served databases", () => {
  it("npm run key places a new tenant on the shard named with --shard, else on the one with the fewest tenants", async () => {
    await issue("node-named", "--shard", "SHARD_2");
    assert.equal(await shardOf("node-named"), "SHARD_2");
    const load = await servedSql(server, "select shard, count(*) as n from tenant_directory group by shard order by n, shard");
    const fewest = ["SHARD_1", "SHARD_2"].find((shard) => !load.some((row) => row.shard === shard)) ?? load[0].shard;
    await issue("node-auto");
    assert.equal(await shardOf("node-auto"), fewest);
    const unknown = await keyCommand("--tenant", "node-nowhere", "--role", "OPERATOR", "--shard", "SHARD_9");
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /not a shard/);
  });

  it("npm run tenant:move moves a tenant while the server runs: its data answers from the new shard, writes resume", async () => {
    const key = await issue("node-move", "--shard", "SHARD_1");
    const created = await api(key, "OPERATOR", "/v1/operations", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: "MOVE-1", name: { en: "Moving" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" }),
    });
    assert.equal(created.status, 201);
    const lines = Array.from({ length: 1500 }, (_, i) => ({ variantExternalId: `SKU-${i}`, minQuantity: 0, maxQuantity: 5 }));
    const put = await api(key, "OPERATOR", `/v1/operations/${created.body.id}/lines`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(lines),
    });
    assert.equal(put.status, 200);
    const before = await api(key, "OPERATOR", `/v1/operations/${created.body.id}`);

    // The move runs in the server; the command exits once it has switched. The old copy is kept (fenced) for a reverse.
    const moved = await command("tenant-move.mjs", "--tenant", "node-move", "--to", "SHARD_2", "--url", server.baseUrl);
    assert.equal(moved.code, 0, moved.stderr);
    const report = JSON.parse(moved.stdout);
    assert.equal(report.from, "SHARD_1");
    assert.equal(report.status, "SWITCHED");
    assert.ok(report.keepSourceUntil);
    assert.equal(report.tables.find((table) => table.table === "operation_lines").rows, 1500);
    assert.equal(await shardOf("node-move"), "SHARD_2");
    const lineCount = "select count(*) as n from operation_lines where tenant_id = 'node-move'";
    const [[kept], [arrived]] = await Promise.all(["SHARD_1", "SHARD_2"].map((shard) => servedSql(server, lineCount, shard)));
    assert.deepEqual([kept.n, arrived.n], [1500, 1500]);

    assert.deepEqual(await api(key, "OPERATOR", `/v1/operations/${created.body.id}`), before);
    const renamed = await api(key, "OPERATOR", `/v1/operations/${created.body.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: { en: "Moved" } }),
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));

    const refused = await command("tenant-move.mjs", "--tenant", "node-move", "--to", "SHARD_1", "--url", server.baseUrl);
    assert.equal(refused.code, 1);
    // A second move waits for the first's old copy to go (or reverses it): refused, with the reason.
    assert.match(refused.stderr, /keeps the tenant's old copy on SHARD_1 until .*: reverse it.*\(409 move_in_progress\)/);
  });
});

describe("the history archive on the local server", () => {
  it("is a local bucket with no account: the hourly cron moves 90-day-old history there, reads find it, npm run tenant:delete deletes it", async () => {
    const key = await issue("node-archive", "--shard", "SHARD_1");
    const json = (method, body) => ({ method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const created = await api(
      key,
      "OPERATOR",
      "/v1/operations",
      json("POST", { code: "ARCH-1", name: { en: "Archived" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" }),
    );
    assert.equal(created.status, 201);
    const lines = [1, 2, 3].map((i) => ({ variantExternalId: `SKU-${i}`, minQuantity: 0, maxQuantity: i }));
    assert.equal((await api(key, "OPERATOR", `/v1/operations/${created.body.id}/lines`, json("PUT", lines))).status, 200);
    const history = `/v1/operations/${created.body.id}/history`;
    const before = await api(key, "OPERATOR", history);
    assert.equal(before.body.items.length, 4);
    const count = async (query) => (await servedSql(server, query, "SHARD_1"))[0].n;
    const inShard = "select count(*) as n from change_sets where tenant_id = 'node-archive'";
    const indexed = "select count(*) as n from history_archive where tenant_id = 'node-archive'";

    // The hourly cron as if it ran 91 days from now: everything written so far is past the hot window.
    assert.equal(await fireScheduled(server.baseUrl, "17 * * * *", Date.now() + 91 * 86_400_000), 200);
    const deadline = Date.now() + 30_000;
    while ((await count(inShard)) > 0) {
      assert.ok(Date.now() < deadline, "the archive job never emptied the shard of the tenant's history");
      await sleep(300);
    }
    const objects = await count(indexed);
    assert.ok(objects >= 1);
    assert.deepEqual(await api(key, "OPERATOR", history), before);

    const deleted = await command("tenant-delete.mjs", "--tenant", "node-archive");
    assert.equal(deleted.code, 0, deleted.stderr);
    const report = JSON.parse(deleted.stdout);
    assert.equal(report.shard, "SHARD_1");
    assert.equal(report.objects, objects);
    assert.ok(report.rows > 0);
    assert.equal(await count(indexed), 0);
    assert.equal(await shardOf("node-archive"), undefined);

    const again = await command("tenant-delete.mjs", "--tenant", "node-archive");
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not found/);
  });
});
