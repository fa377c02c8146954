import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  call,
  type Caller,
  callRoute,
  createOperation,
  eventsOf,
  expectProblem,
  expectStatus,
  newTenant,
  operationBody,
  readOperation,
  setStatus,
} from "../helpers/client";
import { accountKeyAttachedTo, activeOperation, addLineDirectly, linkDirectly, snapshotTenant } from "../helpers/direct";
import { routes } from "../helpers/routes";
import { shardNames } from "../../src/platform/core/shards";

const WARNING = '199 - "dates changed on an ACTIVE operation"';

describe("create and read", () => {
  it("creates in DRAFT with 201, Location, ETag and the full representation", async () => {
    const op = await newTenant();
    const body = operationBody({
      code: "SPRING-27",
      externalId: "ext-1",
      description: { en: "Seasonal" },
      ownerIds: ["u_42", "u_7", "u_42"],
      startDate: "2027-03-01T00:00:00Z",
      endDate: "2027-04-30T23:59:59.999+02:00",
    });
    const res = await callRoute(op, routes.createOperation, { body });
    const created = expectStatus(res, 201);
    expect(created.id).toMatch(/^op_[0-9A-Z]{26}$/);
    expect(res.headers.get("location")).toBe(`/v1/operations/${created.id}`);
    expect(res.headers.get("etag")).toBe('"1"');
    expect(created).toMatchObject({
      code: "SPRING-27",
      externalId: "ext-1",
      name: { en: "Spring 2027", fr: "Printemps 2027" },
      description: { en: "Seasonal" },
      type: "PRIVATE",
      status: "DRAFT",
      // Dates are normalized to UTC, to the second.
      startDate: "2027-03-01T00:00:00Z",
      endDate: "2027-04-30T21:59:59Z",
      ownerIds: ["u_42", "u_7"],
      lineCount: 0,
      accountCount: 0,
      version: 1,
    });
    expect(Date.parse(created.createdAt)).not.toBeNaN();
    expect(created.updatedAt).toBe(created.createdAt);

    const read = await call(op, "GET", res.headers.get("location")!);
    expect(expectStatus(read, 200)).toEqual(created);
    expect(read.headers.get("etag")).toBe('"1"');

    const minimal = await createOperation(op, { externalId: undefined });
    expect(minimal.externalId).toBeNull();
    expect(minimal.description).toEqual({});
    expect(minimal.ownerIds).toEqual([]);
  });

  it("smoke: create, read, list, patch, refuse activation without lines, delete", async () => {
    const op = await newTenant();
    const created = await createOperation(op);
    expect(created.status).toBe("DRAFT");
    const read = await callRoute(op, routes.getOperation, { params: { operationId: created.id } });
    expectStatus(read, 200);
    expect(read.headers.get("etag")).toBe('"1"');
    const list = await callRoute(op, routes.listOperations);
    expect(list.body.items.map((o) => o.id)).toEqual([created.id]);
    const patched = await callRoute(op, routes.patchOperation, { params: { operationId: created.id }, body: { name: { de: "Frühling" } } });
    expectStatus(patched, 200);
    expect(patched.body.name).toEqual({ en: "Spring 2027", fr: "Printemps 2027", de: "Frühling" });
    expectProblem(await callRoute(op, routes.changeStatus, { params: { operationId: created.id }, body: { status: "ACTIVE" } }), 409, "invalid_transition");
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: created.id } }), 204);
    expectProblem(await callRoute(op, routes.getOperation, { params: { operationId: created.id } }), 404, "not_found");
  });
});

