import { describe, expect, it } from "vitest";
import {
  call,
  callRoute,
  collectPages,
  eventsOf,
  expectProblem,
  expectStatus,
  issueKey,
  newTenant,
  readOperation,
  setStatus,
  type Caller,
} from "../helpers/client";
import { moveTenant, otherShard } from "../helpers/moves";
import { routes } from "../helpers/routes";
import { shardOf } from "../helpers/shards";
import { accountWithKey, cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { expectTotalsExact } from "../totals/support";

const LINES = [
  { variantExternalId: "JACKET", minQuantity: 0, maxQuantity: 100 },
  { variantExternalId: "PACKED", minQuantity: 0, maxQuantity: 60, quantityIncrement: 6 },
  { variantExternalId: "PLAIN", minQuantity: 0, maxQuantity: 100 },
];

async function campaign(op: Caller, accounts = ["A1", "A2", "A3"]) {
  await putAccounts(
    op,
    accounts.map((accountId) => ({ accountId, name: `Account ${accountId}` })),
  );
  const operation = await setUpOperation(op, { lines: LINES, attach: accounts });
  return { operation, params: { operationId: operation.id } };
}

const allocate = async (op: Caller, operationId: string, body: unknown, headers: Record<string, string> = {}) =>
  expectStatus(await callRoute(op, routes.setAllocations, { params: { operationId }, body: body as never, headers }), 200);
const order = (caller: Caller, operationId: string, accountId: string, lines: ReturnType<typeof line>[]) =>
  callRoute(caller, routes.createOrder, { body: cartBody(operationId, accountId, lines) });
const lineOf = async (op: Caller, operationId: string, variantExternalId: string) =>
  (await collectPages(op, routes.listLines, { params: { operationId }, query: { variantIds: variantExternalId } })).items[0];

describe("PUT /v1/operations/{operationId}/allocations", () => {
  it("sets pools and caps while ACTIVE, one version, recorded; lines carry them with what is left", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    const before = await readOperation(op, operation.id);
    const answer = await allocate(op, operation.id, [{ variantExternalId: "JACKET", poolQuantity: 50, maxPerAccount: 20 }, { variantExternalId: "PLAIN" }], {
      "If-Match": `"${before.version}"`,
    });
    expect(answer).toEqual({ updated: 1, unchanged: 1 });
    const after = await readOperation(op, operation.id);
    expect(after).toMatchObject({ status: "ACTIVE", version: before.version + 1 });
    expect(await lineOf(op, operation.id, "JACKET")).toMatchObject({ poolQuantity: 50, maxPerAccount: 20, poolRemaining: 50, orderedQuantity: 0 });
    expect(await lineOf(op, operation.id, "PLAIN")).toMatchObject({ poolQuantity: null, maxPerAccount: null, poolRemaining: null });
    // The same again: no version, no event.
    expect(await allocate(op, operation.id, [{ variantExternalId: "JACKET", poolQuantity: 50 }])).toEqual({ updated: 0, unchanged: 1 });
    expect((await readOperation(op, operation.id)).version).toBe(after.version);
    const event = (await eventsOf(op)).filter((row) => row.type === "allocation.updated");
    expect(event).toEqual([expect.objectContaining({ operationId: operation.id, data: { lines: 1 } })]);
    const records = (await collectPages(op, routes.listOperationHistory, { params, query: { resourceType: "allocation" } })).items;
    expect(records.map((record) => [record.resourceId, record.changes])).toEqual([
      [
        "JACKET",
        [
          { field: "poolQuantity", previous: null, next: 50 },
          { field: "maxPerAccount", previous: null, next: 20 },
        ],
      ],
    ]);
    // Stale If-Match, a dry run, unknown lines, bad values, an ACCOUNT key.
    expectProblem(
      await callRoute(op, routes.setAllocations, {
        params,
        body: [{ variantExternalId: "JACKET", poolQuantity: 1 }],
        headers: { "If-Match": `"${before.version}"` },
      }),
      412,
      "version_mismatch",
    );
    const dry = await callRoute(op, routes.setAllocations, { params, query: { dryRun: "true" }, body: [{ variantExternalId: "JACKET", poolQuantity: 40 }] });
    expect(expectStatus(dry, 200)).toEqual({ updated: 1, unchanged: 0 });
    expect((await lineOf(op, operation.id, "JACKET")).poolQuantity).toBe(50);
    const unknown = expectProblem(
      await callRoute(op, routes.setAllocations, {
        params,
        body: [
          { variantExternalId: "NOPE", poolQuantity: 1 },
          { variantExternalId: "JACKET", poolQuantity: 1 },
        ],
      }),
      422,
      "unknown_variants",
    );
    expect(unknown.unknownVariantExternalIds).toEqual(["NOPE"]);
    for (const body of [
      [{ variantExternalId: "JACKET", poolQuantity: -1 }],
      [{ variantExternalId: "JACKET", poolQuantity: 1.5 }],
      [{ variantExternalId: "JACKET", maxPerAccount: 0 }],
      [],
    ]) {
      expectProblem(await callRoute(op, routes.setAllocations, { params, body: body as never }), 400, "validation_failed");
    }
    const buyer = await accountWithKey(op);
    expectProblem(await callRoute(buyer.caller, routes.setAllocations, { params, body: [{ variantExternalId: "JACKET", poolQuantity: 1 }] }), 403, "forbidden");
    expect((await lineOf(op, operation.id, "JACKET")).poolQuantity).toBe(50);
  });

  it("refuses a pool or a cap below what is already ordered with 409 allocation_below_ordered, changing nothing", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    expectStatus(await order(op, operation.id, "A1", [line("JACKET", 30)]), 201);
    const pool = expectProblem(
      await callRoute(op, routes.setAllocations, { params, body: [{ variantExternalId: "JACKET", poolQuantity: 29 }] }),
      409,
      "allocation_below_ordered",
    );
    expect(pool.lines).toEqual([{ variantExternalId: "JACKET", field: "poolQuantity", value: 29, ordered: 30 }]);
    expectProblem(
      await callRoute(op, routes.setAllocations, { params, body: [{ variantExternalId: "JACKET", maxPerAccount: 10 }] }),
      409,
      "allocation_below_ordered",
    );
    expectProblem(
      await callRoute(op, routes.setAccountCaps, { params, body: [{ variantExternalId: "JACKET", accountId: "A1", maxQuantity: 5 }] }),
      409,
      "allocation_below_ordered",
    );
    // A1 having a cap of its own, maxPerAccount below its orders is fine: its own cap applies to it.
    expectStatus(await callRoute(op, routes.setAccountCaps, { params, body: [{ variantExternalId: "JACKET", accountId: "A1", maxQuantity: 40 }] }), 200);
    expect(await allocate(op, operation.id, [{ variantExternalId: "JACKET", poolQuantity: 30, maxPerAccount: 10 }])).toEqual({ updated: 1, unchanged: 0 });
    expect(await lineOf(op, operation.id, "JACKET")).toMatchObject({ poolQuantity: 30, maxPerAccount: 10, poolRemaining: 0 });
  });
});

