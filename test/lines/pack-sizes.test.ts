import { describe, expect, it } from "vitest";
import {
  call,
  callRoute,
  collectPages,
  createOperation,
  eventsOf,
  expectProblem,
  expectStatus,
  newTenant,
  readOperation,
  type Caller,
} from "../helpers/client";
import { cartBody, line, setUpOperation } from "../helpers/setup";
import { routes } from "../helpers/routes";
import { nearestValidQuantities } from "../../src/lines/order-fit";

const linesPath = (operationId: string) => `/v1/operations/${operationId}/lines`;

async function linesOf(caller: Caller, operationId: string, query: Record<string, string | number> = {}) {
  return (await collectPages(caller, routes.listLines, { params: { operationId }, query: { limit: 1000, ...query } })).items;
}

describe("pack sizes on lines", () => {
  it("gives a new line 1 and keeps an existing line's own when omitted", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectStatus(
      await callRoute(op, routes.putLines, {
        params: { operationId: operation.id },
        body: [
          { variantExternalId: "ONE", minQuantity: 1, maxQuantity: 7 },
          { variantExternalId: "SIX", minQuantity: 6, maxQuantity: 48, recommendedQuantity: 12, quantityIncrement: 6 },
        ],
      }),
      200,
    );
    // The merged line keeps its pack size: 30 is a multiple of 6.
    expectStatus(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: [{ variantExternalId: "SIX", maxQuantity: 30 }] }), 200);
    const lines = await linesOf(op, operation.id);
    expect(lines.map((l) => [l.variantExternalId, l.quantityIncrement, l.maxQuantity])).toEqual([
      ["ONE", 1, 7],
      ["SIX", 6, 30],
    ]);
  });

  it("a PUT that changes a stored line's pack size writes it, and one that changes none keeps them, both found by the quantityIncrement filter", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const put = (body: object[]) => call(op, "PUT", linesPath(operation.id), { body });
    expectStatus(
      await put([
        { variantExternalId: "A", minQuantity: 0, maxQuantity: 12 },
        { variantExternalId: "B", minQuantity: 0, maxQuantity: 12 },
      ]),
      200,
    );
    // Other columns only: the stored pack sizes stay (the write leaves their index alone).
    expectStatus(
      await put([
        { variantExternalId: "A", maxQuantity: 24 },
        { variantExternalId: "B", maxQuantity: 36 },
      ]),
      200,
    );
    // One stored line gets another pack size, beside one that keeps its own.
    expectStatus(
      await put([
        { variantExternalId: "A", quantityIncrement: 12 },
        { variantExternalId: "B", maxQuantity: 48 },
      ]),
      200,
    );
    expect((await linesOf(op, operation.id)).map((l) => [l.variantExternalId, l.quantityIncrement, l.maxQuantity])).toEqual([
      ["A", 12, 24],
      ["B", 1, 48],
    ]);
    expect((await linesOf(op, operation.id, { quantityIncrement: 12 })).map((l) => l.variantExternalId)).toEqual(["A"]);
    expect((await linesOf(op, operation.id, { quantityIncrement: 1 })).map((l) => l.variantExternalId)).toEqual(["B"]);
    expect((await linesOf(op, operation.id, { sort: "-quantityIncrement" })).map((l) => l.variantExternalId)).toEqual(["A", "B"]);
  });

  it("refuses bounds that are not multiples, one entry per offending field, on the merged line, and writes nothing", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectStatus(
      await callRoute(op, routes.putLines, {
        params: { operationId: operation.id },
        body: [{ variantExternalId: "SIX", minQuantity: 6, maxQuantity: 24, quantityIncrement: 6 }],
      }),
      200,
    );
    const before = await readOperation(op, operation.id);
    const problem = expectProblem(
      await callRoute(op, routes.putLines, {
        params: { operationId: operation.id },
        body: [
          { variantExternalId: "NEW", minQuantity: 3, maxQuantity: 10, recommendedQuantity: 5, quantityIncrement: 4 },
          // The stored bounds 6 and 24 are not multiples of a new pack size of 5.
          { variantExternalId: "SIX", quantityIncrement: 5 },
          // Bounds sent for the stored pack size of 6: only maxQuantity is off.
          { variantExternalId: "SIX-B", minQuantity: 0, maxQuantity: 1 },
        ],
      }),
      422,
      "line_bounds_invalid",
    );
    expect(problem.errors?.map((e) => [e.index, e.variantExternalId, e.field, e.code, e.quantityIncrement])).toEqual([
      [0, "NEW", "minQuantity", "increment_mismatch", 4],
      [0, "NEW", "maxQuantity", "increment_mismatch", 4],
      [0, "NEW", "recommendedQuantity", "increment_mismatch", 4],
      [1, "SIX", "minQuantity", "increment_mismatch", 5],
      [1, "SIX", "maxQuantity", "increment_mismatch", 5],
    ]);
    const after = await readOperation(op, operation.id);
    expect(after.version).toBe(before.version);
    expect(after.lineCount).toBe(1);
    expect((await linesOf(op, operation.id))[0].quantityIncrement).toBe(6);
  });

  it.each<{ quantityIncrement: unknown }>([
    { quantityIncrement: 0 },
    { quantityIncrement: -2 },
    { quantityIncrement: 1.5 },
    { quantityIncrement: "6" },
    { quantityIncrement: null },
  ])("rejects a pack size of $quantityIncrement: not an integer ≥ 1 (400)", async ({ quantityIncrement }) => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectProblem(
      await callRoute(op, routes.putLines, {
        params: { operationId: operation.id },
        body: [{ variantExternalId: "A", minQuantity: 0, maxQuantity: 6, quantityIncrement }],
      }),
      400,
      "validation_failed",
    );
  });

  it("rejects a pack size filter that is not an integer ≥ 1 (400)", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectProblem(await callRoute(op, routes.listLines, { params: { operationId: operation.id }, query: { quantityIncrement: 0 } }), 400, "validation_failed");
  });

  it("answers a dry run exactly as the real call, and changes nothing", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const bad = [{ variantExternalId: "A", minQuantity: 1, maxQuantity: 12, quantityIncrement: 3 }];
    const dry = await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: bad, query: { dryRun: "true" } });
    expect(expectProblem(dry, 422, "line_bounds_invalid").errors?.map((e) => e.code)).toEqual(["increment_mismatch"]);
    const good = [{ variantExternalId: "A", minQuantity: 3, maxQuantity: 12, quantityIncrement: 3 }];
    const dryGood = await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: good, query: { dryRun: "true" } });
    expect(dryGood.headers.get("svc-dry-run")).toBe("true");
    expect(expectStatus(dryGood, 200)).toEqual({
      created: 1,
      updated: 0,
      lineCount: 1,
    });
    expect((await readOperation(op, operation.id)).lineCount).toBe(0);
  });

  it("filters by exact pack size and sorts by it, keyset pages included", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const increments = [1, 6, 2, 6, 12, 1, 2, 6];
    const body = increments.map((quantityIncrement, i) => ({
      variantExternalId: `SKU-${i}`,
      minQuantity: 0,
      maxQuantity: 12 * 4,
      quantityIncrement,
    }));
    expectStatus(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body }), 200);
    const sixes = await linesOf(op, operation.id, { quantityIncrement: 6 });
    expect(sixes.map((l) => l.variantExternalId)).toEqual(["SKU-1", "SKU-3", "SKU-7"]);
    const sorted = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 3, sort: "-quantityIncrement" } });
    const expected = body
      .map((l) => [l.quantityIncrement, l.variantExternalId] as const)
      .sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1))
      .map(([, key]) => key);
    expect(sorted.items.map((l) => l.variantExternalId)).toEqual(expected);
  });

  it("exports and imports the quantityIncrement column of the lines CSV", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectStatus(
      await callRoute(op, routes.putLines, {
        params: { operationId: operation.id },
        body: [{ variantExternalId: "A", variantName: { en: "Box" }, minQuantity: 0, maxQuantity: 24, recommendedQuantity: 12, quantityIncrement: 6 }],
      }),
      200,
    );
    const exported = await callRoute(op, routes.listLines, { params: { operationId: operation.id }, headers: { accept: "text/csv" } });
    expect(exported.text.trim().split(/\r?\n/)).toEqual([
      "variantExternalId,variantName,minQuantity,maxQuantity,recommendedQuantity,quantityIncrement",
      "A,Box,0,24,12,6",
    ]);
    const csv = (text: string) => ({ rawBody: text, headers: { "content-type": "text/csv" } });
    // B is new: pack size 4. A keeps its 6 when the column is empty, and 30 fits it.
    expectStatus(await call(op, "PUT", linesPath(operation.id), csv("variantExternalId,minQuantity,maxQuantity,quantityIncrement\nB,4,8,4\nA,,30,\n")), 200);
    const lines = await linesOf(op, operation.id);
    expect(lines.map((l) => [l.variantExternalId, l.maxQuantity, l.quantityIncrement])).toEqual([
      ["A", 30, 6],
      ["B", 8, 4],
    ]);
    const refused = expectProblem(
      await call(op, "PUT", linesPath(operation.id), csv("variantExternalId,quantityIncrement\nA,7\n")),
      422,
      "line_bounds_invalid",
    );
    expect(refused.errors?.map((e) => [e.row, e.field, e.code])).toEqual([
      [2, "maxQuantity", "increment_mismatch"],
      [2, "recommendedQuantity", "increment_mismatch"],
    ]);
  });

  it("shows the pack size on front lines", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: [{ variantExternalId: "A", minQuantity: 0, maxQuantity: 12, quantityIncrement: 4 }] });
    const page = expectStatus(await callRoute(op, routes.listFrontLines, { params: { operationId: operation.id } }), 200);
    expect(page.items[0].quantityIncrement).toBe(4);
  });
});