describe("status transitions", () => {
  async function inStatus(op: Caller, status: "DRAFT" | "ACTIVE" | "INACTIVE") {
    const created = await createOperation(op);
    await addLineDirectly(op.tenantId, created.id);
    if (status === "DRAFT") return created;
    if (status === "ACTIVE") return expectStatus(await setStatus(op, created.id, "ACTIVE"), 200);
    return expectStatus(await setStatus(op, created.id, "INACTIVE"), 200);
  }

  const allowed: [string, string][] = [
    ["DRAFT", "ACTIVE"],
    ["DRAFT", "INACTIVE"],
    ["ACTIVE", "INACTIVE"],
    ["ACTIVE", "DRAFT"],
    ["INACTIVE", "ACTIVE"],
    ["INACTIVE", "DRAFT"],
  ];
  const refused: [string, string][] = [
    ["DRAFT", "DRAFT"],
    ["ACTIVE", "ACTIVE"],
    ["INACTIVE", "INACTIVE"],
  ];

  it("allows each listed transition: 200, new status, version bump, ETag, one status_changed event", async () => {
    const op = await newTenant();
    for (const [from, to] of allowed) {
      const target = await inStatus(op, from as never);
      expect(target.status).toBe(from);
      const lastEvent = (await eventsOf(op)).at(-1);
      const res = await setStatus(op, target.id, to);
      const changed = expectStatus(res, 200);
      expect(changed.status).toBe(to);
      expect(changed.version).toBe(target.version + 1);
      expect(res.headers.get("etag")).toBe(`"${changed.version}"`);
      expect(changed.updatedAt >= target.updatedAt).toBe(true);
      const newEvents = await eventsOf(op, { after: lastEvent?.id });
      expect(newEvents.map((e) => [e.type, e.operationId, e.data])).toEqual([["operation.status_changed", target.id, { from, to }]]);
    }
  });

  it("refuses a change to the current status with 409 invalid_transition, changing nothing", async () => {
    const op = await newTenant();
    for (const [from, to] of refused) {
      const target = await inStatus(op, from as never);
      const before = await snapshotTenant(op.tenantId);
      const problem = expectProblem(await setStatus(op, target.id, to), 409, "invalid_transition");
      expect(problem.detail).toBeTruthy();
      expect(await snapshotTenant(op.tenantId)).toEqual(before);
    }
  });

  it("needs at least one line for DRAFT → ACTIVE, whatever the dates", async () => {
    const op = await newTenant();
    const target = await createOperation(op, { startDate: "2001-01-01T00:00:00Z", endDate: "2001-01-02T00:00:00Z" });
    const before = await snapshotTenant(op.tenantId);
    expectProblem(await setStatus(op, target.id, "ACTIVE"), 409, "invalid_transition");
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    await addLineDirectly(op.tenantId, target.id);
    // Past dates do not matter for the transition.
    const active = expectStatus(await setStatus(op, target.id, "ACTIVE"), 200);
    expect(active.lineCount).toBe(1);

    const future = await createOperation(op, { startDate: "2999-01-01T00:00:00Z", endDate: "2999-01-02T00:00:00Z" });
    await addLineDirectly(op.tenantId, future.id);
    expectStatus(await setStatus(op, future.id, "ACTIVE"), 200);
  });

  it("needs at least one line for every transition into ACTIVE, also DRAFT → INACTIVE → ACTIVE", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    expectStatus(await setStatus(op, target.id, "INACTIVE"), 200);
    const before = await snapshotTenant(op.tenantId);
    const problem = expectProblem(await setStatus(op, target.id, "ACTIVE"), 409, "invalid_transition");
    expect(problem).toMatchObject({ from: "INACTIVE", to: "ACTIVE" });
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    expect((await readOperation(op, target.id)).status).toBe("INACTIVE");
  });

  it("activates once a line is added through the lines API, and refuses again when the last line is removed in DRAFT", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    expectProblem(await setStatus(op, target.id, "ACTIVE"), 409, "invalid_transition");
    expectStatus(
      await callRoute(op, routes.putLines, { params: { operationId: target.id }, body: [{ variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 5 }] }),
      200,
    );
    expectStatus(await callRoute(op, routes.deleteLines, { params: { operationId: target.id }, body: ["SKU-1"] }), 200);
    expectProblem(await setStatus(op, target.id, "ACTIVE"), 409, "invalid_transition");
    expectStatus(
      await callRoute(op, routes.putLines, { params: { operationId: target.id }, body: [{ variantExternalId: "SKU-2", minQuantity: 1, maxQuantity: 5 }] }),
      200,
    );
    const active = expectStatus(await setStatus(op, target.id, "ACTIVE"), 200);
    expect(active.lineCount).toBe(1);
    expect(active.status).toBe("ACTIVE");
  });

  it("refuses ACTIVE/INACTIVE → DRAFT while a cart or an order is linked", async () => {
    const op = await newTenant();
    for (const from of ["ACTIVE", "INACTIVE"] as const) {
      for (const links of [{ carts: 1 }, { orders: 2 }]) {
        const target = await inStatus(op, from);
        await linkDirectly(target.id, links);
        const before = await snapshotTenant(op.tenantId);
        expectProblem(await setStatus(op, target.id, "DRAFT"), 409, "invalid_transition");
        expect(await snapshotTenant(op.tenantId)).toEqual(before);
        // The other transitions stay open.
        expectStatus(await setStatus(op, target.id, from === "ACTIVE" ? "INACTIVE" : "ACTIVE"), 200);
      }
    }
  });
});

