import { env } from "cloudflare:test";
import { operationStub } from "../../src/operations/coordinator/runner";
import { describe, expect, it } from "vitest";
import { call, callRoute, expectProblem, expectStatus, newTenant } from "../helpers/client";
import { accountWithKey, cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { createCart } from "../../src/checkout/commands";
import { routes } from "../helpers/routes";
import { shardOf, tenantDb } from "../helpers/shards";

const status = (operationId: string, to: string) => ({ path: `/v1/operations/${operationId}/status`, body: { status: to } });

describe("links between an Operation and its carts and orders", () => {
  it("refuses DELETE while linked, with the counts and a hint to set INACTIVE; still refused once INACTIVE", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    for (let i = 0; i < 2; i++) expectStatus(await callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) }), 201);
    expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) }), 201);
    const problem = expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 409, "operation_has_links");
    expect(problem).toMatchObject({ linkedCarts: 2, linkedOrders: 1 });
    expect(problem.detail).toMatch(/INACTIVE/);
    const inactive = status(operation.id, "INACTIVE");
    expectStatus(await call(op, "POST", inactive.path, { body: inactive.body }), 200);
    expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 409, "operation_has_links");
    expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: operation.id } }), 200);
  });

  it("refuses ACTIVE→DRAFT and INACTIVE→DRAFT while a cart or order is linked", async () => {
    const op = await newTenant();
    const withCart = await setUpOperation(op, { type: "PUBLIC" });
    expectStatus(await callRoute(op, routes.createCart, { body: cartBody(withCart.id, "A1", [line("SKU-A", 1)]) }), 201);
    const toDraft = status(withCart.id, "DRAFT");
    expectProblem(await call(op, "POST", toDraft.path, { body: toDraft.body }), 409, "invalid_transition");
    const toInactive = status(withCart.id, "INACTIVE");
    expectStatus(await call(op, "POST", toInactive.path, { body: toInactive.body }), 200);
    expectProblem(await call(op, "POST", toDraft.path, { body: toDraft.body }), 409, "invalid_transition");

    const withOrder = await setUpOperation(op, { type: "PUBLIC" });
    expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(withOrder.id, "A1", [line("SKU-A", 1)]) }), 201);
    const orderToDraft = status(withOrder.id, "DRAFT");
    expectProblem(await call(op, "POST", orderToDraft.path, { body: orderToDraft.body }), 409, "invalid_transition");

    // Without links the same transition is allowed.
    const unlinked = await setUpOperation(op, { type: "PUBLIC" });
    const unlinkedToDraft = status(unlinked.id, "DRAFT");
    expectStatus(await call(op, "POST", unlinkedToDraft.path, { body: unlinkedToDraft.body }), 200);
  });

  it("does not bump the Operation's version: an admin's If-Match stays valid through checkout traffic", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const read = await callRoute(op, routes.getOperation, { params: { operationId: operation.id } });
    const etag = read.headers.get("etag")!;
    expectStatus(await callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) }), 201);
    expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) }), 201);
    const after = await callRoute(op, routes.getOperation, { params: { operationId: operation.id } });
    expect(after.headers.get("etag")).toBe(etag);
    expect(after.body.updatedAt).toBe(read.body.updatedAt);
    expectStatus(
      await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { name: { de: "Frühling" } }, headers: { "If-Match": etag } }),
      200,
    );
  });

  it("never lets a DELETE succeed together with a cart: concurrent carts and a delete in flight", async () => {
    for (let round = 0; round < 4; round++) {
      const op = await newTenant();
      const operation = await setUpOperation(op, { type: "PUBLIC" });
      const postCart = () => callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) });
      // Even rounds send the delete first, odd rounds in the middle of the burst.
      const early = round % 2 === 0 ? [] : Array.from({ length: 6 }, postCart);
      const deletion = callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } });
      const late = Array.from({ length: round % 2 === 0 ? 12 : 6 }, postCart);
      const [deleted, ...created] = await Promise.all([deletion, ...early, ...late]);
      const createdCount = created.filter((r) => r.status === 201).length;
      for (const res of created) expect([201, 404]).toContain(res.status);
      const rows = await (await tenantDb(op.tenantId))
        .prepare("select count(*) as n from carts where operation_id = ?")
        .bind(operation.id)
        .first<{ n: number }>();
      expect(rows!.n).toBe(createdCount);
      if (deleted.status === 204) {
        expect(createdCount).toBe(0);
        expectProblem(await callRoute(op, routes.getOperation, { params: { operationId: operation.id } }), 404, "not_found");
      } else {
        const problem = expectProblem(deleted, 409, "operation_has_links");
        expect(createdCount).toBeGreaterThan(0);
        expect(problem.linkedCarts).toBeGreaterThan(0);
        // No increment lost: the counter equals the carts linked.
        const again = expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 409, "operation_has_links");
        expect(again.linkedCarts).toBe(createdCount);
      }
    }
  });

  it("counts every concurrent link exactly once", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) })),
      ...Array.from({ length: 6 }, () => callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) })),
    ]);
    for (const res of results) expectStatus(res, 201);
    const problem = expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 409, "operation_has_links");
    expect(problem).toMatchObject({ linkedCarts: 10, linkedOrders: 6 });
  });

  it("moves the account's operationStatus forward only: NOT_STARTED → CART_CREATED → ORDERED", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    await putAccounts(op, [{ accountId: "A-IDLE" }]);
    const operation = await setUpOperation(op, { attach: [buyer.accountId, "A-IDLE"] });
    const progress = async () => {
      const list = expectStatus(await callRoute(op, routes.listAttachments, { params: { operationId: operation.id } }), 200);
      return Object.fromEntries(list.items.map((a) => [a.accountId, a.operationStatus]));
    };
    expect(await progress()).toEqual({ [buyer.accountId]: "NOT_STARTED", "A-IDLE": "NOT_STARTED" });
    const cart = expectStatus(await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, buyer.accountId, [line("SKU-A", 1)]) }), 201);
    expect(await progress()).toEqual({ [buyer.accountId]: "CART_CREATED", "A-IDLE": "NOT_STARTED" });
    expectStatus(await callRoute(buyer.caller, routes.createOrder, { body: { cartId: cart.id } }), 201);
    expect(await progress()).toEqual({ [buyer.accountId]: "ORDERED", "A-IDLE": "NOT_STARTED" });
    expectStatus(await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, buyer.accountId, [line("SKU-A", 2)]) }), 201);
    expect(await progress()).toEqual({ [buyer.accountId]: "ORDERED", "A-IDLE": "NOT_STARTED" });
    const ordered = expectStatus(
      await callRoute(op, routes.listAttachments, { params: { operationId: operation.id }, query: { operationStatus: "ORDERED" } }),
      200,
    );
    expect(ordered.items.map((a) => a.accountId)).toEqual([buyer.accountId]);
  });

  it("refuses a link once the Operation is set INACTIVE, and accepts again once ACTIVE", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const body = { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) };
    expectStatus(await call(op, "POST", "/v1/carts", body), 201);
    const off = status(operation.id, "INACTIVE");
    expectStatus(await call(op, "POST", off.path, { body: off.body }), 200);
    expectProblem(await call(op, "POST", "/v1/carts", body), 409, "operation_not_open");
    expectProblem(await call(op, "POST", "/v1/orders", body), 409, "operation_not_open");
    const on = status(operation.id, "ACTIVE");
    expectStatus(await call(op, "POST", on.path, { body: on.body }), 200);
    expectStatus(await call(op, "POST", "/v1/orders", body), 201);
  });
});

