// `wrangler dev` fires no cron trigger by itself; `npm start` runs them on their production schedule
// (scripts/lib/local-crons.mjs). Here a real local server with those schedules repairs a lost hand-on:
// an event committed without its hand-on message reaches a webhook receiver through the minute sweep.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { configuredCrons } from "../../scripts/lib/local-crons.mjs";
import { copyMigratedState } from "../../scripts/lib/migrated-state.mjs";
import { executeSql, repoRoot, sqlString } from "../../scripts/lib/wrangler.mjs";

const TENANT = "t_local_crons";
const state = mkdtempSync(join(tmpdir(), "local-crons-test-"));
const received = [];
let receiver;
let receiverUrl;
let server;

before(async () => {
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      received.push({ eventId: request.headers["svc-event-id"], body });
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;
  await copyMigratedState(state);
  server = await startDevServer({ persistTo: state, crons: true, vars: { WEBHOOKS_ALLOW_LOCAL: "on" } });
});

after(async () => {
  await server?.stop();
  receiver?.close();
  rmSync(state, { recursive: true, force: true });
});

describe("cron triggers under the local server", () => {
  it("are the ones wrangler.toml deploys", () => {
    assert.deepEqual(configuredCrons(), ["* * * * *", "17 * * * *"]);
  });

  it("sweep a committed event that was never handed on to its webhook within the next minute", { timeout: 150_000 }, async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(repoRoot, "scripts", "key.mjs"), "--tenant", TENANT, "--role", "OPERATOR", "--persist-to", state],
      { cwd: repoRoot },
    );
    const key = stdout.trim().split("\n").at(-1);
    const created = await fetch(`${server.baseUrl}/v1/webhooks`, {
      method: "POST",
      headers: { "svc-client": "OPERATOR", "svc-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ url: receiverUrl, eventTypes: ["operation.*"] }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    // Let the subscription's own hand-on run first, so only the sweep can pick up the event below.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    // An event committed by a process that died before handing it on: only the sweep can deliver it.
    const [[{ shard }]] = await executeSql(`select shard from tenant_directory where tenant_id = ${sqlString(TENANT)}`, { persistTo: state });
    const eventId = `evt_${randomUUID().replaceAll("-", "")}`;
    await executeSql(
      `insert into events (id, tenant_id, type, operation_id, actor, at, data) values (${sqlString(eventId)}, ${sqlString(TENANT)}, 'operation.created', null, 'test', ${sqlString(new Date().toISOString())}, '{}')`,
      { persistTo: state },
      shard,
    );

    const deadline = Date.now() + 140_000;
    while (!received.some((delivery) => delivery.eventId === eventId)) {
      assert.ok(Date.now() < deadline, `the sweep never delivered ${eventId}; received: ${JSON.stringify(received.map((d) => d.eventId))}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });
});
