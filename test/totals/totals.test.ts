import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, callRoute, collectPages, eventsOf, expectProblem, expectStatus, newTenant, setStatus, uniqueId, type Caller } from "../helpers/client";
import { moveTenant, otherShard } from "../helpers/moves";
import { routes } from "../helpers/routes";
import { accountWithKey, cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { shardOf } from "../helpers/shards";
import { expectTotalsExact } from "./support";

const LINES = [
  { variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 50, recommendedQuantity: 10 },
  { variantExternalId: "SKU-B", minQuantity: 0, maxQuantity: 50, recommendedQuantity: 4 },
  { variantExternalId: "SKU-C", minQuantity: 0, maxQuantity: 50 },
];

async function campaign(op: Caller, accounts = ["A1", "A2", "A3"]) {
  await putAccounts(
    op,
    accounts.map((accountId) => ({ accountId, name: `Account ${accountId}` })),
  );
  const operation = await setUpOperation(op, { lines: LINES, attach: accounts });
  return { operation, params: { operationId: operation.id } };
}

const place = async (caller: Caller, operationId: string, accountId: string, lines: ReturnType<typeof line>[], headers: Record<string, string> = {}) =>
  expectStatus(await callRoute(caller, routes.createOrder, { body: cartBody(operationId, accountId, lines), headers }), 201);

describe("totals kept as orders are placed and cancelled", () => {
  it("lines, the Operation, its accounts and its days add up the PLACED orders; a cancellation takes its order back out", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    const first = await place(op, operation.id, "A1", [line("SKU-A", 6, 250), line("SKU-B", 2, 1000)]);
    await place(op, operation.id, "A1", [line("SKU-A", 4, 250)]);
    const third = await place(op, operation.id, "A2", [line("SKU-C", 10, 100)]);

    const lines = (await collectPages(op, routes.listLines, { params })).items;
    expect(lines.map((row) => [row.variantExternalId, row.orderedQuantity, row.orderCount])).toEqual([
      ["SKU-A", 10, 2],
      ["SKU-B", 2, 1],
      ["SKU-C", 10, 1],
    ]);
    expect(expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200)).toMatchObject({
      orders: 3,
      cancelled: 0,
      accounts: 2,
      amount: 6 * 250 + 2000 + 1000 + 1000,
      refusals: { quota: 0, allocation: 0 },
      lines: { ordered: 3, belowRecommended: 1, exhausted: 0 },
    });

    const cancelled = expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: first.id }, body: { reason: "Duplicate" } }), 200);
    expect(cancelled).toMatchObject({ id: first.id, status: "CANCELLED", cancelReason: "Duplicate", cancelledBy: expect.stringMatching(/^key:/) });
    expect(Date.parse(cancelled.cancelledAt!)).toBeGreaterThan(0);
    expect(expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200)).toMatchObject({
      orders: 2,
      cancelled: 1,
      accounts: 2,
      amount: 1000 + 1000,
      // SKU-A 4 of 10, SKU-B 0 of 4.
      lines: { ordered: 2, belowRecommended: 2 },
    });
    const sku = (await collectPages(op, routes.listLines, { params, query: { variantIds: "SKU-A,SKU-B" } })).items;
    expect(sku.map((row) => [row.orderedQuantity, row.orderCount])).toEqual([
      [4, 1],
      [0, 0],
    ]);

    // Attached accounts without a PLACED order: A3 (never ordered); A1 still has one.
    const notOrdered = (await collectPages(op, routes.listAccountTotals, { params, query: { ordered: "false" } })).items;
    expect(notOrdered.map((row) => [row.accountId, row.accountName, row.attached])).toEqual([["A3", "Account A3", true]]);
    const ordered = (await collectPages(op, routes.listAccountTotals, { params, query: { ordered: "true", sort: "-amount" } })).items;
    expect(ordered.map((row) => [row.accountId, row.orders, row.amount, row.cancelled])).toEqual([
      // A tie sorts by accountId, in the same direction.
      ["A2", 1, 1000, 0],
      ["A1", 1, 1000, 1],
    ]);
    expect(ordered[1].lastOrderAt).toBe(
      expectStatus(await callRoute(op, routes.listOrders, { params, query: { accountIds: "A1", limit: "1" } }), 200).items[0].placedAt,
    );

    const today = new Date().toISOString().slice(0, 10);
    const daily = expectStatus(await callRoute(op, routes.getDailyTotals, { params, query: { from: today, to: today } }), 200);
    expect(daily.items).toEqual([{ day: today, orders: 3, amount: 5500, cancellations: 1, cancelledAmount: 3500, refusals: { quota: 0, allocation: 0 } }]);
    expect(third.status).toBe("PLACED");
    await expectTotalsExact(op, operation.id);
  });

  it("counts a refused placement per Operation, account and day with its reason, as its order.blocked records it", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A2", minimum: 10_000 } }), 201);
    expectProblem(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A2", [line("SKU-A", 1, 100)]) }), 422, "quota_min_not_met");
    expectProblem(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A2", [line("SKU-A", 2, 100)]) }), 422, "quota_min_not_met");
    expect(expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200)).toMatchObject({ orders: 0, refusals: { quota: 2, allocation: 0 } });
    const a2 = (await collectPages(op, routes.listAccountTotals, { params, query: { accountIds: "A2" } })).items;
    expect(a2).toEqual([expect.objectContaining({ accountId: "A2", orders: 0, refusals: { quota: 2, allocation: 0 } })]);
    await expectTotalsExact(op, operation.id);
  });

  it("stay exact under a random run of concurrent placements, cancellations and keyed retries, and across a tenant move", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ place: fc.constantFrom("A1", "A2", "A3"), quantities: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 3, maxLength: 3 }) }),
            fc.record({ cancel: fc.nat() }),
            fc.record({ refuse: fc.constant(true) }),
          ),
          { minLength: 6, maxLength: 14 },
        ),
        async (steps) => {
          const op = await newTenant();
          const { operation } = await campaign(op, ["A1", "A2", "A3", "A4"]);
          expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A4", minimum: 1_000_000 } }), 201);
          const placed: string[] = [];
          // Every step twice at once under one Idempotency-Key (a client's retry racing its first try), all steps at once.
          const run = async (step: (typeof steps)[number], i: number) => {
            const key = `step-${i}-${uniqueId("k")}`;
            const twice = async (send: () => Promise<{ status: number; body: unknown }>) => (await Promise.all([send(), send()]))[0];
            if ("place" in step) {
              const lines = LINES.map((row, k) => line(row.variantExternalId, step.quantities[k], 100 + k)).filter((row) => row.quantity > 0);
              if (!lines.length) return;
              const answer = await twice(() =>
                callRoute(op, routes.createOrder, { body: cartBody(operation.id, step.place, lines), headers: { "Idempotency-Key": key } }),
              );
              if (answer.status === 201) placed.push((answer.body as { id: string }).id);
            } else if ("cancel" in step && placed.length) {
              const orderId = placed[step.cancel % placed.length];
              await twice(() => callRoute(op, routes.cancelOrder, { params: { orderId }, body: {}, headers: { "Idempotency-Key": key } }));
            } else if ("refuse" in step) {
              await twice(() =>
                callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A4", [line("SKU-A", 1, 1)]), headers: { "Idempotency-Key": key } }),
              );
            }
          };
          await Promise.all(steps.map(run));
          await expectTotalsExact(op, operation.id);
          const before = await expectTotalsExact(op, operation.id);
          await moveTenant(op, otherShard(await shardOf(op.tenantId)));
          const after = await expectTotalsExact(op, operation.id);
          expect(after.totals).toEqual(before.totals);
          // Orders go on counting where the tenant is now.
          await place(op, operation.id, "A3", [line("SKU-C", 1, 7)]);
          await expectTotalsExact(op, operation.id);
        },
      ),
      { numRuns: 3 },
    );
  });
});

