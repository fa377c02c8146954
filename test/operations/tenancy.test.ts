import { describe, expect, it } from "vitest";
import { call, callRoute, collectPages, createOperation, eventsOf, expectProblem, expectStatus, newTenant, uniqueId } from "../helpers/client";
import { activeOperation, addLineDirectly, snapshotTenant } from "../helpers/direct";
import { routes } from "../helpers/routes";

describe("tenant isolation", () => {
  it("answers 404 on every Operation route for another tenant's id, changing nothing", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const draft = await createOperation(a, { externalId: uniqueId("ext") });
    await addLineDirectly(a.tenantId, draft.id);
    const active = await activeOperation(a);
    const before = await snapshotTenant(a.tenantId);
    for (const target of [draft, active]) {
      const path = `/v1/operations/${target.id}`;
      expectProblem(await callRoute(b, routes.getOperation, { params: { operationId: target.id } }), 404, "not_found");
      expectProblem(await callRoute(b, routes.patchOperation, { params: { operationId: target.id }, body: { name: { en: "taken over" } } }), 404, "not_found");
      expectProblem(
        await callRoute(b, routes.patchOperation, { params: { operationId: target.id }, body: { code: "X" }, headers: { "If-Match": `"${target.version}"` } }),
        404,
        "not_found",
      );
      for (const status of ["ACTIVE", "INACTIVE", "DRAFT"]) {
        expectProblem(await call(b, "POST", `${path}/status`, { body: { status } }), 404, "not_found");
      }
      expectProblem(await callRoute(b, routes.deleteOperation, { params: { operationId: target.id } }), 404, "not_found");
      expectProblem(
        await callRoute(b, routes.deleteOperation, { params: { operationId: target.id }, headers: { "If-Match": `"${target.version}"` } }),
        404,
        "not_found",
      );
    }
    expect(await snapshotTenant(a.tenantId)).toEqual(before);
    expect(await eventsOf(b)).toEqual([]);
  });

  it("never lists another tenant's Operations, whatever the filters", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const inA = await createOperation(a, { code: "SHARED-CODE", externalId: "shared-ext", name: { en: "Shared name" }, ownerIds: ["u1"] });
    const inB = await createOperation(b, { code: "SHARED-CODE", externalId: "shared-ext", name: { en: "Shared name" }, ownerIds: ["u1"] });
    const queries: Record<string, string>[] = [
      {},
      { ids: inA.id },
      { operationId: `${inA.id},${inB.id}` },
      { ids: "SHARED-CODE", idType: "code" },
      { ids: "shared-ext", idType: "externalId" },
      { name: "shared" },
      { ownerIds: "u1" },
      { status: "DRAFT,ACTIVE,INACTIVE" },
      { type: "PRIVATE" },
      { sort: "name,-code" },
    ];
    for (const query of queries) {
      const { items } = await collectPages(b, routes.listOperations, { query: { ...query, limit: 1 } });
      const ids = items.map((o) => o.id);
      expect(ids.includes(inA.id), JSON.stringify(query)).toBe(false);
    }
    const { items } = await collectPages(b, routes.listOperations, { query: { ids: `${inA.id},${inB.id}` } });
    expect(items.map((o) => o.id)).toEqual([inB.id]);
  });

  it("does not accept one tenant's nextToken in another", async () => {
    const a = await newTenant();
    const b = await newTenant();
    for (let i = 0; i < 3; i++) {
      await createOperation(a);
      await createOperation(b);
    }
    const pageOfA = expectStatus(await callRoute(a, routes.listOperations, { query: { limit: 1 } }), 200);
    expectProblem(await callRoute(b, routes.listOperations, { query: { limit: 1, nextToken: pageOfA.nextToken } }), 400, "invalid_next_token");
  });
});