describe("ETag, If-Match and versions", () => {
  it("bumps the version on every change and honours If-Match on PATCH, status and DELETE", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    await addLineDirectly(op.tenantId, target.id);

    const patched = await callRoute(op, routes.patchOperation, {
      params: { operationId: target.id },
      body: { code: "NEW-CODE" },
      headers: { "If-Match": '"1"' },
    });
    expect(expectStatus(patched, 200).version).toBe(2);
    expect(patched.headers.get("etag")).toBe('"2"');

    const before = await snapshotTenant(op.tenantId);
    for (const res of [
      await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { code: "OTHER" }, headers: { "If-Match": '"1"' } }),
      await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "ACTIVE" }, headers: { "If-Match": '"1"' } }),
      await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: { "If-Match": '"1"' } }),
      await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: { "If-Match": '"3"' } }),
      await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: { "If-Match": "garbage" } }),
    ]) {
      expectProblem(res, 412, "version_mismatch");
    }
    expect(await snapshotTenant(op.tenantId)).toEqual(before);

    const activated = await callRoute(op, routes.changeStatus, {
      params: { operationId: target.id },
      body: { status: "ACTIVE" },
      headers: { "If-Match": '"2"' },
    });
    expect(expectStatus(activated, 200).version).toBe(3);
    expect(activated.headers.get("etag")).toBe('"3"');
    // A list of tags matches when one of them is current; * always matches.
    const listed = await callRoute(op, routes.patchOperation, {
      params: { operationId: target.id },
      body: { externalId: "e" },
      headers: { "If-Match": '"1", "3"' },
    });
    expect(expectStatus(listed, 200).version).toBe(4);
    expect(
      expectStatus(
        await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { externalId: null }, headers: { "If-Match": "*" } }),
        200,
      ).version,
    ).toBe(5);
    // Without If-Match the change applies to whatever is current.
    expect(expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { ownerIds: ["u1"] } }), 200).version).toBe(6);
    const read = await callRoute(op, routes.getOperation, { params: { operationId: target.id } });
    expect(read.headers.get("etag")).toBe('"6"');

    expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: { "If-Match": '"5"' } }), 412, "version_mismatch");
    expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 200);
    const deleted = await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: { "If-Match": '"6"' } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expectProblem(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 404, "not_found");
  });

  it("answers 404 before 412: a stale If-Match on an unknown id is not_found", async () => {
    const op = await newTenant();
    expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: "op_unknown" }, headers: { "If-Match": '"9"' } }), 404, "not_found");
  });

  it("serializes concurrent changes: none is lost, versions increase by one each", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { name: { [`l${String.fromCharCode(97 + i)}`]: `v${i}` } } }),
      ),
    );
    const versions = results.map((r) => expectStatus(r, 200).version).sort((a, b) => a - b);
    expect(versions).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const read = expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 200);
    expect(Object.keys(read.name)).toHaveLength(2 + 8);
    // Only one of several concurrent changes holding the same If-Match wins.
    const raced = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { externalId: `x${i}` }, headers: { "If-Match": '"9"' } }),
      ),
    );
    expect(raced.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of raced.filter((r) => r.status !== 200)) expectProblem(r, 412, "version_mismatch");
  });
});

