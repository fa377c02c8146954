import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callRoute, collectPages, createOperation, eventsOf, expectProblem, expectStatus, newTenant } from "../helpers/client";
import { addLineDirectly } from "../helpers/direct";
import { routes } from "../helpers/routes";

async function keyIdOf(tenantId: string) {
  const row = await env.CONTROL.prepare("select id from api_keys where tenant_id = ? and role = 'OPERATOR'").bind(tenantId).first<{ id: string }>();
  return row!.id;
}

describe("GET /v1/events", () => {
  it("records each Operation change in order with its actor and data", async () => {
    const op = await newTenant();
    const target = await createOperation(op, { code: "EV-1", type: "PUBLIC" });
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { ownerIds: ["u1"], description: { en: "d" } } }), 200);
    await addLineDirectly(op.tenantId, target.id);
    expectStatus(await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "ACTIVE" } }), 200);
    expectStatus(await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "INACTIVE" } }), 200);
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: target.id } }), 204);

    const events = await eventsOf(op);
    expect(events.map((e) => e.type)).toEqual([
      "operation.created",
      "operation.updated",
      "operation.status_changed",
      "operation.status_changed",
      "operation.deleted",
    ]);
    const actor = `key:${await keyIdOf(op.tenantId)}`;
    for (const event of events) {
      expect(event.id).toMatch(/^evt_/);
      expect(event.operationId).toBe(target.id);
      expect(event.actor).toBe(actor);
      expect(Date.parse(event.at)).not.toBeNaN();
      expect(event).not.toHaveProperty("ruleId");
      expect(Object.keys(event).sort()).toEqual(["actor", "at", "data", "id", "operationId", "type"]);
    }
    expect(events[0].data).toMatchObject({ code: "EV-1", type: "PUBLIC" });
    expect([...(events[1].data.changed as string[])].sort()).toEqual(["description", "ownerIds"]);
    expect(events[2].data).toEqual({ from: "DRAFT", to: "ACTIVE" });
    expect(events[3].data).toEqual({ from: "ACTIVE", to: "INACTIVE" });
    expect(events[4].data).toMatchObject({ code: "EV-1" });
    // Ids are time-ordered: oldest first is id order.
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort());
  });

  it("reads after a given event id (exclusive), oldest first, page by page", async () => {
    const op = await newTenant();
    for (let i = 0; i < 7; i++) await createOperation(op, { code: `E-${i}` });
    const all = await eventsOf(op);
    expect(all.map((e) => e.data.code)).toEqual(["E-0", "E-1", "E-2", "E-3", "E-4", "E-5", "E-6"]);

    const after = await eventsOf(op, { after: all[2].id });
    expect(after.map((e) => e.id)).toEqual(all.slice(3).map((e) => e.id));
    expect(await eventsOf(op, { after: all[6].id })).toEqual([]);
    // Any string works as a position, e.g. one before every id.
    expect((await eventsOf(op, { after: "evt_0" })).map((e) => e.id)).toEqual(all.map((e) => e.id));

    // Pages of 2: no duplicates or gaps, each page at most 2.
    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = expectStatus(await callRoute(op, routes.listEvents, { query: { limit: 2, after: all[0].id, nextToken } }), 200);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((e) => e.id));
      nextToken = page.nextToken ?? undefined;
      pages++;
    } while (nextToken);
    expect(seen).toEqual(all.slice(1).map((e) => e.id));
    expect(pages).toBe(3);

    // New events after the last one seen: polling picks exactly those up.
    await createOperation(op, { code: "E-7" });
    const polled = await eventsOf(op, { after: all[6].id });
    expect(polled.map((e) => e.data.code)).toEqual(["E-7"]);
  });

  it("reads newest first with sort=-id, page by page, with filters and after; a token is bound to its order", async () => {
    const op = await newTenant();
    const operations = [];
    for (let i = 0; i < 7; i++) operations.push(await createOperation(op, { code: `N-${i}` }));
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operations[3].id }, body: { code: "N-3b" } }), 200);
    const oldestFirst = await eventsOf(op);
    expect(oldestFirst).toHaveLength(8);

    const { items: newestFirst, pages } = await collectPages(op, routes.listEvents, { query: { sort: "-id", limit: 3 } });
    expect(newestFirst.map((e) => e.id)).toEqual([...oldestFirst].reverse().map((e) => e.id));
    expect(pages).toBe(3);
    // The newest page alone: what a reader of the latest needs, without the history before it.
    const latest = expectStatus(await callRoute(op, routes.listEvents, { query: { sort: "-id", limit: 2 } }), 200);
    expect(latest.items.map((e) => e.type)).toEqual(["operation.updated", "operation.created"]);
    expect(latest.items[0].operationId).toBe(operations[3].id);
    expect(latest.items[1].data.code).toBe("N-6");

    const createdNewestFirst = await eventsOf(op, { sort: "-id", types: "operation.created" });
    expect(createdNewestFirst.map((e) => e.data.code)).toEqual(["N-6", "N-5", "N-4", "N-3", "N-2", "N-1", "N-0"]);
    const ofThird = await eventsOf(op, { sort: "-id", operationId: operations[3].id });
    expect(ofThird.map((e) => e.type)).toEqual(["operation.updated", "operation.created"]);
    const afterFifth = await eventsOf(op, { sort: "-id", after: oldestFirst[4].id });
    expect(afterFifth.map((e) => e.id)).toEqual(
      oldestFirst
        .slice(5)
        .reverse()
        .map((e) => e.id),
    );

    const nextToken = latest.nextToken ?? undefined;
    expect(nextToken).toBeDefined();
    expectProblem(await callRoute(op, routes.listEvents, { query: { limit: 2, nextToken } }), 400, "invalid_next_token");
    expectProblem(await callRoute(op, routes.listEvents, { query: { limit: 2, sort: "id", nextToken } }), 400, "invalid_next_token");
    const second = expectStatus(await callRoute(op, routes.listEvents, { query: { limit: 2, sort: "-id", nextToken } }), 200);
    expect(second.items.map((e) => e.data.code)).toEqual(["N-5", "N-4"]);
    expectProblem(await callRoute(op, routes.listEvents, { query: { sort: "-at" } }), 400, "validation_failed");
  });

  it("filters by types and operationId; the token is bound to them", async () => {
    const op = await newTenant();
    const a = await createOperation(op);
    const b = await createOperation(op);
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: a.id }, body: { code: "A2" } }), 200);
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: b.id }, body: { code: "B2" } }), 200);
    const ofA = await eventsOf(op, { operationId: a.id });
    expect(ofA.map((e) => e.type)).toEqual(["operation.created", "operation.updated"]);
    const updates = await eventsOf(op, { types: "operation.updated" });
    expect(updates.map((e) => e.operationId)).toEqual([a.id, b.id]);
    const both = await eventsOf(op, { types: "operation.updated,operation.created", operationId: b.id });
    expect(both).toHaveLength(2);

    const first = expectStatus(await callRoute(op, routes.listEvents, { query: { limit: 1 } }), 200);
    expectProblem(
      await callRoute(op, routes.listEvents, { query: { limit: 1, nextToken: first.nextToken, types: "operation.updated" } }),
      400,
      "invalid_next_token",
    );
    expectProblem(await callRoute(op, routes.listEvents, { query: { limit: 1, nextToken: first.nextToken, after: "evt_0" } }), 400, "invalid_next_token");
    expectProblem(await callRoute(op, routes.listEvents, { query: { nextToken: `${first.nextToken}x` } }), 400, "invalid_next_token");
    expectStatus(await callRoute(op, routes.listEvents, { query: { limit: 1, nextToken: first.nextToken } }), 200);
  });

  it("never shows another tenant's events", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const inA = await createOperation(a);
    await createOperation(b);
    const eventsOfB = await eventsOf(b);
    expect(eventsOfB).toHaveLength(1);
    expect(eventsOfB.some((e) => e.operationId === inA.id)).toBe(false);
    expect(await eventsOf(b, { operationId: inA.id })).toEqual([]);
    expect((await eventsOf(b, { after: "evt_0" })).map((e) => e.id)).toEqual(eventsOfB.map((e) => e.id));
    // A token issued to A does not open B's log.
    expectStatus(
      await callRoute(a, routes.createOperation, {
        body: { code: "A-2", name: { en: "x" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-01-02T00:00:00Z" },
      }),
      201,
    );
    const pageOfA = expectStatus(await callRoute(a, routes.listEvents, { query: { limit: 1 } }), 200);
    expect(pageOfA.nextToken).toBeTruthy();
    expectProblem(await callRoute(b, routes.listEvents, { query: { limit: 1, nextToken: pageOfA.nextToken } }), 400, "invalid_next_token");
  });

  it("writes no event for a refused change", async () => {
    const op = await newTenant();
    const target = await createOperation(op, { code: "TAKEN" });
    const other = await createOperation(op);
    const before = await eventsOf(op);
    expectProblem(await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "ACTIVE" } }), 409, "invalid_transition");
    expectProblem(await callRoute(op, routes.patchOperation, { params: { operationId: other.id }, body: { code: "TAKEN" } }), 409, "duplicate_code");
    expectProblem(
      await callRoute(op, routes.patchOperation, { params: { operationId: other.id }, body: { code: "Y" }, headers: { "If-Match": '"7"' } }),
      412,
      "version_mismatch",
    );
    expectProblem(
      await callRoute(op, routes.createOperation, {
        body: { code: "TAKEN", name: { en: "x" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-01-02T00:00:00Z" },
      }),
      409,
      "duplicate_code",
    );
    expect(await eventsOf(op)).toEqual(before);
  });
});
