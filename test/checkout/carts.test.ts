import { describe, expect, it } from "vitest";
import { call, callRoute, eventsOf, expectProblem, expectStatus, issueKey, newTenant } from "../helpers/client";
import { servedDocument, type OpenApiSchema } from "../helpers/openapi";
import { snapshotTenant } from "../helpers/direct";
import { accountWithKey, cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { routes } from "../helpers/routes";

describe("POST /v1/carts", () => {
  it("creates a cart linked to the Operation, readable by id, recorded as cart.created", async () => {
    const op = await newTenant();
    await putAccounts(op, [{ accountId: "A1" }]);
    const operation = await setUpOperation(op, { attach: ["A1"] });
    const res = await callRoute(op, routes.createCart, {
      body: cartBody(operation.id, "A1", [line("SKU-A", 3, 250, "S1"), line("SKU-B", 2, 1000)]),
      headers: { "svc-store": "st_9" },
    });
    const cart = expectStatus(res, 201);
    expect(res.headers.get("location")).toBe(`/v1/carts/${cart.id}`);
    expect(cart).toMatchObject({
      operationId: operation.id,
      accountId: "A1",
      storeId: "st_9",
      total: 3 * 250 + 2 * 1000,
      lines: [
        { variantExternalId: "SKU-A", quantity: 3, unitPrice: 250, supplierId: "S1" },
        { variantExternalId: "SKU-B", quantity: 2, unitPrice: 1000, supplierId: null },
      ],
    });
    expect(cart.id).toMatch(/^cart_/);
    expect(cart.createdBy).toMatch(/^key:/);
    expect(expectStatus(await callRoute(op, routes.getCart, { params: { cartId: cart.id } }), 200)).toEqual(cart);
    expect((await eventsOf(op)).map((event) => event.type)).toContain("cart.created");
  });

  it("takes storeId from the body over svc-store", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const cart = expectStatus(
      await callRoute(op, routes.createCart, {
        body: cartBody(operation.id, "A1", [line("SKU-A", 1)], { storeId: "st_body" }),
        headers: { "svc-store": "st_header" },
      }),
      201,
    );
    expect(cart.storeId).toBe("st_body");
  });

  it("answers 404 for an unknown, deleted, other tenant's or invisible Operation, and changes nothing", async () => {
    const op = await newTenant();
    const other = await newTenant();
    const foreign = await setUpOperation(other, { type: "PUBLIC" });
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody("op_nope", "A1", [line("SKU-A", 1)]) }), 404, "not_found");
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody(foreign.id, "A1", [line("SKU-A", 1)]) }), 404, "not_found");

    const deleted = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    expectStatus(await callRoute(op, routes.deleteOperation, { params: { operationId: deleted.id } }), 204);
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody(deleted.id, "A1", [line("SKU-A", 1)]) }), 404, "not_found");

    // An ACCOUNT key whose accounts are not attached to a PRIVATE Operation cannot see it at all.
    const buyer = await accountWithKey(op);
    const hidden = await setUpOperation(op);
    const before = await snapshotTenant(op.tenantId);
    expectProblem(await callRoute(buyer.caller, routes.createCart, { body: cartBody(hidden.id, buyer.accountId, [line("SKU-A", 1)]) }), 404, "not_found");
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    expect((await snapshotTenant(other.tenantId)).carts).toEqual([]);
  });

  it("answers 409 operation_not_open unless ACTIVE and open now", async () => {
    const op = await newTenant();
    const body = (id: string) => ({ body: cartBody(id, "A1", [line("SKU-A", 1)]) });
    const draft = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    const inactive = await setUpOperation(op, { type: "PUBLIC", status: "INACTIVE" });
    const future = await setUpOperation(op, { type: "PUBLIC", overrides: { startDate: "2098-01-01T00:00:00Z", endDate: "2099-01-01T00:00:00Z" } });
    const past = await setUpOperation(op, { type: "PUBLIC", overrides: { startDate: "2020-01-01T00:00:00Z", endDate: "2021-01-01T00:00:00Z" } });
    for (const operation of [draft, inactive, future, past]) {
      expectProblem(await call(op, "POST", "/v1/carts", body(operation.id)), 409, "operation_not_open");
    }
    // Closing an ACTIVE Operation by moving its end date shuts it at once.
    const open = await setUpOperation(op, { type: "PUBLIC" });
    expectStatus(await call(op, "POST", "/v1/carts", body(open.id)), 201);
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: open.id }, body: { endDate: "2021-06-01T00:00:00Z" } }), 200);
    expectProblem(await call(op, "POST", "/v1/carts", body(open.id)), 409, "operation_not_open");
  });

  it("answers 403 account_not_attached on a PRIVATE Operation, for OPERATOR and ACCOUNT keys", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    // The same user also belongs to a second account, which is not attached.
    await putAccounts(op, [{ accountId: "A-OTHER", users: [{ userId: buyer.userId, email: `${buyer.userId}@example.test` }] }]);
    const operation = await setUpOperation(op, { attach: [buyer.accountId] });
    const before = await snapshotTenant(op.tenantId);
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody(operation.id, "A-OTHER", [line("SKU-A", 1)]) }), 403, "account_not_attached");
    expectProblem(
      await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, "A-OTHER", [line("SKU-A", 1)]) }),
      403,
      "account_not_attached",
    );
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    expectStatus(await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, buyer.accountId, [line("SKU-A", 1)]) }), 201);
  });

  it("answers 422 order_lines_invalid listing every bad line by index, and creates nothing", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const before = await snapshotTenant(op.tenantId);
    const res = await callRoute(op, routes.createCart, {
      body: cartBody(operation.id, "A1", [
        line("SKU-A", 10), // max 10: fine
        line("SKU-B", 1), // min 2
        line("SKU-X", 1), // not a line
        line("SKU-C", 101), // max 100
        line("SKU-B2", 0), // not a line either
      ]),
    });
    const problem = expectProblem(res, 422, "order_lines_invalid");
    expect(problem.errors?.map((e) => [e.index, e.variantExternalId, e.code])).toEqual([
      [1, "SKU-B", "below_min"],
      [2, "SKU-X", "not_in_operation"],
      [3, "SKU-C", "above_max"],
      [4, "SKU-B2", "not_in_operation"],
    ]);
    expect(problem.errors?.[0]).toMatchObject({ quantity: 1, minQuantity: 2, maxQuantity: 5, field: "body.lines.1.quantity" });
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
  });

  it("answers 403 account_not_permitted to an ACCOUNT key buying for someone else's account, after the 422 checks", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    await putAccounts(op, [{ accountId: "A-NOT-MINE" }]);
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const before = await snapshotTenant(op.tenantId);
    expectProblem(
      await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, "A-NOT-MINE", [line("SKU-A", 1)]) }),
      403,
      "account_not_permitted",
    );
    // Content problems answer first (API.md §2: 422 before 403 account_not_permitted).
    expectProblem(
      await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, "A-NOT-MINE", [line("SKU-X", 1)]) }),
      422,
      "order_lines_invalid",
    );
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    expectStatus(await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, buyer.accountId, [line("SKU-A", 1)]) }), 201);
  });

  it("checks in order: 404, then 409 state, then 403 attachment, then 422 lines", async () => {
    const op = await newTenant();
    await putAccounts(op, [{ accountId: "A1" }]);
    const inactive = await setUpOperation(op, { status: "INACTIVE", attach: ["A1"] });
    const active = await setUpOperation(op, { attach: ["A1"] });
    const bad = [line("SKU-X", 1)];
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody(inactive.id, "A-UNATTACHED", bad) }), 409, "operation_not_open");
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody(active.id, "A-UNATTACHED", bad) }), 403, "account_not_attached");
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody(active.id, "A1", bad) }), 422, "order_lines_invalid");
    // Shape before existence: a malformed body for an unknown Operation is 400.
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody("op_nope", "A1", [line("SKU-A", -1)]) }), 400, "validation_failed");
  });

  it("answers 400 validation_failed for malformed bodies and 413 above 5000 lines", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const post = (body: unknown) => callRoute(op, routes.createCart, { body });
    const bodies: unknown[] = [
      cartBody(operation.id, "A1", [line("SKU-A", 1.5)]),
      cartBody(operation.id, "A1", [line("SKU-A", -1)]),
      cartBody(operation.id, "A1", [line("SKU-A", 2_147_483_648)]),
      cartBody(operation.id, "A1", [line("SKU-A", 1, 9_007_199_254_740_992)]),
      cartBody(operation.id, "A1", [line("SKU-A", 1, -5)]),
      cartBody(operation.id, "A1", [line("SKU-A", "1" as unknown as number)]),
      cartBody(operation.id, "A1", []),
      cartBody(operation.id, "", [line("SKU-A", 1)]),
      { ...cartBody(operation.id, "A1", [line("SKU-A", 1)]), extra: true },
      { accountId: "A1", lines: [line("SKU-A", 1)] },
      // Each product fits, the total does not: 2^53−1 caps amounts.
      cartBody(operation.id, "A1", [line("SKU-A", 1_000_000, 5_000_000_000), line("SKU-C", 1_000_000, 5_000_000_000)]),
    ];
    for (const body of bodies) expectProblem(await post(body), 400, "validation_failed");
    const duplicate = expectProblem(await post(cartBody(operation.id, "A1", [line("SKU-A", 1), line("SKU-A", 2)])), 400, "validation_failed");
    expect(duplicate.errors).toEqual([expect.objectContaining({ field: "body.lines.1.variantExternalId", code: "duplicate_key" })]);
    const overflow = expectProblem(
      await post(cartBody(operation.id, "A1", [line("SKU-A", 1_000_000, 5_000_000_000), line("SKU-C", 1_000_000, 5_000_000_000)])),
      400,
      "validation_failed",
    );
    expect(overflow.errors).toEqual([expect.objectContaining({ field: "body.lines", code: "amount_too_large" })]);
    expectProblem(await call(op, "POST", "/v1/carts", { rawBody: "{not json" }), 400, "validation_failed");

    const tooMany = Array.from({ length: 5001 }, (_, i) => line(`SKU-${i}`, 1));
    expectProblem(await post(cartBody(operation.id, "A1", tooMany)), 413, "batch_too_large");
    expect((await snapshotTenant(op.tenantId)).carts).toEqual([]);
  });

  it("accepts 5000 lines, validated in one statement", async () => {
    const op = await newTenant();
    const lines = Array.from({ length: 5000 }, (_, i) => ({ variantExternalId: `SKU-${i}`, minQuantity: 1, maxQuantity: 10 }));
    const operation = await setUpOperation(op, { type: "PUBLIC", lines });
    const cart = expectStatus(
      await callRoute(op, routes.createCart, {
        body: cartBody(
          operation.id,
          "A1",
          lines.map((l, i) => line(l.variantExternalId, 1 + (i % 10), 7)),
        ),
      }),
      201,
    );
    expect(cart.lines).toHaveLength(5000);
    const bad = lines.map((l, i) => line(l.variantExternalId, i % 1000 === 0 ? 11 : 1));
    const problem = expectProblem(await callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", bad) }), 422, "order_lines_invalid");
    expect(problem.errors?.map((e) => e.index)).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it("replays an Idempotency-Key instead of creating a second cart", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const request = { body: cartBody(operation.id, "A1", [line("SKU-A", 1)]), headers: { "Idempotency-Key": "cart-once" } };
    const first = expectStatus(await callRoute(op, routes.createCart, request), 201);
    const again = await callRoute(op, routes.createCart, request);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.id);
    expect((await snapshotTenant(op.tenantId)).carts).toHaveLength(1);
  });
});