describe("placing orders against pools and caps", () => {
  it("refuses, whole, an order beyond what is left (409 allocation_exceeded, each line's figures), records and counts the refusal, places nothing", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    await allocate(op, operation.id, [
      { variantExternalId: "JACKET", poolQuantity: 25, maxPerAccount: 15 },
      { variantExternalId: "PACKED", poolQuantity: 20 },
    ]);
    expectStatus(await order(op, operation.id, "A1", [line("JACKET", 10)]), 201);
    // A1 has 5 left of its cap, the pool 15: 6 is too many; PACKED asks 24 of a pool of 20 (nearest valid: 18, in packs of 6).
    const refused = expectProblem(await order(op, operation.id, "A1", [line("JACKET", 6), line("PACKED", 24), line("PLAIN", 1)]), 409, "allocation_exceeded");
    expect(refused.lines).toEqual([
      { variantExternalId: "JACKET", requested: 6, poolRemaining: 15, accountRemaining: 5, nearestValid: 5 },
      { variantExternalId: "PACKED", requested: 24, poolRemaining: 20, accountRemaining: null, nearestValid: 18 },
    ]);
    expect(expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200)).toMatchObject({ orders: 1, refusals: { quota: 0, allocation: 1 } });
    const blocked = (await eventsOf(op)).filter((event) => event.type === "order.blocked");
    expect(blocked).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ reason: "allocation_exceeded", accountId: "A1", lines: refused.lines }) }),
    ]);
    expect((await lineOf(op, operation.id, "PLAIN")).orderedQuantity).toBe(0);
    // Within what is left: placed. A cart is held to it too, and compare says the same.
    expectStatus(await order(op, operation.id, "A1", [line("JACKET", 5), line("PACKED", 18)]), 201);
    expectProblem(await callRoute(op, routes.createCart, { body: cartBody(operation.id, "A1", [line("JACKET", 1)]) }), 409, "allocation_exceeded");
    const compared = expectStatus(
      await callRoute(op, routes.compare, { params, body: { lines: [{ variantExternalId: "JACKET", quantity: 11 }], accountId: "A2" } }),
      200,
    );
    expect(compared).toMatchObject({ ok: false, summary: { allocationExceeded: 1 } });
    expect(compared.issues).toEqual([
      expect.objectContaining({
        variantExternalId: "JACKET",
        code: "allocation_exceeded",
        quantity: 11,
        poolRemaining: 10,
        accountRemaining: 15,
        nearestValid: 10,
      }),
    ]);
    await expectTotalsExact(op, operation.id);
  });

  it("uses up a pool: allocation.exhausted, totals count the line; a cancellation gives the units back", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    await allocate(op, operation.id, [{ variantExternalId: "JACKET", poolQuantity: 12 }]);
    expectStatus(await order(op, operation.id, "A1", [line("JACKET", 5)]), 201);
    const last = expectStatus(await order(op, operation.id, "A2", [line("JACKET", 7)]), 201);
    const exhausted = (await eventsOf(op)).filter((event) => event.type === "allocation.exhausted");
    expect(exhausted).toEqual([
      expect.objectContaining({ operationId: operation.id, data: { variantExternalId: "JACKET", poolQuantity: 12, orderId: last.id } }),
    ]);
    expect(expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200).lines.exhausted).toBe(1);
    expectProblem(await order(op, operation.id, "A3", [line("JACKET", 1)]), 409, "allocation_exceeded");
    expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: last.id }, body: {} }), 200);
    expect((await lineOf(op, operation.id, "JACKET")).poolRemaining).toBe(7);
    expectStatus(await order(op, operation.id, "A3", [line("JACKET", 7)]), 201);
    await expectTotalsExact(op, operation.id);
  });

  it("an account's own cap overrides maxPerAccount, above or below it; the pool still holds", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    await allocate(op, operation.id, [{ variantExternalId: "JACKET", poolQuantity: 30, maxPerAccount: 5 }]);
    const caps = expectStatus(
      await callRoute(op, routes.setAccountCaps, {
        params,
        body: [
          { variantExternalId: "JACKET", accountId: "A1", maxQuantity: 50 },
          { variantExternalId: "JACKET", accountId: "A2", maxQuantity: 2 },
        ],
      }),
      200,
    );
    expect(caps).toEqual({ set: 2, removed: 0, unchanged: 0 });
    expectStatus(await order(op, operation.id, "A1", [line("JACKET", 20)]), 201);
    expect((expectProblem(await order(op, operation.id, "A1", [line("JACKET", 11)]), 409, "allocation_exceeded").lines as unknown[])[0]).toMatchObject({
      poolRemaining: 10,
      accountRemaining: 30,
    });
    expectProblem(await order(op, operation.id, "A2", [line("JACKET", 3)]), 409, "allocation_exceeded");
    expectStatus(await order(op, operation.id, "A3", [line("JACKET", 5)]), 201);
    const listed = (await collectPages(op, routes.listAccountCaps, { params })).items;
    expect(listed.map((cap) => [cap.accountId, cap.maxQuantity, cap.orderedQuantity])).toEqual([
      ["A1", 50, 20],
      ["A2", 2, 0],
    ]);
    // null removes A2's own cap: maxPerAccount applies again.
    expect(
      expectStatus(await callRoute(op, routes.setAccountCaps, { params, body: [{ variantExternalId: "JACKET", accountId: "A2", maxQuantity: null }] }), 200),
    ).toEqual({
      set: 0,
      removed: 1,
      unchanged: 0,
    });
    expectStatus(await order(op, operation.id, "A2", [line("JACKET", 3)]), 201);
    const unknown = expectProblem(
      await callRoute(op, routes.setAccountCaps, { params, body: [{ variantExternalId: "JACKET", accountId: "NOT-IN-DIRECTORY", maxQuantity: 1 }] }),
      422,
      "unknown_accounts",
    );
    expect(unknown.unknownAccountIds).toEqual(["NOT-IN-DIRECTORY"]);
    const records = (await collectPages(op, routes.listOperationHistory, { params, query: { resourceType: "account_cap" } })).items;
    expect(records.map((record) => [record.resourceId, record.action])).toEqual([
      ['["JACKET","A2"]', "deleted"],
      ['["JACKET","A2"]', "created"],
      ['["JACKET","A1"]', "created"],
    ]);
  });

  it("shows a buyer what is left to it on the storefront (availableToYou), for its accounts or one named", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    const buyer = await accountWithKey(op, "A1");
    await allocate(op, operation.id, [
      { variantExternalId: "JACKET", poolQuantity: 40, maxPerAccount: 8 },
      { variantExternalId: "PACKED", poolQuantity: 4 },
    ]);
    expectStatus(await order(op, operation.id, "A2", [line("JACKET", 8)]), 201);
    expectStatus(await order(buyer.caller, operation.id, "A1", [line("JACKET", 3)]), 201);
    const front = (await collectPages(buyer.caller, routes.listFrontLines, { params })).items;
    expect(Object.fromEntries(front.map((row) => [row.variantExternalId, row.availableToYou]))).toEqual({ JACKET: 5, PACKED: 4, PLAIN: 100 });
    const forA2 = (await collectPages(op, routes.listFrontLines, { params, query: { accountId: "A2" } })).items;
    expect(forA2.find((row) => row.variantExternalId === "JACKET")!.availableToYou).toBe(0);
    expect((await collectPages(op, routes.listFrontLines, { params })).items[0]).not.toHaveProperty("availableToYou");
    expectProblem(await callRoute(buyer.caller, routes.listFrontLines, { params, query: { accountId: "A2" } }), 403, "account_not_permitted");
  });
});