describe("POST /v1/orders/{orderId}/cancel", () => {
  it("records the change and an order.cancelled event; a cancelled order answers 200 as it is, and stays linked", async () => {
    const op = await newTenant();
    const { operation } = await campaign(op);
    const order = await place(op, operation.id, "A1", [line("SKU-A", 3, 100)]);
    const body = { reason: "Customer asked" };
    const cancelled = expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: order.id }, body }), 200);
    const eventCount = (await eventsOf(op)).length;
    const again = expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: order.id }, body: { reason: "Other" } }), 200);
    expect(again).toEqual(cancelled);
    expect(await eventsOf(op)).toHaveLength(eventCount);
    const event = (await eventsOf(op)).find((row) => row.type === "order.cancelled")!;
    expect(event).toMatchObject({ operationId: operation.id, data: { orderId: order.id, accountId: "A1", total: 300, reason: "Customer asked" } });
    const history = (await collectPages(op, routes.listOperationHistory, { params: { operationId: operation.id }, query: { resourceType: "order" } })).items;
    expect(history.map((record) => [record.resourceId, record.action, record.changes])).toEqual([
      [
        order.id,
        "updated",
        [
          { field: "status", previous: "PLACED", next: "CANCELLED" },
          { field: "cancelledAt", previous: null, next: cancelled.cancelledAt },
          { field: "cancelReason", previous: null, next: "Customer asked" },
        ],
      ],
    ]);
    expect(expectStatus(await callRoute(op, routes.getOrder, { params: { orderId: order.id } }), 200)).toEqual(cancelled);
    expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id } }), 409, "operation_has_links");
  });

  it("an ACCOUNT key cancels its own accounts' orders while the Operation is ACTIVE and open: 409 otherwise, another's order 404", async () => {
    const op = await newTenant();
    const buyer = await accountWithKey(op, "A-BUY");
    const other = await accountWithKey(op, "A-OTHER");
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const mine = await place(buyer.caller, operation.id, buyer.accountId, [line("SKU-A", 1)]);
    const theirs = await place(other.caller, operation.id, other.accountId, [line("SKU-A", 1)]);
    expectProblem(await callRoute(buyer.caller, routes.cancelOrder, { params: { orderId: theirs.id }, body: {} }), 404, "not_found");
    expectStatus(await setStatus(op, operation.id, "INACTIVE"), 200);
    const closed = expectProblem(await callRoute(buyer.caller, routes.cancelOrder, { params: { orderId: mine.id }, body: {} }), 409, "operation_not_open");
    expect(closed.operationStatus).toBe("INACTIVE");
    // The platform's staff cancel in any status.
    expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: theirs.id }, body: {} }), 200);
    expectStatus(await setStatus(op, operation.id, "ACTIVE"), 200);
    expect(expectStatus(await callRoute(buyer.caller, routes.cancelOrder, { params: { orderId: mine.id }, body: {} }), 200).status).toBe("CANCELLED");
    // Another tenant's order is not found, and changes nothing.
    const stranger = await newTenant();
    const kept = await place(op, operation.id, "A-X", [line("SKU-B", 2)]);
    expectProblem(await callRoute(stranger, routes.cancelOrder, { params: { orderId: kept.id }, body: {} }), 404, "not_found");
    expect(expectStatus(await callRoute(op, routes.getOrder, { params: { orderId: kept.id } }), 200).status).toBe("PLACED");
  });

  it("refuses a reason over 500 characters or with control characters, and unknown fields, with 400, changing nothing", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    const order = await place(op, operation.id, "A1", [line("SKU-A", 1)]);
    for (const body of [{ reason: "x".repeat(501) }, { reason: "bell\u0007" }, { reason: 5 }, { why: "no" }]) {
      expectProblem(await callRoute(op, routes.cancelOrder, { params: { orderId: order.id }, body: body as never }), 400, "validation_failed");
    }
    expect(expectStatus(await callRoute(op, routes.getOrder, { params: { orderId: order.id } }), 200).status).toBe("PLACED");
    expect(expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200).orders).toBe(1);
  });
});

