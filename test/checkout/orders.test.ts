import { describe, expect, it } from "vitest";
import { type Caller, callRoute, collectPages, eventsOf, expectProblem, expectStatus, newTenant } from "../helpers/client";
import { snapshotTenant } from "../helpers/direct";
import { accountWithKey, cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { routes } from "../helpers/routes";

async function rule(op: Caller, body: Record<string, unknown>) {
  return expectStatus(await callRoute(op, routes.createRule, { body }), 201);
}

describe("POST /v1/orders", () => {
  it("places an order directly from a cart body: 201, linked, readable, recorded", async () => {
    const op = await newTenant();
    await putAccounts(op, [{ accountId: "A1" }]);
    const operation = await setUpOperation(op, { attach: ["A1"] });
    const res = await callRoute(op, routes.createOrder, {
      body: cartBody(operation.id, "A1", [line("SKU-A", 4, 150, "S1"), line("SKU-C", 1, 99)]),
      headers: { "svc-store": "st_1" },
    });
    const order = expectStatus(res, 201);
    expect(res.headers.get("location")).toBe(`/v1/orders/${order.id}`);
    expect(order).toMatchObject({ operationId: operation.id, accountId: "A1", cartId: null, storeId: "st_1", total: 4 * 150 + 99 });
    expect(order.id).toMatch(/^ord_/);
    expect(expectStatus(await callRoute(op, routes.getOrder, { params: { orderId: order.id } }), 200)).toEqual(order);
    const events = expectStatus(await callRoute(op, routes.listEvents, { query: { types: "order.created" } }), 200).items;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ operationId: operation.id, data: { orderId: order.id, accountId: "A1", total: 699 } });
  });

  it("orders a cart once: { cartId } copies the cart, a second time is 409 cart_already_ordered", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const cart = expectStatus(
      await callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", [line("SKU-B", 3, 500, "S1")], { storeId: "st_c" }) }),
      201,
    );
    const order = expectStatus(await callRoute(op, routes.createOrder, { body: { cartId: cart.id } }), 201);
    expect(order).toMatchObject({ cartId: cart.id, accountId: "A1", storeId: "st_c", lines: cart.lines, total: 1500, operationId: operation.id });
    const again = expectProblem(await callRoute(op, routes.createOrder, { body: { cartId: cart.id } }), 409, "cart_already_ordered");
    expect(again.orderId).toBe(order.id);
    expect((await snapshotTenant(op.tenantId)).orders).toHaveLength(1);
  });

  it("places one order when the same cart is ordered concurrently", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const cart = expectStatus(await callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) }), 201);
    const results = await Promise.all(Array.from({ length: 6 }, () => callRoute(op, routes.createOrder, { body: { cartId: cart.id } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) expectProblem(res, 409, "cart_already_ordered");
    const problem = expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 409, "operation_has_links");
    expect(problem).toMatchObject({ linkedCarts: 1, linkedOrders: 1 });
  });

  it("answers 404 for an unknown cart, another tenant's cart or another user's cart", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    const stranger = await accountWithKey(op);
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const cart = expectStatus(await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, buyer.accountId, [line("SKU-A", 1)]) }), 201);
    expectProblem(await callRoute(op, routes.createOrder, { body: { cartId: "cart_nope" } }), 404, "not_found");
    expectProblem(await callRoute(await newTenant(), routes.createOrder, { body: { cartId: cart.id } }), 404, "not_found");
    expectProblem(await callRoute(stranger.caller, routes.createOrder, { body: { cartId: cart.id } }), 404, "not_found");
    expectStatus(await callRoute(buyer.caller, routes.createOrder, { body: { cartId: cart.id } }), 201);
  });

  it("validates the body: { cartId } alone, or a full cart body", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const mixed = expectProblem(await callRoute(op, routes.createOrder, { body: { cartId: "cart_1", operationId: operation.id } }), 400, "validation_failed");
    expect(mixed.errors?.[0].code).toBe("unrecognized_keys");
    const badLine = expectProblem(
      await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 0.5)]) }),
      400,
      "validation_failed",
    );
    expect(badLine.errors).toEqual([expect.objectContaining({ field: "body.lines.0.quantity" })]);
    expectProblem(
      await callRoute(op, routes.createOrder, {
        body: cartBody(
          operation.id,
          "A1",
          Array.from({ length: 5001 }, (_, i) => line(`S${i}`, 1)),
        ),
      }),
      413,
      "batch_too_large",
    );
  });

  it("runs the cart checks: 404, 409 not open, 403 not attached, 422 lines, 403 not permitted", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    await putAccounts(op, [{ accountId: "A-NOT-MINE" }]);
    const closed = await setUpOperation(op, { status: "INACTIVE", attach: [buyer.accountId] });
    const open = await setUpOperation(op, { attach: [buyer.accountId, "A-NOT-MINE"] });
    const post = (caller: Caller, body: unknown) => callRoute(caller, routes.createOrder, { body });
    expectProblem(await post(op, cartBody("op_none", "A1", [line("SKU-A", 1)])), 404, "not_found");
    expectProblem(await post(op, cartBody(closed.id, buyer.accountId, [line("SKU-A", 1)])), 409, "operation_not_open");
    expectProblem(await post(op, cartBody(open.id, "A-UNATTACHED", [line("SKU-A", 1)])), 403, "account_not_attached");
    expectProblem(await post(op, cartBody(open.id, buyer.accountId, [line("SKU-B", 9)])), 422, "order_lines_invalid");
    expectProblem(await post(buyer.caller, cartBody(open.id, "A-NOT-MINE", [line("SKU-A", 1)])), 403, "account_not_permitted");
    expect((await snapshotTenant(op.tenantId)).orders).toEqual([]);
  });

  it("evaluates quotas per supplier: one supplier below its minimum blocks the whole order, results list each", async () => {
    const op = await newTenant();
    await putAccounts(op, [{ accountId: "A1" }]);
    const ops = await setUpOperation(op, {
      attach: ["A1"],
      lines: ["SKU-A", "SKU-B", "SKU-C", "SKU-D"].map((variantExternalId) => ({ variantExternalId, minQuantity: 0, maxQuantity: 10 })),
    });
    const s1 = await rule(op, { supplierId: "S1", minimum: 10_000 });
    await rule(op, { supplierId: "S2", minimum: 500 });
    const a1s2 = await rule(op, { accountId: "A1", supplierId: "S2", minimum: 800 });
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 50 } }), 200);
    const before = await snapshotTenant(op.tenantId);
    const lines = [
      line("SKU-A", 2, 2500, "S1"), // S1: 5000 < 10000
      line("SKU-B", 2, 300, "S2"), // S2: 600 + 300 = 900 ≥ 800 (account+supplier beats supplier-only's 500)
      line("SKU-C", 1, 40), // no supplier: 40 < default 50
      line("SKU-D", 1, 300, "S2"),
    ];
    const blocked = await callRoute(op, routes.createOrder, { body: cartBody(ops.id, "A1", lines), headers: { "svc-store": "st_1" } });
    const problem = expectProblem(blocked, 422, "quota_min_not_met");
    expect(problem.results).toEqual([
      {
        allowed: false,
        reason: "quota_min_not_met",
        effectiveMinimum: 10_000,
        amount: 5000,
        shortfall: 5000,
        source: { kind: "SUPPLIER", ruleId: s1.id },
        enforcement: "BLOCK",
      },
      {
        allowed: true,
        reason: null,
        effectiveMinimum: 800,
        amount: 900,
        shortfall: 0,
        source: { kind: "ACCOUNT_SUPPLIER", ruleId: a1s2.id },
        enforcement: "BLOCK",
      },
      {
        allowed: false,
        reason: "quota_min_not_met",
        effectiveMinimum: 50,
        amount: 40,
        shortfall: 10,
        source: { kind: "DEFAULT", ruleId: null },
        enforcement: "BLOCK",
      },
    ]);
    expect(problem.orders).toEqual([
      { accountId: "A1", supplierId: "S1", storeId: "st_1", amount: 5000 },
      { accountId: "A1", supplierId: "S2", storeId: "st_1", amount: 900 },
      { accountId: "A1", supplierId: null, storeId: "st_1", amount: 40 },
    ]);
    // The same orders through evaluate give the same results.
    const evaluated = expectStatus(await callRoute(op, routes.evaluateQuotas, { body: { orders: problem.orders } }), 200);
    expect(evaluated.results).toEqual(problem.results);

    // Nothing created or linked; only the order.blocked event is new.
    const after = await snapshotTenant(op.tenantId);
    expect(after.orders).toEqual([]);
    expect(after.operations.find((o) => o.id === ops.id)).toMatchObject({ order_count: 0 });
    const blockedEvents = expectStatus(await callRoute(op, routes.listEvents, { query: { types: "order.blocked" } }), 200).items;
    expect(blockedEvents).toHaveLength(1);
    expect(blockedEvents[0]).toMatchObject({ operationId: ops.id, data: { accountId: "A1", results: problem.results } });
    expect(before.orders).toEqual([]);

    // Raising S1 and the unsupplied lines over their minimums lets the order through.
    const enough = [line("SKU-A", 4, 2500, "S1"), line("SKU-B", 2, 300, "S2"), line("SKU-C", 1, 50), line("SKU-D", 1, 300, "S2")];
    const order = expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(ops.id, "A1", enough), headers: { "svc-store": "st_1" } }), 201);
    expect(order.total).toBe(10_000 + 600 + 50 + 300);
  });

  it("evaluates with the order's storeId: body, else the cart's, else svc-store", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    await rule(op, { supplierId: "S1", storeId: "st_strict", minimum: 1_000_000 });
    const body = cartBody(operation.id, "A1", [line("SKU-A", 1, 100, "S1")]);
    expectProblem(await callRoute(op, routes.createOrder, { body, headers: { "svc-store": "st_strict" } }), 422, "quota_min_not_met");
    expectStatus(await callRoute(op, routes.createOrder, { body, headers: { "svc-store": "st_other" } }), 201);
    expectProblem(
      await callRoute(op, routes.createOrder, { body: { ...body, storeId: "st_strict" }, headers: { "svc-store": "st_other" } }),
      422,
      "quota_min_not_met",
    );
    const cart = expectStatus(await callRoute(op, routes.createCart, { body, headers: { "svc-store": "st_strict" } }), 201);
    expectProblem(await callRoute(op, routes.createOrder, { body: { cartId: cart.id }, headers: { "svc-store": "st_other" } }), 422, "quota_min_not_met");
  });

  it("answers 422 order_lines_invalid before quota_min_not_met, and the quota before account_not_permitted", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    await putAccounts(op, [{ accountId: "A-NOT-MINE" }]);
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 1_000_000 } }), 200);
    expectProblem(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-X", 1, 1)]) }), 422, "order_lines_invalid");
    expectProblem(
      await callRoute(buyer.caller, routes.createOrder, { body: cartBody(operation.id, "A-NOT-MINE", [line("SKU-A", 1, 1)]) }),
      422,
      "quota_min_not_met",
    );
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 0 } }), 200);
    expectProblem(
      await callRoute(buyer.caller, routes.createOrder, { body: cartBody(operation.id, "A-NOT-MINE", [line("SKU-A", 1, 1)]) }),
      403,
      "account_not_permitted",
    );
    expect((await eventsOf(op)).map((event) => event.type)).not.toContain("order.created");
  });
});