describe("the placement re-check inside the Operation's Durable Object", () => {
  // Drives the command directly with a stale checked version, as if the Operation changed between
  // the Worker's checks and the link: the batch guard must refuse, and the answer must be what is true now.
  async function linkWithStaleVersion(tenantId: string, operationId: string, lines: ReturnType<typeof line>[]) {
    const principal = { tenantId, role: "OPERATOR" as const, userId: null, keyId: "key_test", tenantDefaultLocale: "en", shard: await shardOf(tenantId) };
    return operationStub(env, operationId).execute(
      principal,
      operationId,
      createCart.name,
      {
        checkedVersion: 0,
        placement: { operationId, accountId: "A1", storeId: null, cartId: null, lines: lines.map((l) => ({ ...l, supplierId: null })) },
      },
      { requestId: null, reason: null },
    );
  }

  it("re-checks against the current lines when the version moved, then links", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const refused = await linkWithStaleVersion(op.tenantId, operation.id, [line("SKU-B", 1)]);
    expect(refused).toMatchObject({ ok: false, problem: { code: "order_lines_invalid" } });
    const linked = await linkWithStaleVersion(op.tenantId, operation.id, [line("SKU-B", 2)]);
    expect(linked).toMatchObject({ ok: true, value: { operationId: operation.id, accountId: "A1" } });
    const problem = expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 409, "operation_has_links");
    expect(problem.linkedCarts).toBe(1);
  });

  it("answers 404 or 409 when the Operation is gone or closed by then", async () => {
    const op = await newTenant();
    const closed = await setUpOperation(op, { type: "PUBLIC", status: "INACTIVE" });
    expect(await linkWithStaleVersion(op.tenantId, closed.id, [line("SKU-A", 1)])).toMatchObject({
      ok: false,
      problem: { code: "operation_not_open" },
    });
    const gone = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: gone.id } }), 204);
    expect(await linkWithStaleVersion(op.tenantId, gone.id, [line("SKU-A", 1)])).toMatchObject({ ok: false, problem: { code: "not_found" } });
    const rows = await (await tenantDb(op.tenantId)).prepare("select count(*) as n from carts where tenant_id = ?").bind(op.tenantId).first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });
});