describe("PATCH", () => {
  it("merges localized maps by locale (null removes) and replaces the other fields", async () => {
    const op = await newTenant();
    const target = await createOperation(op, {
      name: { en: "Spring", fr: "Printemps", de: "Frühling" },
      description: { en: "Old", fr: "Ancien" },
      ownerIds: ["u1", "u2"],
      externalId: "ext-1",
    });
    const res = await callRoute(op, routes.patchOperation, {
      params: { operationId: target.id },
      body: {
        name: { fr: null, de: "Lenz", it: "Primavera" },
        description: { en: null },
        ownerIds: ["u3"],
        externalId: null,
        code: "RENAMED",
      },
    });
    const patched = expectStatus(res, 200);
    expect(patched.name).toEqual({ en: "Spring", de: "Lenz", it: "Primavera" });
    expect(patched.description).toEqual({ fr: "Ancien" });
    expect(patched.ownerIds).toEqual(["u3"]);
    expect(patched.externalId).toBeNull();
    expect(patched.code).toBe("RENAMED");
    expect(patched.version).toBe(2);
    expect(res.headers.get("warning")).toBeNull();
    expect(expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 200)).toEqual(patched);

    // The replaced owners drive the ownerIds filter.
    const byOldOwner = expectStatus(await callRoute(op, routes.listOperations, { query: { ownerIds: "u1" } }), 200);
    expect(byOldOwner.items).toEqual([]);
    const byNewOwner = expectStatus(await callRoute(op, routes.listOperations, { query: { ownerIds: "u3" } }), 200);
    expect(byNewOwner.items.map((o) => o.id)).toEqual([target.id]);
    // The renamed name drives the name filter.
    expect(expectStatus(await callRoute(op, routes.listOperations, { query: { name: "printemps" } }), 200).items).toEqual([]);
    expect(expectStatus(await callRoute(op, routes.listOperations, { query: { name: "LENZ" } }), 200).items).toHaveLength(1);
  });

  it("changes type only in DRAFT (keeping the same type is not a change of type)", async () => {
    const op = await newTenant();
    const draft = await createOperation(op, { type: "PRIVATE" });
    expect(expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: draft.id }, body: { type: "PUBLIC" } }), 200).type).toBe("PUBLIC");
    for (const status of ["ACTIVE", "INACTIVE"]) {
      const target = await createOperation(op, { type: "PRIVATE" });
      await addLineDirectly(op.tenantId, target.id);
      expectStatus(await setStatus(op, target.id, status), 200);
      expectProblem(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { type: "PUBLIC" } }), 409, "operation_not_draft");
      const same = expectStatus(
        await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { type: "PRIVATE", code: `${target.code}-b` } }),
        200,
      );
      expect(same.type).toBe("PRIVATE");
      // Back in DRAFT the type may change again.
      expectStatus(await setStatus(op, target.id, "DRAFT"), 200);
      expect(expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { type: "PUBLIC" } }), 200).type).toBe(
        "PUBLIC",
      );
    }
  });

  it("changes every other field in any state", async () => {
    const op = await newTenant();
    for (const status of ["ACTIVE", "INACTIVE"]) {
      const target = await createOperation(op);
      await addLineDirectly(op.tenantId, target.id);
      expectStatus(await setStatus(op, target.id, status), 200);
      const patched = expectStatus(
        await callRoute(op, routes.patchOperation, {
          params: { operationId: target.id },
          body: { name: { en: "N" }, description: { en: "D" }, code: `${target.code}-2`, externalId: "x", ownerIds: ["o"] },
        }),
        200,
      );
      expect(patched).toMatchObject({ status, code: `${target.code}-2`, externalId: "x", ownerIds: ["o"], description: { en: "D" } });
    }
  });

  it("sends the Warning header when the dates of an ACTIVE Operation change, and only then", async () => {
    const op = await newTenant();
    const active = await activeOperation(op);

    const moved = await callRoute(op, routes.patchOperation, { params: { operationId: active.id }, body: { endDate: "2027-05-31T23:59:59Z" } });
    expect(expectStatus(moved, 200).endDate).toBe("2027-05-31T23:59:59Z");
    expect(moved.headers.get("warning")).toBe(WARNING);
    const movedStart = await callRoute(op, routes.patchOperation, { params: { operationId: active.id }, body: { startDate: "2027-02-01T00:00:00Z" } });
    expect(movedStart.headers.get("warning")).toBe(WARNING);

    // Same dates again, or other fields: no warning.
    const sameDates = await callRoute(op, routes.patchOperation, {
      params: { operationId: active.id },
      body: { startDate: "2027-02-01T00:00:00Z", endDate: "2027-05-31T23:59:59Z" },
    });
    expectStatus(sameDates, 200);
    expect(sameDates.headers.get("warning")).toBeNull();
    const renamed = await callRoute(op, routes.patchOperation, { params: { operationId: active.id }, body: { name: { en: "Renamed" } } });
    expectStatus(renamed, 200);
    expect(renamed.headers.get("warning")).toBeNull();

    // Not ACTIVE: no warning.
    const draft = await createOperation(op);
    const draftMoved = await callRoute(op, routes.patchOperation, { params: { operationId: draft.id }, body: { endDate: "2027-06-30T00:00:00Z" } });
    expectStatus(draftMoved, 200);
    expect(draftMoved.headers.get("warning")).toBeNull();
    expectStatus(await setStatus(op, active.id, "INACTIVE"), 200);
    const inactiveMoved = await callRoute(op, routes.patchOperation, { params: { operationId: active.id }, body: { endDate: "2027-07-31T00:00:00Z" } });
    expectStatus(inactiveMoved, 200);
    expect(inactiveMoved.headers.get("warning")).toBeNull();
  });

  it("answers a patch that changes nothing like a read: same version, no event", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    const before = await eventsOf(op);
    for (const body of [{}, { code: target.code, name: { en: target.name.en }, type: target.type }]) {
      const response = await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body, headers: { "If-Match": '"1"' } });
      expectStatus(response, 200);
      expect(response.body.version).toBe(1);
      expect(response.headers.get("etag")).toBe('"1"');
    }
    expect(await eventsOf(op)).toEqual(before);
  });

  it("records what changed in the operation.updated event", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    const [created] = await eventsOf(op);
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { code: "C2", name: { it: "x" } } }), 200);
    const [updated] = await eventsOf(op, { after: created.id });
    expect(updated.type).toBe("operation.updated");
    expect(updated.operationId).toBe(target.id);
    expect([...(updated.data.changed as string[])].sort()).toEqual(["code", "name"]);
  });
});