describe("pack sizes on carts, orders and comparison", () => {
  const LINES = [
    { variantExternalId: "BOX6", minQuantity: 6, maxQuantity: 24, quantityIncrement: 6 },
    { variantExternalId: "BOX4", minQuantity: 0, maxQuantity: 8, quantityIncrement: 4 },
    { variantExternalId: "BOX4B", minQuantity: 0, maxQuantity: 8, quantityIncrement: 4 },
    { variantExternalId: "ONE", minQuantity: 0, maxQuantity: 5 },
    { variantExternalId: "SOLO", minQuantity: 12, maxQuantity: 12, quantityIncrement: 12 },
  ];

  it("refuses a cart whose quantity is not a multiple, naming the nearest valid quantities, never rounding", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const problem = expectProblem(
      await callRoute(op, routes.createCart, {
        body: cartBody(operation.id, "A1", [line("BOX6", 13), line("BOX4", 7), line("ONE", 3), line("SOLO", 24), line("BOX4B", 1)]),
      }),
      422,
      "order_lines_invalid",
    );
    expect(problem.errors?.map((e) => [e.index, e.code, e.quantityIncrement, e.nearestValid])).toEqual([
      [0, "increment_mismatch", 6, [12, 18]],
      // 7 lies between 4 and 8; 8 is the maximum, still valid.
      [1, "increment_mismatch", 4, [4, 8]],
      // above_max takes precedence over the pack size.
      [3, "above_max", undefined, undefined],
      [4, "increment_mismatch", 4, [0, 4]],
    ]);
    expect(problem.errors?.[0]).toMatchObject({ field: "body.lines.0.quantity", variantExternalId: "BOX6", quantity: 13, minQuantity: 6, maxQuantity: 24 });
  });

  it("offers null on a side with no valid quantity", () => {
    // Stored bounds are multiples of the pack size, so over HTTP both sides exist; the edges are checked here.
    expect(nearestValidQuantities(3, { minQuantity: 0, maxQuantity: 5, quantityIncrement: 5 })).toEqual([0, 5]);
    expect(nearestValidQuantities(9, { minQuantity: 0, maxQuantity: 10, quantityIncrement: 4 })).toEqual([8, null]);
    expect(nearestValidQuantities(2, { minQuantity: 3, maxQuantity: 10, quantityIncrement: 4 })).toEqual([null, 4]);
    expect(nearestValidQuantities(5, { minQuantity: 5, maxQuantity: 7, quantityIncrement: 6 })).toEqual([null, 6]);
    expect(nearestValidQuantities(5, { minQuantity: 1, maxQuantity: 5, quantityIncrement: 6 })).toEqual([null, null]);
  });

  it("places an order whose quantities are multiples", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES });
    const order = expectStatus(
      await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("BOX6", 18), line("BOX4", 0), line("ONE", 3), line("SOLO", 12)]) }),
      201,
    );
    expect(order.id).toBeTruthy();
    const types = (await eventsOf(op)).map((e) => e.type);
    expect(types).toContain("order.created");
  });

  it("compare reports increment_mismatch within bounds, after below_min and above_max", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", lines: LINES, status: "DRAFT" });
    const result = expectStatus(
      await callRoute(op, routes.compare, {
        params: { operationId: operation.id },
        body: {
          lines: [
            { variantExternalId: "BOX6", quantity: 13 },
            { variantExternalId: "BOX4", quantity: 9 },
            { variantExternalId: "ONE", quantity: 3 },
            { variantExternalId: "SOLO", quantity: 5 },
          ],
        },
      }),
      200,
    );
    expect(result).toEqual({
      ok: false,
      summary: { checked: 4, inBounds: 2, belowMin: 1, aboveMax: 1, notInOperation: 0, missingRequired: 0, incrementMismatch: 1, allocationExceeded: 0 },
      issues: [
        { variantExternalId: "BOX6", code: "increment_mismatch", quantity: 13, minQuantity: 6, maxQuantity: 24, quantityIncrement: 6 },
        { variantExternalId: "BOX4", code: "above_max", quantity: 9, minQuantity: 0, maxQuantity: 8 },
        { variantExternalId: "SOLO", code: "below_min", quantity: 5, minQuantity: 12, maxQuantity: 12 },
      ],
    });
    const fits = expectStatus(
      await callRoute(op, routes.compare, {
        params: { operationId: operation.id },
        body: {
          lines: [
            { variantExternalId: "BOX6", quantity: 24 },
            { variantExternalId: "SOLO", quantity: 12 },
          ],
        },
      }),
      200,
    );
    expect(fits.ok).toBe(true);
    expect(fits.summary.incrementMismatch).toBe(0);
  });
});
