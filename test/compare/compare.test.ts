import { describe, expect, it } from "vitest";
import { callRoute, expectProblem, expectStatus, newTenant, type Caller } from "../helpers/client";
import { accountWithKey, cartBody, line, setUpOperation, type LineSpec } from "../helpers/setup";
import { routes } from "../helpers/routes";

const LINES: LineSpec[] = [
  { variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 10 },
  { variantExternalId: "SKU-B", minQuantity: 2, maxQuantity: 5 },
  { variantExternalId: "SKU-C", minQuantity: 1, maxQuantity: 100 },
  { variantExternalId: "SKU-D", minQuantity: 3, maxQuantity: 3 },
  { variantExternalId: "SKU-E", minQuantity: 0, maxQuantity: 1 },
];

const compare = (caller: Caller, operationId: string, body: unknown) => callRoute(caller, routes.compare, { params: { operationId }, body });

describe("POST /v1/operations/{id}/compare", () => {
  it("lists only the discrepancies, with every code, and counts them", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES, status: "DRAFT" });
    const result = expectStatus(
      await compare(op, operation.id, {
        lines: [
          { variantExternalId: "SKU-A", quantity: 10 }, // in bounds (max inclusive)
          { variantExternalId: "SKU-B", quantity: 0 }, // 0 is below a minimum of 2
          { variantExternalId: "SKU-X", quantity: 4 }, // not a line
          { variantExternalId: "SKU-C", quantity: 101 }, // above max
          { variantExternalId: "SKU-E", quantity: 0 }, // min 0: in bounds
        ],
      }),
      200,
    );
    expect(result).toEqual({
      ok: false,
      summary: { checked: 5, inBounds: 2, belowMin: 1, aboveMax: 1, notInOperation: 1, missingRequired: 1, incrementMismatch: 0, allocationExceeded: 0 },
      issues: [
        { variantExternalId: "SKU-B", code: "below_min", quantity: 0, minQuantity: 2, maxQuantity: 5 },
        { variantExternalId: "SKU-X", code: "not_in_operation", quantity: 4, minQuantity: null, maxQuantity: null },
        { variantExternalId: "SKU-C", code: "above_max", quantity: 101, minQuantity: 1, maxQuantity: 100 },
        // SKU-D needs ≥ 3 and is absent; SKU-A and SKU-E (minimum 0) may be left out.
        { variantExternalId: "SKU-D", code: "missing_required", quantity: null, minQuantity: 3, maxQuantity: 3 },
      ],
    });
  });

  it("answers ok with no issues when the order fits", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const result = expectStatus(
      await compare(op, operation.id, {
        lines: [
          { variantExternalId: "SKU-B", quantity: 2 },
          { variantExternalId: "SKU-C", quantity: 1 },
          { variantExternalId: "SKU-D", quantity: 3 },
        ],
      }),
      200,
    );
    expect(result).toEqual({
      ok: true,
      summary: { checked: 3, inBounds: 3, belowMin: 0, aboveMax: 0, notInOperation: 0, missingRequired: 0, incrementMismatch: 0, allocationExceeded: 0 },
      issues: [],
    });
  });

  it("compares a placed order by orderId", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    // Orders may leave out Operation lines: SKU-C and SKU-D are required but absent.
    const order = expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1), line("SKU-B", 5)]) }), 201);
    const result = expectStatus(await compare(op, operation.id, { orderId: order.id }), 200);
    expect(result).toEqual({
      ok: false,
      summary: { checked: 2, inBounds: 2, belowMin: 0, aboveMax: 0, notInOperation: 0, missingRequired: 2, incrementMismatch: 0, allocationExceeded: 0 },
      issues: [
        { variantExternalId: "SKU-C", code: "missing_required", quantity: null, minQuantity: 1, maxQuantity: 100 },
        { variantExternalId: "SKU-D", code: "missing_required", quantity: null, minQuantity: 3, maxQuantity: 3 },
      ],
    });
  });

  it("answers 404 for an unknown orderId, an order of another Operation, another tenant's Operation", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const second = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const order = expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(second.id, "A1", [line("SKU-A", 1)]) }), 201);
    expectProblem(await compare(op, operation.id, { orderId: "ord_unknown" }), 404, "not_found");
    expectProblem(await compare(op, operation.id, { orderId: order.id }), 404, "not_found");
    const other = await newTenant();
    expectProblem(await compare(other, second.id, { orderId: order.id }), 404, "not_found");
    expectProblem(await compare(other, second.id, { lines: [{ variantExternalId: "SKU-A", quantity: 1 }] }), 404, "not_found");
    expectProblem(await compare(op, "op_unknown", { lines: [{ variantExternalId: "SKU-A", quantity: 1 }] }), 404, "not_found");
    // An ACCOUNT key sees neither Operations it cannot order from nor other accounts' orders.
    const buyer = await accountWithKey(op);
    const hidden = await setUpOperation(op, { lines: LINES });
    expectProblem(await compare(buyer.caller, hidden.id, { lines: [{ variantExternalId: "SKU-A", quantity: 1 }] }), 404, "not_found");
    expectProblem(await compare(buyer.caller, second.id, { orderId: order.id }), 404, "not_found");
    expectStatus(await compare(buyer.caller, second.id, { lines: [{ variantExternalId: "SKU-A", quantity: 1 }] }), 200);
  });

  it("validates the body: 400 for repeats, empty, bad quantities, both shapes; 413 above 10,000 lines", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const repeat = expectProblem(
      await compare(op, operation.id, {
        lines: [
          { variantExternalId: "SKU-A", quantity: 1 },
          { variantExternalId: "SKU-A", quantity: 2 },
        ],
      }),
      400,
      "validation_failed",
    );
    expect(repeat.errors).toEqual([expect.objectContaining({ field: "body.lines.1.variantExternalId", code: "duplicate_key" })]);
    for (const body of [
      { lines: [] },
      {},
      { lines: [{ variantExternalId: "SKU-A", quantity: -1 }] },
      { lines: [{ variantExternalId: "SKU-A", quantity: 1.5 }] },
      { lines: [{ variantExternalId: "SKU-A", quantity: 2_147_483_648 }] },
      { lines: [{ variantExternalId: "SKU-A" }] },
      { orderId: "ord_1", lines: [{ variantExternalId: "SKU-A", quantity: 1 }] },
    ]) {
      expectProblem(await compare(op, operation.id, body), 400, "validation_failed");
    }
    const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ variantExternalId: `SKU-${i}`, quantity: 1 }));
    expectProblem(await compare(op, operation.id, { lines: tooMany }), 413, "batch_too_large");
  });

  it("compares 10,000 lines against a 5000-line Operation", async () => {
    const op = await newTenant();
    const lines = Array.from({ length: 5000 }, (_, i) => ({ variantExternalId: `SKU-${i}`, minQuantity: i % 2, maxQuantity: 10 }));
    const operation = await setUpOperation(op, { type: "PUBLIC", lines, status: "DRAFT" });
    // The order: every other Operation line (odd ones, required, absent from the even half), out-of-bounds
    // quantities on every 500th, and 5000 lines the Operation does not have.
    const order = [
      ...lines.filter((_, i) => i % 2 === 0).map((l, j) => ({ variantExternalId: l.variantExternalId, quantity: j % 500 === 0 ? 11 : 5 })),
      ...Array.from({ length: 7500 }, (_, i) => ({ variantExternalId: `NEW-${i}`, quantity: 1 })),
    ];
    const result = expectStatus(await compare(op, operation.id, { lines: order }), 200);
    expect(result.summary).toEqual({
      checked: 10_000,
      inBounds: 2495,
      belowMin: 0,
      aboveMax: 5,
      notInOperation: 7500,
      missingRequired: 2500,
      incrementMismatch: 0,
      allocationExceeded: 0,
    });
    expect(result.issues).toHaveLength(5 + 7500 + 2500);
    expect(result.issues[0]).toEqual({ variantExternalId: "SKU-0", code: "above_max", quantity: 11, minQuantity: 0, maxQuantity: 10 });
    expect(result.issues.at(-1)?.code).toBe("missing_required");
  });

  it("handles orders whose keys take more than one D1 value (long variant ids of multi-byte characters)", async () => {
    const op = await newTenant();
    // 128 characters (the longest id), most of them 3 bytes in UTF-8: D1 counts bytes.
    const key = (name: string) => name.padEnd(128, "€");
    const lines = [
      { variantExternalId: key("L0"), minQuantity: 1, maxQuantity: 5 },
      { variantExternalId: key("L1"), minQuantity: 1, maxQuantity: 5 },
      { variantExternalId: key("L2"), minQuantity: 0, maxQuantity: 5 },
    ];
    const operation = await setUpOperation(op, { type: "PUBLIC", lines, status: "DRAFT" });
    // ~3.8 MB of keys: over one D1 value, so the lines travel in several JSON parameters.
    const order = Array.from({ length: 10_000 }, (_, i) => ({ variantExternalId: key(`N${i}`), quantity: 1 }));
    order[9000] = { variantExternalId: key("L0"), quantity: 6 };
    const result = expectStatus(await compare(op, operation.id, { lines: order }), 200);
    expect(result.summary).toEqual({
      checked: 10_000,
      inBounds: 0,
      belowMin: 0,
      aboveMax: 1,
      notInOperation: 9999,
      missingRequired: 1,
      incrementMismatch: 0,
      allocationExceeded: 0,
    });
    expect(result.issues[9000]).toEqual({ variantExternalId: key("L0"), code: "above_max", quantity: 6, minQuantity: 1, maxQuantity: 5 });
    expect(result.issues.at(-1)).toEqual({ variantExternalId: key("L1"), code: "missing_required", quantity: null, minQuantity: 1, maxQuantity: 5 });
  });
});