describe("POST /v1/operations/{operationId}/allocations/plan", () => {
  it("splits each pool in whole packs, keeps what accounts ordered, never above the pool; its answer is a valid PUT body", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    await allocate(op, operation.id, [
      { variantExternalId: "JACKET", poolQuantity: 100 },
      { variantExternalId: "PACKED", poolQuantity: 60 },
    ]);
    expectStatus(await order(op, operation.id, "A2", [line("JACKET", 40)]), 201);
    const equal = expectStatus(await callRoute(op, routes.planAllocation, { params, body: { method: "equal" } }), 200);
    expect(equal.nextToken).toBeNull();
    // JACKET: 60 left, 20 each on top of what each ordered; PACKED: 10 packs of 6 → 4, 3, 3 packs.
    expect(equal.items).toEqual([
      { variantExternalId: "JACKET", accountId: "A1", maxQuantity: 20 },
      { variantExternalId: "JACKET", accountId: "A2", maxQuantity: 60 },
      { variantExternalId: "JACKET", accountId: "A3", maxQuantity: 20 },
      { variantExternalId: "PACKED", accountId: "A1", maxQuantity: 24 },
      { variantExternalId: "PACKED", accountId: "A2", maxQuantity: 18 },
      { variantExternalId: "PACKED", accountId: "A3", maxQuantity: 18 },
    ]);
    expectStatus(await callRoute(op, routes.setAccountCaps, { params, body: equal.items }), 200);
    const weighted = expectStatus(
      await callRoute(op, routes.planAllocation, {
        params,
        body: { method: "proportional", variantExternalIds: ["JACKET"], basis: { weights: { A1: 3, A3: 1 } }, limit: 1 },
      }),
      200,
    );
    expect(weighted.items).toEqual([{ variantExternalId: "JACKET", accountId: "A1", maxQuantity: 45 }]);
    const next = expectStatus(
      await callRoute(op, routes.planAllocation, {
        params,
        body: { method: "proportional", variantExternalIds: ["JACKET"], basis: { weights: { A1: 3, A3: 1 } }, limit: 1, nextToken: weighted.nextToken! },
      }),
      200,
    );
    expect(next).toEqual({ items: [{ variantExternalId: "JACKET", accountId: "A3", maxQuantity: 15 }], nextToken: null });
    // In proportion to an earlier Operation's orders of the same variant.
    const earlier = await setUpOperation(op, { lines: LINES, attach: ["A1", "A3"] });
    expectStatus(await order(op, earlier.id, "A1", [line("PLAIN", 10)]), 201);
    expectStatus(await order(op, earlier.id, "A3", [line("PLAIN", 30)]), 201);
    await allocate(op, operation.id, [{ variantExternalId: "PLAIN", poolQuantity: 8 }]);
    const fromHistory = expectStatus(
      await callRoute(op, routes.planAllocation, {
        params,
        body: { method: "proportional", variantExternalIds: ["PLAIN"], basis: { operationId: earlier.id } },
      }),
      200,
    );
    expect(fromHistory.items).toEqual([
      { variantExternalId: "PLAIN", accountId: "A1", maxQuantity: 2 },
      { variantExternalId: "PLAIN", accountId: "A3", maxQuantity: 6 },
    ]);
    expect((await readOperation(op, operation.id)).version).toBeGreaterThan(0);
    expectProblem(await callRoute(op, routes.planAllocation, { params, body: { method: "proportional" } }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.planAllocation, { params, body: { method: "equal", variantExternalIds: ["NOPE"] } }), 422, "unknown_variants");
    const publicOperation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    expectProblem(
      await callRoute(op, routes.planAllocation, { params: { operationId: publicOperation.id }, body: { method: "equal" } }),
      400,
      "validation_failed",
    );
  });
});

