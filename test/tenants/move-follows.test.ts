// What follows a tenant to its new shard besides its rows as the API lists them: its change history
// (versions, revert, the tenant-wide history) and the rule cache of the Worker instances that served
// it. Elsewhere: pending schedules (test/operations/schedule-recovery.test.ts), the webhook outbox
// (test/webhooks/webhooks.test.ts), Idempotency-Key records (test/tenants/move.test.ts).
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { callRoute, collectPages, createOperation, expectStatus, newTenant } from "../helpers/client";
import { moveReaches, moveTenant, startMove } from "../helpers/moves";
import { routes } from "../helpers/routes";
import { putAccounts } from "../helpers/setup";

const line = (variantExternalId: string, maxQuantity: number) => ({ variantExternalId, minQuantity: 0, maxQuantity });

describe("a moved tenant's history", () => {
  it("keeps every version, record and difference; a revert to a version made before the move works after it, and numbering goes on", async () => {
    const op = await newTenant({ shard: "SHARD_1" });
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 10), line("B", 20)] }), 200);
    const early = expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version;
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 5), line("C", 1)] }), 200);
    expectStatus(await callRoute(op, routes.patchOperation, { params, body: { name: { en: "Before the move" } } }), 200);
    const last = expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version;
    const history = async () => ({
      tenant: (await collectPages(op, routes.listHistory, { query: { limit: 100 } })).items,
      operation: (await collectPages(op, routes.listOperationHistory, { params, query: { limit: 100 } })).items,
      early: expectStatus(await callRoute(op, routes.getOperationVersion, { params: { ...params, version: String(early) } }), 200),
      diff: expectStatus(await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(early) } }), 200),
    });
    const before = await history();
    expect(before.operation.length).toBeGreaterThanOrEqual(3);

    await moveTenant(op, "SHARD_2");
    expect(await history()).toEqual(before);
    const reverted = expectStatus(await callRoute(op, routes.revertOperation, { params, body: { toVersion: early } }), 200);
    expect(reverted.version).toBe(last + 1);
    const lines = (await collectPages(op, routes.listLines, { params })).items.map((item) => [item.variantExternalId, item.maxQuantity]);
    expect(lines).toEqual([
      ["A", 10],
      ["B", 20],
    ]);
    const after = (await collectPages(op, routes.listOperationHistory, { params, query: { limit: 100 } })).items;
    expect(after.length).toBeGreaterThan(before.operation.length);
    expect(after).toEqual(expect.arrayContaining(before.operation));
    // The records are on the new shard only: the old copy is gone with the rest of the tenant's rows.
    const records = (shard: "SHARD_1" | "SHARD_2") =>
      env[shard].prepare("select count(*) as n from change_sets where tenant_id = ?").bind(op.tenantId).first<number>("n");
    expect(await records("SHARD_1")).toBe(0);
    expect(await records("SHARD_2")).toBe(new Set(after.map((item) => item.version)).size);
  });
});

describe("the rule cache of an instance that served the tenant before its move", () => {
  it("is not trusted after the switch, however fresh: the first evaluation reads the rules on the new shard", async () => {
    const op = await newTenant({ shard: "SHARD_1" });
    await putAccounts(op, [{ accountId: "ACC-1" }]);
    const rule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "ACC-1", minimum: 100 } }), 201);
    const evaluate = async () =>
      expectStatus(
        await callRoute(op, routes.evaluateQuotas, { body: { orders: [{ accountId: "ACC-1", supplierId: null, storeId: null, amount: 150 }] } }),
        200,
      ).results[0];
    expect(await evaluate()).toMatchObject({ allowed: true, effectiveMinimum: 100 });
    const cachedAt = Date.now();

    await moveReaches(op, (await startMove(op, "SHARD_2")).id, ["SWITCHED"]);
    // Another instance raised the minimum on the new shard since (its version bumped there only), and
    // this instance's clock says its cached head was checked a moment ago: what it knows is of SHARD_1.
    await env.SHARD_2.batch([
      env.SHARD_2.prepare("update quota_rules set minimum = 200 where id = ?").bind(rule.id),
      env.SHARD_2.prepare("update tenants set rules_version = rules_version + 1 where id = ?").bind(op.tenantId),
    ]);
    const clock = vi.spyOn(Date, "now").mockReturnValue(cachedAt + 10);
    try {
      expect(await evaluate()).toMatchObject({ allowed: false, effectiveMinimum: 200 });
    } finally {
      clock.mockRestore();
    }
  });
});