describe("GET /v1/operations/{operationId}/orders", () => {
  it("filters by status, account, time and variant, sorts by amount and account, and exports CSV", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    const small = await place(op, operation.id, "A2", [line("SKU-A", 1, 100)]);
    const big = await place(op, operation.id, "A1", [line("SKU-B", 2, 5000), line("SKU-C", 1, 10)]);
    const middle = await place(op, operation.id, "A3", [line("SKU-C", 5, 100)]);
    expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: middle.id }, body: { reason: '=HYPERLINK("x")' } }), 200);
    const ids = async (query: Record<string, string>) => (await collectPages(op, routes.listOrders, { params, query })).items.map((order) => order.id);
    expect(await ids({})).toEqual([middle.id, big.id, small.id]);
    expect(await ids({ status: "PLACED" })).toEqual([big.id, small.id]);
    expect(await ids({ status: "CANCELLED" })).toEqual([middle.id]);
    expect(await ids({ variantExternalId: "SKU-C" })).toEqual([middle.id, big.id]);
    expect(await ids({ sort: "-amount" })).toEqual([big.id, middle.id, small.id]);
    expect(await ids({ sort: "accountId" })).toEqual([big.id, small.id, middle.id]);
    // Bounds are to the second, both included.
    expect(await ids({ from: big.placedAt, to: big.placedAt, status: "PLACED" })).toEqual(
      big.placedAt.slice(0, 19) === small.placedAt.slice(0, 19) ? [big.id, small.id] : [big.id],
    );
    expect(await ids({ to: "2020-01-01T00:00:00Z" })).toEqual([]);
    expect(await ids({ from: "2099-01-01T00:00:00Z" })).toEqual([]);
    expectProblem(await callRoute(op, routes.listOrders, { params, query: { status: "OPEN" } }), 400, "validation_failed");
    expectProblem(
      await callRoute(op, routes.listOrders, { params, query: { from: "2027-01-02T00:00:00Z", to: "2027-01-01T00:00:00Z" } }),
      400,
      "validation_failed",
    );
    const csv = await call(op, "GET", `/v1/operations/${operation.id}/orders?sort=placedAt`, { headers: { accept: "text/csv" } });
    const rows = csv.text.trim().split(/\r?\n/);
    expect(rows[0]).toBe("id,placedAt,accountId,status,amount,lineCount,storeId,cartId,cancelledAt,cancelReason");
    expect(rows.slice(1).map((row) => row.split(",").slice(0, 1)[0])).toEqual([small.id, big.id, middle.id]);
    expect(rows[3]).toContain(`'=HYPERLINK(""x"")`);
  });
});

