// `npm run tenant:move` as an operator runs it, against a real local server under traffic: the move
// runs inside that server (never beside it against its files), the server is killed in the middle of
// the copy and started again, and the move resumes there; the command follows it through the restart,
// prints its progress and exits 0 once switched; nothing acknowledged is lost, nothing but the fence's
// 503 and the restart's dropped connections is answered; `--reverse` takes the tenant back in one command.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { copyMigratedState } from "../../scripts/lib/migrated-state.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const state = mkdtempSync(join(tmpdir(), "tenant-move-test-"));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const TENANT = "t_move_cli";
let server;

after(async () => {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
});

function api(key) {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { "svc-client": "OPERATOR", "svc-api-key": key, ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** The tenant's shard, as the move reports it (the latest move's `to` once switched). */
async function latestMove(call) {
  const answer = await call("GET", "/v1/tenant/moves/latest");
  return answer.status === 200 ? answer.body : null;
}

/** Every rule of the tenant, page after page (a long move under the writer makes more than one page). */
async function allRules(call) {
  const rules = [];
  let nextToken = null;
  do {
    const page = await call("GET", `/v1/buying-policies/quotas/rules?limit=500${nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : ""}`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    rules.push(...page.body.items);
    nextToken = page.body.nextToken;
  } while (nextToken);
  return rules;
}

/** A client that keeps creating rules, each with its own Idempotency-Key, retried until answered (a fence's 503, a server that went away). */
function ruleWriter(call) {
  const acknowledged = [];
  const answerLost = [];
  const unexpected = [];
  let stopped = false;
  const running = (async () => {
    for (let i = 0; !stopped; i++) {
      const key = `rule-${i}`;
      for (;;) {
        let answer;
        try {
          answer = await call("POST", "/v1/buying-policies/quotas/rules", { accountId: `ACC-${i}`, minimum: i }, { "Idempotency-Key": key });
        } catch {
          await sleep(200); // the server is down (restarting): the same request again
          continue;
        }
        if (answer.status === 201) {
          acknowledged.push(answer.body.id);
          break;
        }
        if (answer.status === 503 && answer.body.code === "tenant_moving") {
          await sleep(100);
          continue;
        }
        if (answer.status === 409 && answer.body.code === "idempotency_in_progress") {
          // The first request with this key was cut off by the restart: sent again after Retry-After, as a client does.
          await sleep(1_000);
          continue;
        }
        if (answer.status === 409 && answer.body.code === "idempotency_answer_lost") {
          // Cut off by the restart after its write committed: carried out once, its answer lost (never run twice).
          answerLost.push(answer.body.changeSetId);
          break;
        }
        unexpected.push(`${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        break;
      }
      await sleep(50);
    }
  })();
  return {
    acknowledged,
    answerLost,
    unexpected,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

function runMoveCommand(args) {
  const child = spawn(process.execPath, [join(repoRoot, "scripts", "tenant-move.mjs"), ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { exited, stderr: () => stderr };
}

/**
 * Lines of a seeded tenant: with their change records 40,000 rows, many seconds of copying at the shipped
 * pace. At 10,000 lines the writer acknowledged too few writes before the kill, when the restart cut one
 * off and its key then waited out its 60 s claim (seen twice in 10 runs).
 */
const SEEDED_LINES = 20_000;

/** A tenant on SHARD_1 with SEEDED_LINES lines. */
async function seededTenant(tenantId) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(repoRoot, "scripts", "key.mjs"), "--tenant", tenantId, "--role", "OPERATOR", "--shard", "SHARD_1", "--persist-to", state],
    { cwd: repoRoot },
  );
  const key = stdout.trim().split("\n").at(-1);
  const call = api(key);
  const created = await call("POST", "/v1/operations", {
    code: "MOVING",
    name: { en: "Moving" },
    type: "PUBLIC",
    startDate: "2026-01-01T00:00:00Z",
    endDate: "2027-01-01T00:00:00Z",
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  for (let from = 0; from < SEEDED_LINES; from += 5_000) {
    const lines = Array.from({ length: 5_000 }, (_, i) => ({ variantExternalId: `SKU-${from + i}`, minQuantity: 0, maxQuantity: 10 }));
    const put = await call("PUT", `/v1/operations/${created.body.id}/lines`, lines);
    assert.equal(put.status, 200, JSON.stringify(put.body));
  }
  return { key, call };
}

/** Polls the tenant's latest move until it is in `status` (every 20 ms, at most 12 s). */
async function waitForStatus(call, status) {
  let move;
  for (let polls = 0; polls < 600; polls++) {
    move = await latestMove(call);
    if (move?.status === status) return move;
    await sleep(20);
  }
  assert.fail(`the move never was ${status}: ${JSON.stringify(move)}`);
}

async function ensureServer() {
  if (server) return;
  await copyMigratedState(state);
  server = await startDevServer({ persistTo: state });
}

describe("npm run tenant:move --status and --abort, from another terminal", () => {
  it("--status follows a running move; --abort stops it mid-copy: both exit 0, the move's own command exits 1, the tenant is whole on its shard", {
    timeout: 600_000,
  }, async () => {
    await ensureServer();
    const { key, call } = await seededTenant("t_move_abort");
    const writer = ruleWriter(call);
    const moving = runMoveCommand(["--tenant", "t_move_abort", "--to", "SHARD_2", "--url", server.baseUrl, "--key", key]);
    const copying = await waitForStatus(call, "COPYING");
    const status = runMoveCommand(["--tenant", "t_move_abort", "--status", "--url", server.baseUrl, "--key", key]);
    // --status prints where the move stands before it ends.
    for (let polls = 0; polls < 600 && !/COPYING|CATCHING_UP|VERIFYING/.test(status.stderr()); polls++) await sleep(20);
    assert.match(status.stderr(), new RegExp(`${copying.id} SHARD_1 → SHARD_2: (COPYING|CATCHING_UP|VERIFYING), [\\d,]+/[\\d,]+ rows copied`));

    const aborted = await runMoveCommand(["--tenant", "t_move_abort", "--abort", "--url", server.baseUrl, "--key", key]).exited;
    await writer.stop();
    assert.equal(aborted.code, 0, aborted.stderr);
    assert.equal(JSON.parse(aborted.stdout).status, "ABORTED");
    assert.match(aborted.stderr, /t_move_abort: the move was aborted; the tenant is whole on SHARD_1\./);

    const followed = await status.exited;
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(JSON.parse(followed.stdout).status, "ABORTED");
    const own = await moving.exited;
    assert.equal(own.code, 1, "the command that started the move says it did not switch");
    assert.match(own.stderr, /t_move_abort: the move ended ABORTED; the tenant is whole on SHARD_1\./);

    // Whole on SHARD_1: every acknowledged write is there, writes go on, and a move may start again.
    assert.deepEqual(writer.unexpected, []);
    assert.deepEqual(new Set((await allRules(call)).map((rule) => rule.id)), new Set(writer.acknowledged));
    assert.equal((await call("GET", "/v1/operations?limit=1")).body.items[0].lineCount, SEEDED_LINES);
    assert.equal((await call("POST", "/v1/buying-policies/quotas/rules", { accountId: "ACC-AFTER", minimum: 1 })).status, 201);
    const again = await call("POST", "/v1/tenant/moves", { to: "SHARD_2" });
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.equal((await runMoveCommand(["--tenant", "t_move_abort", "--abort", "--url", server.baseUrl, "--key", key]).exited).code, 0);
  });
});

describe("npm run tenant:move against a running local server, killed and started again mid-copy", () => {
  it("resumes the move in the restarted server, exits 0 once switched, loses nothing; --reverse takes the tenant back", { timeout: 600_000 }, async () => {
    await ensureServer();
    const { key, call } = await seededTenant(TENANT);

    const writer = ruleWriter(call);
    const command = runMoveCommand(["--tenant", TENANT, "--to", "SHARD_2", "--url", server.baseUrl, "--key", key]);
    // Killed as soon as the copy is under way, then started again on the same port and state.
    let copying;
    for (let polls = 0; polls < 600; polls++) {
      copying = await latestMove(call);
      if (copying?.status === "COPYING") break;
      await sleep(20);
    }
    assert.equal(copying?.status, "COPYING");
    const { port } = server;
    await server.stop();
    await sleep(1_000);
    server = await startDevServer({ persistTo: state, port });

    const { code, stdout: report, stderr } = await command.exited;
    await writer.stop();
    assert.equal(code, 0, stderr);
    const move = JSON.parse(report);
    assert.equal(move.status, "SWITCHED", stderr);
    assert.match(stderr, /The server does not answer/);
    assert.match(stderr, /COPYING, [\d,]+\/[\d,]+ rows copied/);
    assert.match(stderr, /is on SHARD_2; writes were refused for \d+ ms at the switch/);
    assert.ok(move.fence.longestMs <= 2_000, JSON.stringify(move.fence));
    assert.ok(move.progress.rowsCopied >= move.progress.rowsEstimated);
    assert.deepEqual(writer.unexpected, []);
    assert.ok(writer.acknowledged.length > 5);
    const rules = await allRules(call);
    const stored = new Set(rules.map((rule) => rule.id));
    const lost = writer.acknowledged.filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${lost.length} of ${writer.acknowledged.length} rules acknowledged, then lost (${rules.length} stored)`);
    // A rule whose answer the restart cut off after its commit is there once, named by its change set.
    assert.equal(rules.length, writer.acknowledged.length + writer.answerLost.length);
    for (const changeSetId of writer.answerLost) assert.match(changeSetId, /^chg_/);
    // --status shows the catch-up's figures: what was applied and checked, what waited, the rounds and the time against the bound.
    const status = await runMoveCommand(["--tenant", TENANT, "--status", "--url", server.baseUrl, "--key", key]).exited;
    assert.equal(status.code, 0, status.stderr);
    assert.match(
      status.stderr,
      /: SWITCHED, [\d,]+\/[\d,]+ rows copied, [\d,]+ writes caught up, [\d,]+ rows compared, [\d,]+ rechecked, catch-up \d+ s of 120 s at most, round \d+ of 10, [\d,]+ waiting \([\d,]+ to apply, [\d,]+ to check\)/,
    );
    assert.ok(move.progress.changesApplied > 0 && move.catchUp.elapsedMs >= 0, JSON.stringify(move));

    const back = await runMoveCommand(["--tenant", TENANT, "--reverse", "--url", server.baseUrl, "--key", key]).exited;
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual((({ from, to, reverseOf, status }) => ({ from, to, reverseOf, status }))(JSON.parse(back.stdout)), {
      from: "SHARD_2",
      to: "SHARD_1",
      reverseOf: move.id,
      status: "SWITCHED",
    });
    assert.equal((await allRules(call)).length, writer.acknowledged.length + writer.answerLost.length);
  });
});