describe("DELETE", () => {
  it("deletes the Operation with its lines, attachments and owners, and records operation.deleted", async () => {
    const op = await newTenant();
    const target = await createOperation(op, { ownerIds: ["u1"] });
    const keep = await createOperation(op, { ownerIds: ["u1"] });
    await addLineDirectly(op.tenantId, target.id);
    await addLineDirectly(op.tenantId, keep.id);
    await accountKeyAttachedTo(op.tenantId, [target.id, keep.id]);

    const res = await callRoute(op, routes.deleteOperation, { params: { operationId: target.id } });
    expect(res.status).toBe(204);
    expectProblem(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: target.id } }), 404, "not_found");
    expectProblem(await setStatus(op, target.id, "ACTIVE"), 404, "not_found");

    const snapshot = await snapshotTenant(op.tenantId);
    expect(snapshot.operations.map((o) => o.id)).toEqual([keep.id]);
    expect(snapshot.lines.map((l) => l.operation_id)).toEqual([keep.id]);
    expect(snapshot.attachments.map((a) => a.operation_id)).toEqual([keep.id]);
    expect(snapshot.owners.map((o) => o.operation_id)).toEqual([keep.id]);
    const deleted = (await eventsOf(op)).filter((e) => e.type === "operation.deleted");
    expect(deleted).toHaveLength(1);
    expect(deleted[0].operationId).toBe(target.id);
    // The code is free again.
    await createOperation(op, { code: target.code });
  });

  it("refuses 409 operation_has_links while a cart or order is linked, suggesting INACTIVE", async () => {
    const op = await newTenant();
    for (const links of [{ carts: 1 }, { orders: 1 }]) {
      const target = await activeOperation(op);
      await linkDirectly(target.id, links);
      const before = await snapshotTenant(op.tenantId);
      const problem = expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: target.id } }), 409, "operation_has_links");
      expect(problem.detail).toMatch(/INACTIVE/);
      expect(await snapshotTenant(op.tenantId)).toEqual(before);
    }
  });

  it("checks state before content: a linked Operation with a stale If-Match answers 412 first", async () => {
    const op = await newTenant();
    const target = await activeOperation(op);
    await linkDirectly(target.id, { carts: 1 });
    expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: { "If-Match": '"1"' } }), 412, "version_mismatch");
  });
});

describe("storage", () => {
  it("keeps one row per Operation and never writes other tenants' rows", async () => {
    const op = await newTenant();
    const other = await newTenant();
    const otherBefore = await snapshotTenant(other.tenantId);
    const target = await createOperation(op);
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { code: "Z" } }), 200);
    // One row on all the shards together (on the tenant's shard: the other shards hold none).
    let rows = 0;
    for (const shard of shardNames(env)) {
      const { results } = await env[shard].prepare("select count(*) as n from operations where id = ?").bind(target.id).all<{ n: number }>();
      rows += results[0].n;
    }
    expect(rows).toBe(1);
    expect(await snapshotTenant(other.tenantId)).toEqual(otherBefore);
  });
});