describe("lines' order figures", () => {
  it("filter and sort like the other numbers; with asOf they are refused (a past version has none)", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    await place(op, operation.id, "A1", [line("SKU-A", 7), line("SKU-B", 1)]);
    await place(op, operation.id, "A2", [line("SKU-A", 2)]);
    const skus = async (query: Record<string, string>) =>
      (await collectPages(op, routes.listLines, { params, query })).items.map((row) => row.variantExternalId);
    expect(await skus({ "orderedQuantity[gte]": "2" })).toEqual(["SKU-A"]);
    expect(await skus({ orderedQuantity: "0" })).toEqual(["SKU-C"]);
    expect(await skus({ "orderCount[lte]": "1", sort: "-orderedQuantity" })).toEqual(["SKU-B", "SKU-C"]);
    expect(await skus({ sort: "-orderCount,variantExternalId" })).toEqual(["SKU-A", "SKU-B", "SKU-C"]);
    expectProblem(await callRoute(op, routes.listLines, { params, query: { "orderedQuantity[gte]": "-1" } }), 400, "validation_failed");
    const asOf = expectProblem(await callRoute(op, routes.listLines, { params, query: { asOf: "1", sort: "orderedQuantity" } }), 400, "validation_failed");
    expect(asOf.errors?.[0]).toMatchObject({ field: "query.sort", code: "not_with_as_of" });
    const past = expectStatus(await callRoute(op, routes.listLines, { params, query: { asOf: String(operation.version + 1) } }), 200).items;
    expect(past[0]).not.toHaveProperty("orderedQuantity");
    // A storefront neither sees, filters nor sorts by what other buyers ordered.
    const buyer = await accountWithKey(op, "A1");
    const front = expectStatus(await callRoute(buyer.caller, routes.listFrontLines, { params }), 200).items;
    expect(front[0]).not.toHaveProperty("orderedQuantity");
    for (const query of [{ "orderedQuantity[gte]": "1" }, { sort: "-orderedQuantity" }, { orderCount: "1" }]) {
      expectProblem(await callRoute(buyer.caller, routes.listFrontLines, { params, query }), 400, "validation_failed");
    }
  });
});

describe("the totals routes", () => {
  it("are the OPERATOR's; another tenant's Operation is 404; days are checked", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    const buyer = await accountWithKey(op);
    for (const route of [routes.getOperationTotals, routes.listAccountTotals, routes.getDailyTotals] as const) {
      expectProblem(await callRoute(buyer.caller, route, { params }), 403, "forbidden");
      expectProblem(await callRoute(await newTenant(), route, { params }), 404, "not_found");
    }
    for (const query of [{ from: "2027-02-30" }, { from: "2027-01-01", to: "2026-01-01" }, { from: "2025-01-01", to: "2027-01-01" }, { to: "yesterday" }]) {
      expectProblem(await callRoute(op, routes.getDailyTotals, { params, query }), 400, "validation_failed");
    }
    const thirty = expectStatus(await callRoute(op, routes.getDailyTotals, { params }), 200);
    expect(thirty.items).toHaveLength(30);
    expect(thirty.to).toBe(new Date().toISOString().slice(0, 10));
    expect(operation.id).toMatch(/^op_/);
  });
});
