import { createExecutionContext, createScheduledController, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SCHEDULE_FENCE_RETRY_MS, SCHEDULE_MAX_ATTEMPTS, scheduleRetryDelayMs } from "../../src/operations/coordinator/durable-object";
import { SCHEDULE_OVERDUE_AFTER_MS, sweepSchedules } from "../../src/operations/coordinator/schedule-sweep";
import worker from "../../src/index";
import { WEBHOOK_SWEEP_CRON } from "../../src/webhooks/outbox";
import { callRoute, expectStatus, newTenant, readOperation, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";
import { alarmOf, later, operationEvents, runScheduleAt, storedOf, stubOf, travelTo } from "../helpers/schedule";
import { setUpOperation } from "../helpers/setup";
import { shardOf, tenantDb } from "../helpers/shards";
import { moveTenant, otherShard } from "../helpers/moves";

// Schedules are set an hour ahead and the clock is moved to them (travelTo): no test waits for a time to come.
afterEach(() => vi.restoreAllMocks());

/** Reads until the answer matches `expected` (an object) or equals it (an alarm set in the past rings on its own, at once). */
function eventually<T>(read: () => Promise<T>, expected: unknown, timeout = 5_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await read();
      if (typeof expected === "object" && expected !== null) expect(value).toMatchObject(expected);
      else expect(value).toEqual(expected);
      return value;
    },
    { timeout, interval: 100 },
  );
}

/** A DRAFT Operation with lines (so DRAFT → ACTIVE is allowed) and a schedule set by PATCH. */
async function scheduledOperation(op: Caller, schedule: { activateAt: string; deactivateAt?: string }) {
  const operation = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
  return expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule } }), 200);
}

/** What the object forgets when its alarm is lost: the alarm and whom it acts for. */
const loseAlarm = (operationId: string) =>
  runInDurableObject(stubOf(operationId), async (_instance, state) => {
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });

/** The every-minute cron, as the platform runs it. */
async function runMinuteCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: WEBHOOK_SWEEP_CRON, scheduledTime: Date.now() }), env, ctx);
  // The schedule sweep runs in waitUntil next to the webhook sweep: wait for both to settle.
  await Promise.allSettled((ctx as unknown as { waitUntilPromises?: Promise<unknown>[] }).waitUntilPromises ?? []);
}

