import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { callRoute, collectPages, createOperation, expectProblem, expectStatus, newTenant, operationBody, readOperation, uniqueId } from "../helpers/client";
import { routes } from "../helpers/routes";
import { alarmOf, inSeconds, later, operationEvents, runScheduleAt, storedKeys, stubOf } from "../helpers/schedule";
import { setUpOperation } from "../helpers/setup";
import { tenantDb } from "../helpers/shards";

describe("scheduled status changes: the contract of schedule", () => {
  it("validates times: in the past, or deactivateAt not after activateAt, is 400 and changes nothing", async () => {
    const op = await newTenant();
    const past = "2020-01-01T00:00:00Z";
    expectProblem(
      await callRoute(op, routes.createOperation, {
        body: {
          code: "P1",
          name: { en: "x" },
          type: "PUBLIC",
          startDate: "2026-01-01T00:00:00Z",
          endDate: "2099-01-01T00:00:00Z",
          schedule: { activateAt: past },
        },
      }),
      400,
      "validation_failed",
    );
    const at = inSeconds(3600);
    expectProblem(
      await callRoute(op, routes.createOperation, {
        body: {
          code: "P2",
          name: { en: "x" },
          type: "PUBLIC",
          startDate: "2026-01-01T00:00:00Z",
          endDate: "2099-01-01T00:00:00Z",
          schedule: { activateAt: at, deactivateAt: at },
        },
      }),
      400,
      "validation_failed",
    );
    const operation = await createOperation(op, { schedule: { activateAt: at } });
    expect(operation.schedule).toEqual({ activateAt: at, deactivateAt: null });
    // The merged schedule is checked: a deactivateAt before the stored activateAt is refused.
    const refused = expectProblem(
      await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { deactivateAt: inSeconds(60) } } }),
      400,
      "validation_failed",
    );
    expect(refused.errors?.[0].field).toBe("body.schedule.deactivateAt");
    expectProblem(
      await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { activateAt: past } } }),
      400,
      "validation_failed",
    );
    expect((await readOperation(op, operation.id)).version).toBe(operation.version);
  });

  it("refuses times from 2100-01-01 on with 400 before anything is saved: the refusal replays as such, and a corrected request creates and arms", async () => {
    const op = await newTenant();
    const body = (activateAt: string) => operationBody({ code: "FAR-1", schedule: { activateAt } });
    for (const activateAt of ["9999-12-31T23:59:59Z", "2500-01-01T00:00:00Z", "2300-06-01T00:00:00Z", "2260-01-01T00:00:00Z", "2100-01-01T00:00:00Z"]) {
      const problem = expectProblem(await callRoute(op, routes.createOperation, { body: body(activateAt) }), 400, "validation_failed");
      expect(problem.errors).toEqual([expect.objectContaining({ field: "body.schedule.activateAt", message: "must be before 2100-01-01T00:00:00Z" })]);
    }
    // Retried with its Idempotency-Key, the refusal is replayed: nothing was saved, so nothing meets the code.
    const request = { body: body("9999-12-31T23:59:59Z"), headers: { "Idempotency-Key": uniqueId("idem") } };
    const refused = expectProblem(await callRoute(op, routes.createOperation, request), 400, "validation_failed");
    const retried = await callRoute(op, routes.createOperation, request);
    expect([retried.status, retried.headers.get("idempotent-replayed"), retried.body]).toEqual([400, "true", refused]);
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items).toEqual([]);

    const lastSecond = "2099-12-31T23:59:59Z";
    const created = expectStatus(
      await callRoute(op, routes.createOperation, { body: body(lastSecond), headers: { "Idempotency-Key": uniqueId("idem") } }),
      201,
    );
    expect(await alarmOf(created.id)).toBe(Date.parse(lastSecond));
    // PATCH: the same 400, the Operation and its alarm unchanged.
    for (const schedule of [{ activateAt: "9999-12-31T23:59:59Z" }, { deactivateAt: "2100-01-01T00:00:00Z" }]) {
      const refused = expectProblem(
        await callRoute(op, routes.patchOperation, { params: { operationId: created.id }, body: { schedule } }),
        400,
        "validation_failed",
      );
      expect(refused.errors?.[0].field).toBe(`body.schedule.${Object.keys(schedule)[0]}`);
    }
    expect((await readOperation(op, created.id)).version).toBe(created.version);
    expect(await alarmOf(created.id)).toBe(Date.parse(lastSecond));
  });

  it("PATCH merges the schedule, re-arms the object's alarm, and null clears it; delete cancels it", async () => {
    const op = await newTenant();
    const first = inSeconds(3600);
    const operation = await createOperation(op, { schedule: { activateAt: first } });
    expect(await alarmOf(operation.id)).toBe(Date.parse(first));
    const later = inSeconds(7200);
    const patched = expectStatus(
      await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { deactivateAt: later } } }),
      200,
    );
    expect(patched.schedule).toEqual({ activateAt: first, deactivateAt: later });
    expect(patched.version).toBe(operation.version + 1);
    const moved = inSeconds(1800);
    expect(
      expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { activateAt: moved } } }), 200)
        .schedule,
    ).toEqual({ activateAt: moved, deactivateAt: later });
    expect(await alarmOf(operation.id)).toBe(Date.parse(moved));
    expect(
      expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { activateAt: null } } }), 200)
        .schedule,
    ).toEqual({ activateAt: null, deactivateAt: later });
    expect(await alarmOf(operation.id)).toBe(Date.parse(later));
    expect(
      expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: null } }), 200).schedule,
    ).toBeNull();
    expect(await alarmOf(operation.id)).toBeNull();
    expect(await storedKeys(operation.id)).toBe(0);

    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { activateAt: first } } }), 200);
    expect(await alarmOf(operation.id)).toBe(Date.parse(first));
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 204);
    expect(await alarmOf(operation.id)).toBeNull();
    expect(await storedKeys(operation.id)).toBe(0);
  });
});