describe("never oversold", () => {
  it("200 orders at once from 80 accounts with keyed retries, cancellations racing, the pool lowered midway: no line beyond its pool, no account beyond its cap", async () => {
    const op = await newTenant();
    const accounts = Array.from({ length: 80 }, (_, i) => `B${String(i).padStart(3, "0")}`);
    const { operation, params } = await campaign(op, accounts);
    await allocate(op, operation.id, [
      { variantExternalId: "JACKET", poolQuantity: 400, maxPerAccount: 9 },
      { variantExternalId: "PLAIN", poolQuantity: 120 },
    ]);
    const placed: string[] = [];
    // Two clerks' keys: the rush (~420 writes) stays well inside each key's write budget (600 a minute).
    const clerks = [op, await issueKey(op.tenantId, "OPERATOR")];
    const attempt = async (i: number) => {
      const clerk = clerks[i % clerks.length];
      const accountId = accounts[i % accounts.length];
      const key = `rush-${operation.id}-${i}`;
      const send = () =>
        call(clerk, "POST", "/v1/orders", {
          body: cartBody(operation.id, accountId, [line("JACKET", 1 + (i % 7)), line("PLAIN", 1 + (i % 3))]),
          headers: { "Idempotency-Key": key },
        });
      const [first, retry] = await Promise.all([send(), send()]);
      for (const answer of [first, retry]) {
        expect([201, 409], answer.text.slice(0, 200)).toContain(answer.status);
        if (answer.status === 201) placed.push((answer.body as { id: string }).id);
      }
      if (i % 10 === 0 && placed.length) await call(clerk, "POST", `/v1/orders/${placed[placed.length - 1]}/cancel`, { body: {} });
      // Midway, the pool is lowered to what is ordered then, or refused when below it.
      if (i === 100) await callRoute(op, routes.setAllocations, { params, body: [{ variantExternalId: "PLAIN", poolQuantity: 112 }] });
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => attempt(i)));
    console.info(`never oversold: 200 orders (400 requests) in ${Date.now() - started} ms`);
    const orders = (await collectPages(op, routes.listOrders, { params, query: { status: "PLACED", limit: "500" } })).items;
    const byLine = new Map<string, number>();
    const byAccountJacket = new Map<string, number>();
    for (const placedOrder of orders) {
      for (const row of placedOrder.lines) byLine.set(row.variantExternalId, (byLine.get(row.variantExternalId) ?? 0) + row.quantity);
      const jacket = placedOrder.lines.find((row) => row.variantExternalId === "JACKET")?.quantity ?? 0;
      byAccountJacket.set(placedOrder.accountId, (byAccountJacket.get(placedOrder.accountId) ?? 0) + jacket);
    }
    const jacket = await lineOf(op, operation.id, "JACKET");
    const plain = await lineOf(op, operation.id, "PLAIN");
    expect(byLine.get("JACKET")).toBe(jacket.orderedQuantity);
    expect(byLine.get("PLAIN")).toBe(plain.orderedQuantity);
    expect(jacket.orderedQuantity).toBeLessThanOrEqual(jacket.poolQuantity!);
    expect(plain.orderedQuantity).toBeLessThanOrEqual(plain.poolQuantity!);
    expect(Math.max(...byAccountJacket.values())).toBeLessThanOrEqual(9);
    // The rush used supply up: some orders were refused, none of them placed.
    expect(expectStatus(await callRoute(op, routes.getOperationTotals, { params }), 200).refusals.allocation).toBeGreaterThan(0);
    await expectTotalsExact(op, operation.id);
    expect(await setStatus(op, operation.id, "INACTIVE")).toBeTruthy();
  }, 300_000);
});

