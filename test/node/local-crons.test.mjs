// `wrangler dev` fires no cron trigger by itself; `npm start` runs them on their production schedule
// (scripts/lib/local-crons.mjs). Here the runner fires each cron at its time, with that time, through
// the runtime's scheduled-event request (seconds schedules against a stub: no test waits a minute),
// and a real local server repairs a lost hand-on when that request comes for the minute sweep: an
// event committed without its hand-on message reaches a webhook receiver.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { after, before, describe, it } from "node:test";
import { serverKeys } from "../../scripts/lib/keys.mjs";
import { configuredCrons, fireScheduled, startLocalCrons } from "../../scripts/lib/local-crons.mjs";
import { localServer } from "../../scripts/lib/shared-server.mjs";
import { startWebhookReceiver } from "../support/webhook-receiver.mjs";
import { servedSql } from "./support/served-sql.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition()` holds, checking every 100 ms; fails with `what()` after `timeoutMs`. */
async function until(condition, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, what());
    await sleep(100);
  }
}

describe("the local cron runner", () => {
  it("runs wrangler.toml's crons unless given others", () => {
    assert.deepEqual(configuredCrons(), ["* * * * *", "17 * * * *"]);
    const schedules = startLocalCrons("http://127.0.0.1:9");
    schedules.stop();
    assert.deepEqual(schedules.crons, configuredCrons());
  });

  it("fires each cron at its schedule's time with that time, and keeps firing after a failed run", async () => {
    const everySecond = "* * * * * *";
    const evenSeconds = "*/2 * * * * *";
    const fired = [];
    // The runtime's scheduled-event endpoint, as `wrangler dev` serves it; the every-second cron's first request is dropped.
    const stub = createServer((request, response) => {
      const url = new URL(request.url, "http://stub");
      const cron = url.searchParams.get("cron");
      const first = !fired.some((earlier) => earlier.cron === cron);
      fired.push({ path: url.pathname, cron, time: Number(url.searchParams.get("time")), at: Date.now() });
      if (cron === everySecond && first) request.socket.destroy();
      else response.writeHead(200).end();
    });
    await new Promise((resolve) => stub.listen(0, "127.0.0.1", resolve));
    const runs = [];
    const schedules = startLocalCrons(`http://127.0.0.1:${stub.address().port}`, {
      crons: [everySecond, evenSeconds],
      onRun: (cron, status) => runs.push({ cron, status }),
    });
    const ran = (cron) => runs.filter((run) => run.cron === cron);
    try {
      await until(
        () => ran(everySecond).length >= 3 && ran(evenSeconds).length >= 1,
        () => `runs: ${JSON.stringify(runs)}`,
      );
    } finally {
      schedules.stop();
      stub.close();
    }

    for (const { path, cron, time, at } of fired) {
      assert.equal(path, "/cdn-cgi/local/scheduled");
      assert.ok([everySecond, evenSeconds].includes(cron), cron);
      // The second the schedule named (not when the run happened to start), and reached from it.
      assert.equal(time % (cron === evenSeconds ? 2000 : 1000), 0, `${cron} fired for ${time}`);
      assert.ok(at >= time - 50 && at < time + 2000, `${cron} for ${time} fired at ${at}`);
    }
    for (const cron of [everySecond, evenSeconds]) {
      const times = fired.filter((request) => request.cron === cron).map((request) => request.time);
      assert.equal(new Set(times).size, times.length, `${cron} fired once per scheduled time: ${times}`);
    }
    // The dropped run is reported as 0, the ones after it as the endpoint answered.
    const [dropped, ...later] = ran(everySecond);
    assert.equal(dropped.status, 0);
    assert.ok(
      [...later, ...ran(evenSeconds)].every((run) => run.status === 200),
      JSON.stringify(runs),
    );
  });
});

describe("the webhook sweep under a real local server", () => {
  const TENANT = "t_local_crons";
  let receiver;
  let server;

  // npm test's shared server (the sweep runs as every minute there), else one of its own.
  before(async () => {
    receiver = await startWebhookReceiver();
    server = await localServer("local-crons", { WEBHOOKS_ALLOW_LOCAL: "on" });
  });

  after(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("delivers an event committed without its hand-on once the every-minute cron fires", async () => {
    const [{ key, shard }] = await serverKeys(server.operator).issue([{ tenant: TENANT, role: "OPERATOR" }]);
    const token = randomUUID();
    const created = await fetch(`${server.baseUrl}/v1/webhooks`, {
      method: "POST",
      headers: { "svc-client": "OPERATOR", "svc-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ url: `${receiver.url}/hooks/ok/${token}`, eventTypes: ["operation.*"] }),
    });
    assert.equal(created.status, 201, await created.clone().text());

    // An event committed by a process that died before handing it on: only the sweep can deliver it. No
    // hand-on is under way to pick it up (no wait needed): the key came through no /v1 route, and
    // creating a subscription appends no event.
    const eventId = `evt_${randomUUID().replaceAll("-", "")}`;
    await servedSql(
      server,
      "insert into events (id, tenant_id, type, operation_id, actor, at, data) values (?, ?, 'operation.created', null, 'test', ?, '{}')",
      shard,
      [eventId, TENANT, new Date().toISOString()],
    );
    const pending = "select id from events where tenant_id = ? and type = 'operation.created' and handed_on_at is null";
    assert.deepEqual(await servedSql(server, pending, shard, [TENANT]), [{ id: eventId }], "committed, not handed on");

    // The request the runner sends at the minute, sent now.
    assert.equal(await fireScheduled(server.baseUrl, "* * * * *"), 200);
    const delivered = () => (receiver.records.get(token) ?? []).map((record) => record.headers["svc-event-id"]);
    await until(
      () => delivered().includes(eventId),
      () => `the sweep never delivered ${eventId}; received: ${JSON.stringify(delivered())}`,
    );
  });
});