describe("a scheduled change that keeps failing", () => {
  it("is tried again after growing waits, then given up: operation.schedule_failed with the last error, and the alarm moves on to the next time", async () => {
    const op = await newTenant();
    const activateAt = later();
    const deactivateAt = later(7200);
    const operation = await scheduledOperation(op, { activateAt, deactivateAt });
    // A real database failure: the shard refuses this Operation's status change (not its other columns).
    const db = await tenantDb(op.tenantId);
    const trigger = `fail_status_${operation.id.replace(/\W/g, "_")}`;
    await db
      .prepare(
        `create trigger ${trigger} before update of status on operations when old.id = '${operation.id}' begin select raise(abort, 'injected status failure'); end`,
      )
      .run();
    try {
      travelTo(activateAt);
      // Every ring, the first and each retry, is rung here at once.
      const failuresSeen: number[] = [];
      for (;;) {
        const before = Date.now();
        await runDurableObjectAlarm(stubOf(operation.id));
        const failures = (await storedOf(operation.id))["schedule-failed-attempts"] as number | undefined;
        if (failures === undefined) break;
        failuresSeen.push(failures);
        const alarm = (await alarmOf(operation.id))!;
        // The next attempt waits 5 s, then twice as long each time.
        expect(alarm - before).toBeGreaterThanOrEqual(scheduleRetryDelayMs(failures) - 1_000);
        expect(alarm - before).toBeLessThan(scheduleRetryDelayMs(failures) + 1_000);
        expect(await readOperation(op, operation.id)).toMatchObject({ status: "DRAFT", version: operation.version, schedule: { activateAt, deactivateAt } });
      }
      expect(failuresSeen.at(-1)).toBe(SCHEDULE_MAX_ATTEMPTS - 1);
      expect(failuresSeen).toEqual(Array.from({ length: failuresSeen.length }, (_, i) => SCHEDULE_MAX_ATTEMPTS - failuresSeen.length + i));
      expect([1, 2, 3, 4, 5].map(scheduleRetryDelayMs)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000]);

      const after = await readOperation(op, operation.id);
      expect(after).toMatchObject({ status: "DRAFT", version: operation.version + 1, schedule: { activateAt: null, deactivateAt } });
      const failed = (await operationEvents(op, operation.id)).filter((event) => event.type === "operation.schedule_failed");
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ actor: "schedule", data: { from: "DRAFT", to: "ACTIVE", scheduledAt: activateAt } });
      expect(String(failed[0].data.reason)).toContain(`failed ${SCHEDULE_MAX_ATTEMPTS} times`);
      expect(String(failed[0].data.reason)).toContain("injected status failure");
      // It stops: no retry is left, the next scheduled time is armed and the count starts over.
      expect(await alarmOf(operation.id)).toBe(Date.parse(deactivateAt));
      expect(Object.keys(await storedOf(operation.id))).toEqual(["schedule-owner"]);
    } finally {
      await db.prepare(`drop trigger if exists ${trigger}`).run();
    }
  });

  it("stops when not even the failure can be recorded; each sweep after that tries once, and the change runs once the database heals", async () => {
    const op = await newTenant();
    const activateAt = later();
    const operation = await scheduledOperation(op, { activateAt });
    const db = await tenantDb(op.tenantId);
    const trigger = `fail_all_${operation.id.replace(/\W/g, "_")}`;
    // Every write to this Operation fails: the change, and recording that it was given up.
    await db
      .prepare(`create trigger ${trigger} before update on operations when old.id = '${operation.id}' begin select raise(abort, 'injected write failure'); end`)
      .run();
    try {
      travelTo(activateAt);
      const failuresOf = async () => (await storedOf(operation.id))["schedule-failed-attempts"];
      for (let ring = 0; ring < SCHEDULE_MAX_ATTEMPTS && (await alarmOf(operation.id)) !== null; ring++) await runDurableObjectAlarm(stubOf(operation.id));
      await eventually(failuresOf, SCHEDULE_MAX_ATTEMPTS);
      // Stopped: no alarm, the time still set, nothing recorded.
      expect(await alarmOf(operation.id)).toBeNull();
      expect(await readOperation(op, operation.id)).toMatchObject({ status: "DRAFT", version: operation.version, schedule: { activateAt } });

      // A sweep arms it; its ring tries once, fails to give up again, and stops.
      await sweepSchedules(env, Date.now() + SCHEDULE_OVERDUE_AFTER_MS + 1_000);
      await runDurableObjectAlarm(stubOf(operation.id));
      await eventually(failuresOf, SCHEDULE_MAX_ATTEMPTS + 1);
      expect(await alarmOf(operation.id)).toBeNull();
    } finally {
      await db.prepare(`drop trigger if exists ${trigger}`).run();
    }
    // The database heals: the next sweep's ring makes the change.
    await sweepSchedules(env, Date.now() + SCHEDULE_OVERDUE_AFTER_MS + 1_000);
    await runDurableObjectAlarm(stubOf(operation.id));
    await eventually(() => readOperation(op, operation.id), { status: "ACTIVE", version: operation.version + 1, schedule: null });
    expect(await storedOf(operation.id)).toEqual({});
  });
});