describe("GET /v1/carts/{id}", () => {
  it("answers 404 to other tenants and to ACCOUNT keys of other users", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op);
    const stranger = await accountWithKey(op);
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const cart = expectStatus(await callRoute(buyer.caller, routes.createCart, { body: cartBody(operation.id, buyer.accountId, [line("SKU-A", 1)]) }), 201);
    expect(cart.createdBy).toBe(`user:${buyer.userId}`);
    expectStatus(await callRoute(buyer.caller, routes.getCart, { params: { cartId: cart.id } }), 200);
    expectStatus(await callRoute(op, routes.getCart, { params: { cartId: cart.id } }), 200);
    expectProblem(await callRoute(stranger.caller, routes.getCart, { params: { cartId: cart.id } }), 404, "not_found");
    const other = await newTenant();
    expectProblem(await callRoute(other, routes.getCart, { params: { cartId: cart.id } }), 404, "not_found");
    expectProblem(await callRoute(await issueKey(other.tenantId, "ACCOUNT", buyer.userId), routes.getCart, { params: { cartId: cart.id } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.getCart, { params: { cartId: "cart_unknown" } }), 404, "not_found");
  });
});

describe("OpenAPI document", () => {
  it("documents the cart, order, compare and front routes, with both order body shapes", async () => {
    const doc = await servedDocument();
    for (const [path, method] of [
      ["/v1/carts", "post"],
      ["/v1/carts/{cartId}", "get"],
      ["/v1/orders", "post"],
      ["/v1/orders/{orderId}", "get"],
      ["/v1/operations/{operationId}/orders", "get"],
      ["/v1/operations/{operationId}/compare", "post"],
      ["/v1/front/operations", "get"],
      ["/v1/front/operations/{operationId}", "get"],
      ["/v1/front/operations/{operationId}/lines", "get"],
    ]) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeTruthy();
    }
    const component = (schema: OpenApiSchema | undefined) => doc.components.schemas[schema?.$ref?.split("/").pop() ?? ""];
    const orderSchema = component(doc.paths["/v1/orders"].post.requestBody.content["application/json"].schema);
    expect(orderSchema.oneOf).toHaveLength(2);
    expect(component(orderSchema.oneOf?.[0]).required).toEqual(["cartId"]);
    expect(component(orderSchema.oneOf?.[1]).required).toEqual(expect.arrayContaining(["operationId", "accountId", "lines"]));
    expect(Object.keys(doc.paths["/v1/orders"].post.responses)).toEqual(expect.arrayContaining(["201", "403", "404", "409", "413", "422"]));
  });
});