describe("scheduled status changes: the Operation's Durable Object makes them", () => {
  it("activates, then deactivates, through the same path as a manual change (version, event by schedule), clearing each time, never twice", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    const activateAt = later();
    const deactivateAt = later(7200);
    const scheduled = expectStatus(
      await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { activateAt, deactivateAt } } }),
      200,
    );

    await runScheduleAt(operation.id, activateAt);
    const active = await readOperation(op, operation.id);
    expect(active.status).toBe("ACTIVE");
    expect(active.version).toBe(scheduled.version + 1);
    expect(active.schedule).toEqual({ activateAt: null, deactivateAt });
    expect(await alarmOf(operation.id)).toBe(Date.parse(deactivateAt));
    // Running the alarm again changes nothing.
    await runInDurableObject(stubOf(operation.id), (instance) => (instance as unknown as { alarm(): Promise<void> }).alarm());
    expect((await readOperation(op, operation.id)).version).toBe(active.version);

    await runScheduleAt(operation.id, deactivateAt);
    const inactive = await readOperation(op, operation.id);
    expect(inactive.status).toBe("INACTIVE");
    expect(inactive.version).toBe(active.version + 1);
    expect(inactive.schedule).toBeNull();
    expect(await alarmOf(operation.id)).toBeNull();

    const changes = (await operationEvents(op, operation.id)).filter((event) => event.type === "operation.status_changed");
    expect(changes.map((event) => [event.actor, event.data.from, event.data.to])).toEqual([
      ["schedule", "DRAFT", "ACTIVE"],
      ["schedule", "ACTIVE", "INACTIVE"],
    ]);
    // Each change is in the history as the scheduler's, exactly what it changed, once (the second ring recorded nothing).
    const history = await collectPages(op, routes.listOperationHistory, { params: { operationId: operation.id } });
    const bySchedule = history.items.filter((item) => item.actor === "schedule");
    expect(bySchedule.map(({ actor, action, version, changes: fields }) => ({ actor, action, version, fields }))).toEqual([
      {
        actor: "schedule",
        action: "updated",
        version: inactive.version,
        fields: [
          { field: "status", previous: "ACTIVE", next: "INACTIVE" },
          { field: "deactivateAt", previous: deactivateAt, next: null },
        ],
      },
      {
        actor: "schedule",
        action: "updated",
        version: active.version,
        fields: [
          { field: "status", previous: "DRAFT", next: "ACTIVE" },
          { field: "activateAt", previous: activateAt, next: null },
        ],
      },
    ]);
  });

  it("a change the rules refuse changes nothing but clears its time and records operation.schedule_failed with the reason", async () => {
    const op = await newTenant();
    const activateAt = later();
    const operation = await createOperation(op, { schedule: { activateAt } }); // no line: DRAFT → ACTIVE is refused
    await runScheduleAt(operation.id, activateAt);
    const after = await readOperation(op, operation.id);
    expect(after.status).toBe("DRAFT");
    expect(after.schedule).toBeNull();
    const failed = (await operationEvents(op, operation.id)).filter((event) => event.type === "operation.schedule_failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ actor: "schedule", data: { from: "DRAFT", to: "ACTIVE", scheduledAt: activateAt } });
    expect(failed[0].data.reason).toContain("at least one line");
    expect(await alarmOf(operation.id)).toBeNull();
  });

  it("hands a scheduled change on to webhooks at once, not at the next sweep", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    const activateAt = later();
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { schedule: { activateAt } } }), 200);
    const db = await tenantDb(op.tenantId);
    const notHandedOn = async () =>
      (await db.prepare("select count(*) as n from events where tenant_id = ? and handed_on_at is null").bind(op.tenantId).first<{ n: number }>())!.n;
    // The requests' own events are handed on first, so what is left after the alarm is its own.
    await vi.waitFor(async () => expect(await notHandedOn()).toBe(0), { timeout: 10_000, interval: 100 });
    await runScheduleAt(operation.id, activateAt);
    expect((await readOperation(op, operation.id)).status).toBe("ACTIVE");
    await vi.waitFor(async () => expect(await notHandedOn()).toBe(0), { timeout: 10_000, interval: 100 });
  });

  it("operation.schedule_failed is an event type webhooks subscribe to", async () => {
    const op = await newTenant();
    const created = expectStatus(
      await callRoute(op, routes.createWebhook, { body: { url: "https://hooks.example.com/campaigns", eventTypes: ["operation.schedule_failed"] } }),
      201,
    );
    expect(created.eventTypes).toEqual(["operation.schedule_failed"]);
  });
});