describe("the schedule sweep (every minute) heals an object that lost its alarm", () => {
  it("arms it again once the time is overdue, and the change runs as scheduled; an object whose alarm is set is left alone", async () => {
    const op = await newTenant();
    const activateAt = later();
    const lost = await scheduledOperation(op, { activateAt });
    const waiting = await scheduledOperation(op, { activateAt });
    // As if the arm after the write had failed.
    await loseAlarm(lost.id);
    expect(await alarmOf(lost.id)).toBeNull();
    // A retry waiting on the other object: its alarm is its own business.
    const retryAt = Date.now() + 123_000;
    await runInDurableObject(stubOf(waiting.id), (_instance, state) => state.storage.setAlarm(retryAt));

    travelTo(activateAt);
    // Not yet overdue: nothing is touched.
    await sweepSchedules(env);
    expect(await alarmOf(lost.id)).toBeNull();

    const swept = await sweepSchedules(env, Date.now() + SCHEDULE_OVERDUE_AFTER_MS + 1_000);
    expect(swept.overdue).toBeGreaterThanOrEqual(2);
    expect(swept.armed).toBeGreaterThanOrEqual(1);
    expect(await alarmOf(waiting.id)).toBe(retryAt);
    // Armed at the time that was missed, which rings at once.
    await runDurableObjectAlarm(stubOf(lost.id));
    await eventually(() => readOperation(op, lost.id), { status: "ACTIVE", version: lost.version + 1, schedule: null });
    expect(await alarmOf(lost.id)).toBeNull();
    const changes = (await operationEvents(op, lost.id)).filter((event) => event.type === "operation.status_changed");
    expect(changes.map((event) => [event.actor, event.data.from, event.data.to])).toEqual([["schedule", "DRAFT", "ACTIVE"]]);
  });

  it("runs from the every-minute cron: a time long past whose object has no alarm is armed again", async () => {
    const op = await newTenant();
    const operation = await scheduledOperation(op, { activateAt: later() });
    await loseAlarm(operation.id);
    const longAgo = `${new Date(Date.now() - 10 * 60_000).toISOString().slice(0, 19)}Z`;
    await (await tenantDb(op.tenantId)).prepare("update operations set activate_at = ? where id = ?").bind(longAgo, operation.id).run();

    await runMinuteCron();
    await runDurableObjectAlarm(stubOf(operation.id));
    await eventually(() => readOperation(op, operation.id), { status: "ACTIVE", version: operation.version + 1, schedule: null });
    const changes = (await operationEvents(op, operation.id)).filter((event) => event.actor === "schedule");
    expect(changes.map((event) => [event.type, event.data.scheduledAt])).toEqual([["operation.status_changed", longAgo]]);
  });
});

describe("a pending schedule and a move of the tenant to another shard", () => {
  it("a time after the move runs on the shard the tenant moved to", async () => {
    const op = await newTenant();
    const activateAt = later();
    const operation = await scheduledOperation(op, { activateAt });
    const from = await shardOf(op.tenantId);
    await moveTenant(op, otherShard(from));
    expect(await shardOf(op.tenantId)).toBe(otherShard(from));
    expect(await alarmOf(operation.id)).toBe(Date.parse(activateAt));

    await runScheduleAt(operation.id, activateAt);
    expect(await readOperation(op, operation.id)).toMatchObject({ status: "ACTIVE", version: operation.version + 1, schedule: null });
    expect(await alarmOf(operation.id)).toBeNull();
  });

  it("a time that comes while a move's cutover fences the tenant's writes runs 2 s later (no failure recorded), then on the shard the directory names", async () => {
    const op = await newTenant();
    const activateAt = later();
    const operation = await scheduledOperation(op, { activateAt });
    const shard = await shardOf(op.tenantId);
    // What a cutover does to the shard for at most 2 s: every write of the tenant refused.
    await env[shard].prepare("insert into tenant_fences (tenant_id, state, since) values (?, 'MOVING', ?)").bind(op.tenantId, new Date().toISOString()).run();
    try {
      const rang = Date.parse(activateAt) + 50;
      await runScheduleAt(operation.id, activateAt);
      expect(await alarmOf(operation.id)).toBe(rang + SCHEDULE_FENCE_RETRY_MS);
      expect(await readOperation(op, operation.id)).toMatchObject({ status: "DRAFT", version: operation.version, schedule: { activateAt } });
    } finally {
      await env[shard].prepare("delete from tenant_fences where tenant_id = ?").bind(op.tenantId).run();
    }
    expect((await operationEvents(op, operation.id)).filter((event) => event.type === "operation.schedule_failed")).toEqual([]);
    await runScheduleAt(operation.id, new Date((await alarmOf(operation.id))!).toISOString());
    expect(await readOperation(op, operation.id)).toMatchObject({ status: "ACTIVE", version: operation.version + 1, schedule: null });
    expect(await alarmOf(operation.id)).toBeNull();
  });
});
