// One server per local state, and operator commands through it: `npm start` on a port of its own
// records where it listens beside its state, `npm run key` and `npm run tenant:move` (no --url) find it
// there and go through it while it serves traffic (which never sees a 500, as it did when they opened
// the databases beside it), a second `npm start` and `npm run migrate` over the same state refuse, and
// a record its process left behind is taken over. `npm start` also shows its migrations' progress,
// names its keys and seeds the demo tenant's currency.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DEMO_KEYS } from "../../scripts/lib/demo.mjs";
import { freePort } from "../../scripts/lib/dev-server.mjs";
import { claimState, recordPath, StateHeld } from "../../scripts/lib/local-server.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const state = mkdtempSync(join(tmpdir(), "local-server-test-"));
let start;

after(async () => {
  if (start && start.exitCode === null) {
    start.kill("SIGINT");
    await new Promise((resolve) => start.once("exit", resolve));
  }
  rmSync(state, { recursive: true, force: true });
});

/** `node scripts/<script> …args` over this test's state: { code, stdout, stderr }. */
function command(script, args, env = {}) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(repoRoot, "scripts", script), ...args, "--persist-to", state],
      { cwd: repoRoot, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

/** Starts `npm start` (scripts/start.mjs) over this test's state on `port`; resolves with its output once its banner is printed. */
function startServer(port) {
  start = spawn(process.execPath, [join(repoRoot, "scripts", "start.mjs"), "--persist-to", state], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  start.stdout.on("data", (chunk) => (output.stdout += chunk));
  start.stderr.on("data", (chunk) => (output.stderr += chunk));
  return new Promise((resolve, reject) => {
    start.stdout.on("data", () => output.stdout.includes("Stop with Ctrl-C.") && resolve(output));
    start.once("exit", (code) => reject(Object.assign(new Error(`npm start exited ${code}:\n${output.stderr.slice(-3000)}`), { output: output.stderr })));
  });
}

/** Requests that keep reading and writing the demo tenant until stopped (about 30 a second); every answer's status is kept. */
function traffic(baseUrl, key) {
  const answers = [];
  let stopped = false;
  const headers = { "svc-client": "OPERATOR", "svc-api-key": key, "content-type": "application/json" };
  const running = (async () => {
    for (let i = 0; !stopped; i++) {
      const write = i % 2 === 1;
      const response = await fetch(`${baseUrl}${write ? "/v1/buying-policies/quotas/rules" : "/v1/operations?limit=5"}`, {
        method: write ? "POST" : "GET",
        headers,
        body: write ? JSON.stringify({ supplierId: `SUP-LOAD-${i}`, minimum: i }) : undefined,
      });
      const text = await response.text();
      answers.push({ write, status: response.status, code: response.status >= 400 ? JSON.parse(text).code : undefined });
      // A steady stream beside the commands, not a flood: the server's CPU is the machine's too.
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  return {
    answers,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

describe("npm start and the operator commands over one local state", () => {
  it("go through the server on its port, never beside it; a second server refuses; the demo is named and in EUR", { timeout: 900_000 }, async () => {
    // A free port found here (or one wrangler picks for its own sockets) can be taken by another check's
    // server starting meanwhile: then npm start exits saying so, and starts again on another (the
    // migrations' progress is in the first start's output).
    let port;
    let stdout = "";
    let stderr = "";
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        ({ stdout, stderr } = await startServer(port).then((output) => ({ stdout: output.stdout, stderr: stderr + output.stderr })));
        break;
      } catch (error) {
        if (attempt >= 3 || !/Address already in use/.test(error.message)) throw error;
        stderr += error.output;
      }
    }
    const baseUrl = `http://127.0.0.1:${port}`;

    // Where the first start spends its time, database by database, migration by migration.
    assert.match(stderr, /CONTROL \(database 1 of 3\): \d+ migrations to apply…/);
    assert.match(stderr, /SHARD_2 \(database 3 of 3\): migration (\d+) of \1 applied \(\d{4}_\w+\.sql\), in [\d.]+ s/);
    const record = JSON.parse(readFileSync(recordPath(state), "utf8"));
    assert.deepEqual([record.holder, record.status, record.url], ["npm start", "serving", baseUrl]);

    const operatorKey = stdout.match(/^export OP_KEY='(sk3_[^']+)'$/m)[1];
    assert.match(stdout, new RegExp(`OPERATOR "${DEMO_KEYS.operator.name}" +sk3_`));
    assert.match(stdout, /ACCOUNT "Alice \(Maison Dupont\)" +sk3_/);
    const api = async (path, key = operatorKey) => {
      const response = await fetch(`${baseUrl}${path}`, { headers: { "svc-client": "OPERATOR", "svc-api-key": key } });
      return { status: response.status, body: await response.json() };
    };
    const names = (await api("/v1/keys")).body.items.map((key) => key.name);
    assert.deepEqual(names.sort(), ["Alice (Maison Dupont)", "Demo operator"]);
    assert.deepEqual((await api("/v1/settings/display")).body, { currency: "EUR" });

    const load = traffic(baseUrl, operatorKey);
    const issued = await command("key.mjs", ["--tenant", "t-second", "--role", "OPERATOR", "--name", "Second tenant"]);
    assert.equal(issued.code, 0, issued.stderr);
    assert.match(issued.stderr, new RegExp(`issued key_\\w+, an OPERATOR key named "Second tenant", through the local server on ${baseUrl}\\.`));
    const secondKey = issued.stdout.trim().split("\n").at(-1);
    assert.equal((await api("/v1/keys", secondKey)).body.items[0].name, "Second tenant");

    const onShard = stdout.match(/Tenant "demo" \(on (SHARD_\d)\)/)[1];
    const moved = await command("tenant-move.mjs", ["--tenant", "demo", "--to", onShard === "SHARD_1" ? "SHARD_2" : "SHARD_1"]);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stderr, new RegExp(`^Through npm start on ${baseUrl}\\.$`, "m"));
    assert.doesNotMatch(moved.stderr, /starting one/);
    assert.equal(JSON.parse(moved.stdout).status, "SWITCHED");
    await load.stop();

    // Nothing but the switch's fence (503 tenant_moving, on writes) and no server error, ever.
    assert.ok(load.answers.length > 10, `only ${load.answers.length} requests ran`);
    const unexpected = load.answers.filter(({ status, code, write }) => status >= 500 && !(status === 503 && code === "tenant_moving" && write));
    assert.deepEqual(unexpected, []);
    assert.equal(JSON.parse(readFileSync(recordPath(state), "utf8")).serverPid, record.serverPid, "still the one server");

    const second = await command("start.mjs", [], { PORT: String(await freePort()) });
    assert.equal(second.code, 1);
    assert.match(second.stderr, new RegExp(`npm start \\(pid ${record.serverPid}\\) serves .* on ${baseUrl}\\. One server per local state`));
    const migrate = await command("migrate.mjs", []);
    assert.equal(migrate.code, 1);
    assert.match(migrate.stderr, new RegExp(`serves .* on ${baseUrl}: stop it first`));

    start.kill("SIGINT");
    assert.equal(await new Promise((resolve) => start.once("exit", resolve)), 0);
    assert.equal(existsSync(recordPath(state)), false, "a stopped server leaves no record");
  });

  it("a record whose process is gone is taken over: the command works on the state alone, and says so", { timeout: 300_000 }, async () => {
    writeFileSync(
      recordPath(state),
      JSON.stringify({ holder: "npm start", pid: 2 ** 22 + 1, serverPid: 2 ** 22 + 2, status: "serving", url: "http://127.0.0.1:9", id: "gone" }),
    );
    const listed = await command("key.mjs", ["--list", "--tenant", "t-second", "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      JSON.parse(listed.stdout).map((key) => key.name),
      ["Second tenant"],
    );
    assert.equal(existsSync(recordPath(state)), false, "the command released the state");
  });

  it("claims are exclusive: a live claim refuses another until released", async () => {
    const first = await claimState(state, { holder: "test" });
    await assert.rejects(
      claimState(state, { holder: "another" }),
      (error) => error instanceof StateHeld && /test \(pid \d+\) is working on/.test(error.message),
    );
    first.release();
    (await claimState(state, { holder: "another" })).release();
    // A record saying it serves, from a live process whose server does not answer (its pid reused): stale.
    writeFileSync(
      recordPath(state),
      JSON.stringify({ holder: "npm start", pid: process.pid, status: "serving", url: `http://127.0.0.1:${await freePort()}`, id: "x" }),
    );
    (await claimState(state, { holder: "after" })).release();
  });
});
