// `wrangler dev` fires no cron trigger by itself; `npm start` runs them on their production schedule
// (scripts/lib/local-crons.mjs). Here the runner fires each cron at its time, with that time, through
// the runtime's scheduled-event request (seconds schedules against a stub, on a clock the test moves:
// nothing waits for a cron's time), and a real local server repairs a lost hand-on when that request comes for the minute sweep: an
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

/**
 * A clock for the cron runner that moves only when told: advanceTo(time) runs every timer due by then,
 * in order, each at its own time, and waits for the run it starts before the next (a run may move the
 * clock on itself: set(time)).
 */
function steppedClock(start) {
  let now = start;
  let timers = [];
  return {
    now: () => now,
    set: (time) => {
      now = Math.max(now, time);
    },
    setTimeout: (run, ms) => {
      const timer = { at: now + Math.max(0, ms), run };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (timer) => {
      timers = timers.filter((pending) => pending !== timer);
    },
    pending: () => timers.length,
    async advanceTo(time) {
      for (;;) {
        const due = timers.filter((timer) => timer.at <= time).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((pending) => pending !== due);
        now = Math.max(now, due.at);
        await due.run();
      }
      now = Math.max(now, time);
    },
  };
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
    const clock = steppedClock(Date.UTC(2026, 0, 1, 0, 0, 0, 300));
    // The runtime's scheduled-event endpoint, as `wrangler dev` serves it; the every-second cron's first request is dropped.
    const stub = createServer((request, response) => {
      const url = new URL(request.url, "http://stub");
      const cron = url.searchParams.get("cron");
      const first = !fired.some((earlier) => earlier.cron === cron);
      fired.push({ path: url.pathname, cron, time: Number(url.searchParams.get("time")), at: clock.now() });
      if (cron === everySecond && first) request.socket.destroy();
      else response.writeHead(200).end();
    });
    await new Promise((resolve) => stub.listen(0, "127.0.0.1", resolve));
    const runs = [];
    const schedules = startLocalCrons(`http://127.0.0.1:${stub.address().port}`, {
      crons: [everySecond, evenSeconds],
      onRun: (cron, status) => runs.push({ cron, status }),
      clock,
    });
    try {
      await clock.advanceTo(Date.UTC(2026, 0, 1, 0, 0, 4, 500));
    } finally {
      schedules.stop();
      stub.close();
    }
    assert.equal(clock.pending(), 0, "stop() leaves no schedule behind");

    // Each second the schedule named, at that second, once (not when the run happened to start).
    const firedFor = (cron) => fired.filter((request) => request.cron === cron);
    assert.deepEqual(
      firedFor(everySecond).map(({ time, at }) => [time, at]),
      [1, 2, 3, 4].map((second) => [Date.UTC(2026, 0, 1, 0, 0, second), Date.UTC(2026, 0, 1, 0, 0, second)]),
    );
    assert.deepEqual(
      firedFor(evenSeconds).map(({ time }) => time),
      [2, 4].map((second) => Date.UTC(2026, 0, 1, 0, 0, second)),
    );
    assert.ok(
      fired.every(({ path }) => path === "/cdn-cgi/local/scheduled"),
      JSON.stringify(fired),
    );
    // The dropped run is reported as 0, the ones after it as the endpoint answered.
    assert.deepEqual(
      runs.filter((run) => run.cron === everySecond).map((run) => run.status),
      [0, 200, 200, 200],
    );
    assert.deepEqual(
      runs.filter((run) => run.cron === evenSeconds).map((run) => run.status),
      [200, 200],
    );
  });

  it("skips the times a run outlasted, rather than firing them late", async () => {
    const everySecond = "* * * * * *";
    const clock = steppedClock(Date.UTC(2026, 0, 1, 0, 0, 0, 300));
    const times = [];
    // The first run takes 2.5 s (the endpoint answers then): the times 2 and 3 pass while it runs.
    const stub = createServer((request, response) => {
      const time = Number(new URL(request.url, "http://stub").searchParams.get("time"));
      times.push(time);
      if (times.length === 1) clock.set(time + 2_500);
      response.writeHead(200).end();
    });
    await new Promise((resolve) => stub.listen(0, "127.0.0.1", resolve));
    const schedules = startLocalCrons(`http://127.0.0.1:${stub.address().port}`, { crons: [everySecond], clock });
    try {
      await clock.advanceTo(Date.UTC(2026, 0, 1, 0, 0, 5, 500));
    } finally {
      schedules.stop();
      stub.close();
    }
    assert.deepEqual(
      times,
      [1, 4, 5].map((second) => Date.UTC(2026, 0, 1, 0, 0, second)),
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