describe("GET /v1/orders/{id} and GET /v1/operations/{id}/orders", () => {
  it("lists an Operation's orders newest first, paginated, filtered by account; ACCOUNT keys see their own", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const placed: string[] = [];
    for (let i = 0; i < 5; i++) {
      const accountId = i % 2 ? buyer.accountId : "A-OTHER";
      placed.push(expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, accountId, [line("SKU-A", 1 + i)]) }), 201).id);
    }
    const all = await collectPages(op, routes.listOrders, { params: { operationId: operation.id }, query: { limit: 2 } });
    expect(all.pages).toBe(3);
    expect(all.items.map((o) => o.id)).toEqual([...placed].reverse());
    const oldestFirst = await collectPages(op, routes.listOrders, { params: { operationId: operation.id }, query: { limit: 2, sort: "createdAt" } });
    expect(oldestFirst.items.map((o) => o.id)).toEqual(placed);
    const filtered = await collectPages(op, routes.listOrders, { params: { operationId: operation.id }, query: { accountIds: buyer.accountId } });
    expect(filtered.items.map((o) => o.id)).toEqual([placed[3], placed[1]]);
    const own = await collectPages(buyer.caller, routes.listOrders, { params: { operationId: operation.id } });
    expect(own.items.map((o) => o.id)).toEqual([placed[3], placed[1]]);
    expectStatus(await callRoute(buyer.caller, routes.getOrder, { params: { orderId: placed[1] } }), 200);
    expectProblem(await callRoute(buyer.caller, routes.getOrder, { params: { orderId: placed[0] } }), 404, "not_found");

    const first = expectStatus(await callRoute(op, routes.listOrders, { params: { operationId: operation.id }, query: { limit: 2 } }), 200);
    expectProblem(
      await callRoute(op, routes.listOrders, { params: { operationId: operation.id }, query: { limit: 2, accountIds: "A-OTHER", nextToken: first.nextToken } }),
      400,
      "invalid_next_token",
    );
    expectProblem(await callRoute(op, routes.listOrders, { params: { operationId: operation.id }, query: { sort: "total" } }), 400, "validation_failed");
  });

  it("answers 404 for another tenant's order or Operation", async () => {
    const op = await newTenant();
    const other = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const order = expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]) }), 201);
    expectProblem(await callRoute(other, routes.getOrder, { params: { orderId: order.id } }), 404, "not_found");
    expectProblem(await callRoute(other, routes.listOrders, { params: { operationId: operation.id } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.getOrder, { params: { orderId: "ord_unknown" } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.listOrders, { params: { operationId: "op_unknown" } }), 404, "not_found");
    const hiddenFromBuyer = await setUpOperation(op);
    const buyer = await accountWithKey(op);
    expectProblem(await callRoute(buyer.caller, routes.listOrders, { params: { operationId: hiddenFromBuyer.id } }), 404, "not_found");
  });
});