describe("what is left of pools and caps, against the orders", () => {
  /** The lines' and the accounts' ordered quantities as the API keeps them equal what the PLACED orders hold. */
  async function expectAllocationExact(op: Caller, operationId: string) {
    const params = { operationId };
    const orders = (await collectPages(op, routes.listOrders, { params, query: { status: "PLACED", limit: "500" } })).items;
    const byLine = new Map<string, number>();
    const byCap = new Map<string, number>();
    for (const placed of orders)
      for (const row of placed.lines) {
        byLine.set(row.variantExternalId, (byLine.get(row.variantExternalId) ?? 0) + row.quantity);
        const cap = `${row.variantExternalId}/${placed.accountId}`;
        byCap.set(cap, (byCap.get(cap) ?? 0) + row.quantity);
      }
    const lines = (await collectPages(op, routes.listLines, { params })).items;
    for (const row of lines) {
      expect(row.orderedQuantity, row.variantExternalId).toBe(byLine.get(row.variantExternalId) ?? 0);
      if (typeof row.poolQuantity === "number")
        expect(row.poolRemaining, row.variantExternalId).toBe(Math.max(0, row.poolQuantity - (byLine.get(row.variantExternalId) ?? 0)));
    }
    const caps = (await collectPages(op, routes.listAccountCaps, { params })).items;
    for (const cap of caps)
      expect(cap.orderedQuantity, `${cap.variantExternalId}/${cap.accountId}`).toBe(byCap.get(`${cap.variantExternalId}/${cap.accountId}`) ?? 0);
    await expectTotalsExact(op, operationId);
  }

  it("stay exact through orders placed, retried, refused and cancelled, and a tenant move; what is left still fits exactly after it", async () => {
    const op = await newTenant();
    const { operation, params } = await campaign(op);
    await allocate(op, operation.id, [{ variantExternalId: "JACKET", poolQuantity: 25 }]);
    expectStatus(
      await callRoute(op, routes.setAccountCaps, {
        params,
        body: [
          { variantExternalId: "JACKET", accountId: "A1", maxQuantity: 10 },
          { variantExternalId: "JACKET", accountId: "A2", maxQuantity: 10 },
        ],
      }),
      200,
    );
    const keyed = (key: string, accountId: string, quantity: number) =>
      callRoute(op, routes.createOrder, { body: cartBody(operation.id, accountId, [line("JACKET", quantity)]), headers: { "Idempotency-Key": key } });
    // Placed, then the same request again: one order.
    const first = expectStatus(await keyed("alloc-exact-1", "A1", 6), 201);
    expect((await keyed("alloc-exact-1", "A1", 6)).body).toMatchObject({ id: first.id });
    expectStatus(await keyed("alloc-exact-2", "A2", 8), 201);
    // Refused: above A1's cap (6 + 5 > 10), and twice with its key.
    expectProblem(await keyed("alloc-exact-3", "A1", 5), 409, "allocation_exceeded");
    expect((await keyed("alloc-exact-3", "A1", 5)).status).toBe(409);
    // Cancelled: its units are left to order again.
    const cancelled = expectStatus(await keyed("alloc-exact-4", "A3", 7), 201);
    expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: cancelled.id }, body: {} }), 200);
    expectStatus(await callRoute(op, routes.cancelOrder, { params: { orderId: cancelled.id }, body: {} }), 200);
    await expectAllocationExact(op, operation.id);

    await moveTenant(op, otherShard(await shardOf(op.tenantId)));
    await expectAllocationExact(op, operation.id);
    // After the move, what is left fits exactly: A1 has 4 of its cap, the pool 11; one more is refused.
    expectStatus(await keyed("alloc-exact-5", "A1", 4), 201);
    expectProblem(await keyed("alloc-exact-6", "A1", 1), 409, "allocation_exceeded");
    expectStatus(await keyed("alloc-exact-7", "A3", 7), 201);
    expectProblem(await keyed("alloc-exact-8", "A3", 1), 409, "allocation_exceeded");
    await expectAllocationExact(op, operation.id);
    expect(await lineOf(op, operation.id, "JACKET")).toMatchObject({ orderedQuantity: 25, poolRemaining: 0 });
  }, 120_000);
});
