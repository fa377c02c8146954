import { describe, expect, it } from "vitest";
import { ownLineFields } from "../helpers/setup";
import {
  call,
  callRoute,
  collectPages,
  createOperation,
  eventsOf,
  expectProblem,
  expectStatus,
  issueKey,
  newTenant,
  readOperation,
  setStatus,
  uniqueId,
  type ApiResponse,
} from "../helpers/client";
import { makeLines, putLines, sku } from "./fixtures";
import { routes } from "../helpers/routes";

const linesPath = (operationId: string) => `/v1/operations/${operationId}/lines`;

describe("PUT lines at full scale", () => {
  it("upserts 5000 lines in one call and pages through all of them in a stable order", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const lines = makeLines(5000);
    expect(await putLines(op, operation.id, lines)).toEqual({ created: 5000, updated: 0, lineCount: 5000 });

    const after = await readOperation(op, operation.id);
    expect(after.lineCount).toBe(5000);
    expect(after.version).toBe(operation.version + 1);

    const { items, pages } = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 1000 } });
    expect(pages).toBe(5);
    const keys = items.map((line) => line.variantExternalId);
    expect(new Set(keys).size).toBe(5000);
    expect(keys).toEqual([...keys].sort());
    expect(items[7]).toEqual({
      variantExternalId: sku(7),
      variantId: "v_7",
      variantName: { en: "Shirt 7", fr: "Chemise 7" },
      minQuantity: 3,
      maxQuantity: 10,
      recommendedQuantity: 5,
      quantityIncrement: 1,
      orderedQuantity: 0,
      orderCount: 0,
      poolQuantity: null,
      maxPerAccount: null,
      poolRemaining: null,
      updatedAt: expect.any(String),
    });

    // A sort with many ties pages to the same 5000 lines, each once, in (key desc, id desc) order.
    const byMax = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 500, sort: "-maxQuantity" } });
    expect(byMax.items.length).toBe(5000);
    expect(new Set(byMax.items.map((line) => line.variantExternalId)).size).toBe(5000);
    const expected = [...lines]
      .sort((a, b) => b.maxQuantity - a.maxQuantity || (a.variantExternalId < b.variantExternalId ? 1 : -1))
      .map((line) => line.variantExternalId);
    expect(byMax.items.map((line) => line.variantExternalId)).toEqual(expected);

    // Re-PUT of the same 5000 keys updates them all and creates none.
    const changed = makeLines(5000, (i) => ({ maxQuantity: 40 + (i % 3) }));
    expect(await putLines(op, operation.id, changed)).toEqual({ created: 0, updated: 5000, lineCount: 5000 });
    const page = expectStatus(await callRoute(op, routes.listLines, { params: { operationId: operation.id }, query: { maxQuantity: 41, limit: 1000 } }), 200);
    expect(page.items.every((line) => line.maxQuantity === 41)).toBe(true);
    expect(page.items.length).toBe(1000);
  });

  it("keeps paging correct while lines are inserted and removed between pages", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(op, operation.id, makeLines(300));
    const first = expectStatus(await callRoute(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 100 } }), 200);
    // Remove lines on both sides of the cursor and add new ones after it.
    expectStatus(await callRoute(op, routes.deleteLines, { params: { operationId: operation.id }, body: [sku(5), sku(150)] }), 200);
    await putLines(
      op,
      operation.id,
      makeLines(10, () => ({}), 1000),
    );
    const seen: string[] = first.items.map((line) => line.variantExternalId);
    let nextToken = first.nextToken;
    while (nextToken) {
      const page = expectStatus(await callRoute(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 100, nextToken } }), 200);
      seen.push(...page.items.map((line) => line.variantExternalId));
      nextToken = page.nextToken;
    }
    expect(seen.length).toBe(300 - 1 + 10); // sku(5) was read before its removal
    expect(new Set(seen).size).toBe(seen.length);
    for (let i = 0; i < 300; i++) if (i !== 5 && i !== 150) expect(seen).toContain(sku(i));
    expect(seen).not.toContain(sku(150));
  });
});

describe("merge, then validate", () => {
  async function withOneLine() {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(op, operation.id, [
      { variantExternalId: "A", variantId: "v_a", variantName: { en: "Alpha" }, minQuantity: 2, maxQuantity: 10, recommendedQuantity: 5 },
    ]);
    const line = async () => expectStatus(await callRoute(op, routes.listLines, { params: { operationId: operation.id } }), 200).items[0];
    return { op, operation, line };
  }

  it("keeps omitted fields of an existing line and validates the merged line", async () => {
    const { op, operation, line } = await withOneLine();
    const before = await line();

    expect(await putLines(op, operation.id, [{ variantExternalId: "A", maxQuantity: 20 }])).toEqual({ created: 0, updated: 1, lineCount: 1 });
    const widened = await line();
    expect(widened).toMatchObject({ variantId: "v_a", variantName: { en: "Alpha" }, minQuantity: 2, maxQuantity: 20, recommendedQuantity: 5 });
    expect(widened.updatedAt >= before.updatedAt).toBe(true);

    // maxQuantity 1 alone is a fine value; merged with the stored minQuantity 2 it is not.
    const tooLow = expectProblem(
      await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: [{ variantExternalId: "A", maxQuantity: 1 }] }),
      422,
      "line_bounds_invalid",
    );
    expect(tooLow.errors).toEqual([
      expect.objectContaining({ index: 0, variantExternalId: "A", field: "maxQuantity", code: "min_gt_max" }),
      expect.objectContaining({ index: 0, variantExternalId: "A", field: "recommendedQuantity", code: "recommended_out_of_bounds" }),
    ]);
    // minQuantity 6 puts the stored recommendedQuantity 5 out of bounds.
    const recommended = expectProblem(
      await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: [{ variantExternalId: "A", minQuantity: 6 }] }),
      422,
      "line_bounds_invalid",
    );
    expect(recommended.errors?.map((e) => e.code)).toEqual(["recommended_out_of_bounds"]);
    expect(await line()).toEqual(widened);

    // ...unless the same call moves recommendedQuantity too; null clears it, variantId null clears it.
    await putLines(op, operation.id, [{ variantExternalId: "A", minQuantity: 6, recommendedQuantity: 7 }]);
    expect(await line()).toMatchObject({ minQuantity: 6, maxQuantity: 20, recommendedQuantity: 7 });
    await putLines(op, operation.id, [{ variantExternalId: "A", recommendedQuantity: null, variantId: null, variantName: { de: "Alpha-DE" } }]);
    expect(await line()).toMatchObject({ variantId: null, variantName: { de: "Alpha-DE" }, minQuantity: 6, maxQuantity: 20, recommendedQuantity: null });
  });

  it("writes every field a batch changes when each line changes a different one (the name's filter and sort follow it)", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const base = ["A", "B", "C", "D", "E", "F", "G"].map((key) => ({
      variantExternalId: key,
      variantId: `v_${key}`,
      variantName: { en: `Name ${key}` },
      minQuantity: 2,
      maxQuantity: 12,
      recommendedQuantity: 6,
      quantityIncrement: 2,
    }));
    await putLines(op, operation.id, base);
    const changes = [
      { variantExternalId: "A", variantId: "v_other" },
      { variantExternalId: "B", variantName: { en: "Zebra stripes" } },
      { variantExternalId: "C", minQuantity: 4 },
      { variantExternalId: "D", maxQuantity: 20 },
      { variantExternalId: "E", recommendedQuantity: 8 },
      { variantExternalId: "F", quantityIncrement: 1, minQuantity: 3 },
      { variantExternalId: "G" },
    ];
    expect(await putLines(op, operation.id, changes)).toEqual({ created: 0, updated: 7, lineCount: 7 });
    const expected = base.map((line, i) => ({ ...line, ...changes[i] }));
    const { items } = await collectPages(op, routes.listLines, { params: { operationId: operation.id } });
    expect(items.map(ownLineFields)).toEqual(expected);
    const named = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { variantName: "zebra" } });
    expect(named.items.map((line) => line.variantExternalId)).toEqual(["B"]);
    const byName = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { sort: "-variantName", limit: 1 } });
    expect(byName.items[0].variantExternalId).toBe("B");
    const byIncrement = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { quantityIncrement: 1 } });
    expect(byIncrement.items.map((line) => line.variantExternalId)).toEqual(["F"]);
  });

  it("accepts bounds equal to each other and recommended on either bound", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expect(
      await putLines(op, operation.id, [
        { variantExternalId: "E", minQuantity: 0, maxQuantity: 0, recommendedQuantity: 0 },
        { variantExternalId: "F", minQuantity: 3, maxQuantity: 9, recommendedQuantity: 9 },
        { variantExternalId: "G", minQuantity: 2147483647, maxQuantity: 2147483647 },
      ]),
    ).toEqual({ created: 3, updated: 0, lineCount: 3 });
  });

  it("reports every violated rule with its index and key, in index order, and writes nothing", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(op, operation.id, makeLines(3));
    const before = await readOperation(op, operation.id);
    const response = await callRoute(op, routes.putLines, {
      params: { operationId: operation.id },
      body: [
        { variantExternalId: "OK-1", minQuantity: 1, maxQuantity: 2 },
        { variantExternalId: "N-1", minQuantity: 5, maxQuantity: 4 },
        { variantExternalId: "N-2", maxQuantity: 4 },
        { variantExternalId: "N-3", minQuantity: 1, maxQuantity: 4, recommendedQuantity: 5 },
        { variantExternalId: "N-4", minQuantity: 8, maxQuantity: 3, recommendedQuantity: 5 },
        { variantExternalId: "N-5", recommendedQuantity: 1 },
        { variantExternalId: sku(1), minQuantity: 99 },
        { variantExternalId: "OK-2", minQuantity: 0, maxQuantity: 0 },
      ],
    });
    const problem = expectProblem(response, 422, "line_bounds_invalid");
    expect(problem.errors?.map((e) => [e.index, e.variantExternalId, e.code])).toEqual([
      [1, "N-1", "min_gt_max"],
      [2, "N-2", "missing_bounds"],
      [3, "N-3", "recommended_out_of_bounds"],
      [4, "N-4", "min_gt_max"],
      [4, "N-4", "recommended_out_of_bounds"],
      [5, "N-5", "missing_bounds"],
      [6, sku(1), "min_gt_max"],
      [6, sku(1), "recommended_out_of_bounds"],
    ]);
    expect(problem.errors?.[1]).toMatchObject({ field: "minQuantity", missing: ["minQuantity"] });
    expect(problem.errors?.[5]).toMatchObject({ missing: ["minQuantity", "maxQuantity"] });
    expect(problem.errors?.every((e) => typeof e.message === "string" && e.message.length > 0)).toBe(true);

    const after = await readOperation(op, operation.id);
    expect(after.version).toBe(before.version);
    expect(after.lineCount).toBe(3);
    const { items } = await collectPages(op, routes.listLines, { params: { operationId: operation.id } });
    expect(items.map((line) => line.variantExternalId)).toEqual([sku(0), sku(1), sku(2)]);
  });

  it("one bad line in a 5000-line batch leaves the Operation exactly as it was", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(op, operation.id, makeLines(5000));
    const before = await readOperation(op, operation.id);
    const beforeLines = (await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 1000 } })).items;
    const eventsBefore = await eventsOf(op, { operationId: operation.id });

    const batch = makeLines(5000, (i) => ({ maxQuantity: 50, ...(i === 4321 && { minQuantity: 60, recommendedQuantity: null }) }));
    const problem = expectProblem(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: batch }), 422, "line_bounds_invalid");
    expect(problem.errors).toEqual([expect.objectContaining({ index: 4321, variantExternalId: sku(4321), code: "min_gt_max" })]);

    expect(await readOperation(op, operation.id)).toEqual(before);
    expect((await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 1000 } })).items).toEqual(beforeLines);
    expect(await eventsOf(op, { operationId: operation.id })).toEqual(eventsBefore);
  });
});

describe("shape and size", () => {
  it("answers 413 for more than 5000 lines, before looking at any line", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectProblem(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: makeLines(5001) }), 413, "batch_too_large");
    const garbage = Array.from({ length: 6000 }, () => ({ variantExternalId: 12, minQuantity: -1 }));
    const problem = expectProblem(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: garbage }), 413, "batch_too_large");
    expect(problem).toMatchObject({ limit: 5000, received: 6000 });
    expectProblem(
      await callRoute(op, routes.deleteLines, { params: { operationId: operation.id }, body: Array.from({ length: 5001 }, (_, i) => sku(i)) }),
      413,
      "batch_too_large",
    );
    // 413 comes before 404: size is checked with the shape.
    expectProblem(await callRoute(op, routes.putLines, { params: { operationId: "op_missing" }, body: makeLines(5001) }), 413, "batch_too_large");
    expect((await readOperation(op, operation.id)).lineCount).toBe(0);
  });

  it("rejects empty batches and bad shapes with 400 and per-item errors", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const path = linesPath(operation.id);
    expectProblem(await call(op, "PUT", path, { body: [] }), 400, "validation_failed");
    expectProblem(await call(op, "DELETE", path, { body: [] }), 400, "validation_failed");
    expectProblem(await call(op, "PUT", path, { body: { variantExternalId: "A" } }), 400, "validation_failed");
    expectProblem(await call(op, "PUT", path, { rawBody: "[{" }), 400, "validation_failed");

    const bad = [
      { variantExternalId: "A", minQuantity: -1, maxQuantity: 2 },
      { variantExternalId: "B", minQuantity: 1.5, maxQuantity: 2 },
      { variantExternalId: "C", minQuantity: 1, maxQuantity: 2147483648 },
      { variantExternalId: "D", minQuantity: "1", maxQuantity: 2 },
      { minQuantity: 1, maxQuantity: 2 },
      { variantExternalId: "F", minQuantity: 1, maxQuantity: 2, colour: "red" },
      { variantExternalId: "", minQuantity: 1, maxQuantity: 2 },
      { variantExternalId: "H", minQuantity: 1, maxQuantity: 2, variantName: { "not a locale!": "x" } },
    ];
    const problem = expectProblem(await call(op, "PUT", path, { body: bad }), 400, "validation_failed");
    expect([...new Set(problem.errors?.map((e) => e.index))].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect((await readOperation(op, operation.id)).lineCount).toBe(0);
  });

  it("refuses a variantExternalId repeated within one call with 400, naming every repeat", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const lines = [...makeLines(3), { variantExternalId: sku(0), minQuantity: 0, maxQuantity: 1 }, makeLines(1, () => ({}), 2)[0]];
    const problem = expectProblem(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: lines }), 400, "validation_failed");
    expect(problem.errors?.map((e) => [e.index, e.code, e.field])).toEqual([
      [3, "duplicate_key", "body.3.variantExternalId"],
      [4, "duplicate_key", "body.4.variantExternalId"],
    ]);
    expect((await readOperation(op, operation.id)).lineCount).toBe(0);
  });
});

describe("state, roles and tenancy", () => {
  it("edits lines only in DRAFT; checks 404, then 409, then 422", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(op, operation.id, makeLines(2));
    expectStatus(await setStatus(op, operation.id, "ACTIVE"), 200);
    const invalid = [{ variantExternalId: "X", minQuantity: 9, maxQuantity: 1 }];
    expectProblem(await callRoute(op, routes.putLines, { params: { operationId: "op_unknown" }, body: invalid }), 404, "not_found");
    expectProblem(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: invalid }), 409, "operation_not_draft");
    expectProblem(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: makeLines(1) }), 409, "operation_not_draft");
    expectProblem(await callRoute(op, routes.deleteLines, { params: { operationId: operation.id }, body: [sku(0)] }), 409, "operation_not_draft");
    expect((await readOperation(op, operation.id)).lineCount).toBe(2);
    // Lines stay readable in any state.
    expect(expectStatus(await callRoute(op, routes.listLines, { params: { operationId: operation.id } }), 200).items.length).toBe(2);
  });

  it("lets ACCOUNT keys read lines of visible Operations only, and never write them", async () => {
    const op = await newTenant();
    const buyer = await issueKey(op.tenantId, "ACCOUNT", "u_buyer");
    const publicOp = await createOperation(op, { type: "PUBLIC" });
    const privateOp = await createOperation(op, { type: "PRIVATE" });
    await putLines(op, publicOp.id, makeLines(3));
    await putLines(op, privateOp.id, makeLines(3));

    expect(expectStatus(await callRoute(buyer, routes.listLines, { params: { operationId: publicOp.id } }), 200).items.length).toBe(3);
    expectProblem(await callRoute(buyer, routes.listLines, { params: { operationId: privateOp.id } }), 404, "not_found");
    expectProblem(await callRoute(buyer, routes.putLines, { params: { operationId: publicOp.id }, body: makeLines(1) }), 403, "forbidden");
    expectProblem(await callRoute(buyer, routes.deleteLines, { params: { operationId: publicOp.id }, body: [sku(0)] }), 403, "forbidden");

    // Once one of its accounts is attached, the PRIVATE Operation's lines are readable.
    expectStatus(
      await callRoute(op, routes.putDirectory, { body: [{ accountId: "ACC-1", name: "Acme", users: [{ userId: "u_buyer", email: "b@acme.test" }] }] }),
      200,
    );
    expectStatus(await callRoute(op, routes.attachAccounts, { params: { operationId: privateOp.id }, body: ["ACC-1"] }), 200);
    expect(expectStatus(await callRoute(buyer, routes.listLines, { params: { operationId: privateOp.id } }), 200).items.length).toBe(3);
  });

  it("keeps tenants apart: another tenant's Operation is 404 for every line route", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const operation = await createOperation(owner);
    await putLines(owner, operation.id, makeLines(4));
    expectProblem(await callRoute(other, routes.listLines, { params: { operationId: operation.id } }), 404, "not_found");
    expectProblem(
      await callRoute(other, routes.putLines, { params: { operationId: operation.id }, body: makeLines(1, () => ({ maxQuantity: 99 })) }),
      404,
      "not_found",
    );
    expectProblem(await callRoute(other, routes.deleteLines, { params: { operationId: operation.id }, body: [sku(0)] }), 404, "not_found");
    const { items } = await collectPages(owner, routes.listLines, { params: { operationId: operation.id } });
    expect(items.length).toBe(4);
    expect(items[0].maxQuantity).toBe(10);
    // Same keys in another tenant's own Operation are separate lines.
    const theirs = await createOperation(other);
    expect(await putLines(other, theirs.id, makeLines(2))).toEqual({ created: 2, updated: 0, lineCount: 2 });
  });
});

describe("DELETE lines", () => {
  it("removes found lines, lists the rest, and keeps lineCount exact", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(op, operation.id, makeLines(5000));
    const keys = Array.from({ length: 2500 }, (_, i) => sku(i * 2));
    const removed = expectStatus(
      await callRoute(op, routes.deleteLines, { params: { operationId: operation.id }, body: [...keys, "NOPE-1", keys[0], "NOPE-2"] }),
      200,
    );
    expect(removed).toEqual({ removed: 2500, notFound: ["NOPE-1", "NOPE-2"], lineCount: 2500 });
    const after = await readOperation(op, operation.id);
    expect(after.lineCount).toBe(2500);
    const { items } = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 1000 } });
    expect(items.length).toBe(2500);
    expect(items.every((line) => Number(line.variantExternalId.slice(4)) % 2 === 1)).toBe(true);

    // Removing only missing keys is answered but changes nothing.
    const noop = expectStatus(await callRoute(op, routes.deleteLines, { params: { operationId: operation.id }, body: [sku(0)] }), 200);
    expect(noop).toEqual({ removed: 0, notFound: [sku(0)], lineCount: 2500 });
    expect((await readOperation(op, operation.id)).version).toBe(after.version);
  });

  it("records an event with counts for every batch and bumps the version each time", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(op, operation.id, makeLines(10));
    await putLines(op, operation.id, makeLines(12));
    expectStatus(await callRoute(op, routes.deleteLines, { params: { operationId: operation.id }, body: [sku(0), sku(1), "GONE"] }), 200);
    const events = (await eventsOf(op, { operationId: operation.id })).filter((event) => event.type.startsWith("lines."));
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ["lines.upserted", { created: 10, updated: 0, lineCount: 10 }],
      ["lines.upserted", { created: 2, updated: 10, lineCount: 12 }],
      ["lines.removed", { removed: 2, notFound: 1, lineCount: 10 }],
    ]);
    expect(events.every((event) => event.operationId === operation.id && event.actor.startsWith("key:"))).toBe(true);
    expect((await readOperation(op, operation.id)).version).toBe(operation.version + 3);
  });
});

describe("serialized batches", () => {
  it("20 concurrent batches and a status change: lineCount matches the lines, nothing applies after the change", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    await putLines(
      op,
      operation.id,
      makeLines(1, () => ({}), 90_000),
    );
    const batches = Array.from({ length: 20 }, (_, b) => makeLines(100, () => ({}), b * 100));
    const requests: Promise<ApiResponse>[] = batches.map((lines) => callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: lines }));
    requests.splice(10, 0, callRoute(op, routes.changeStatus, { params: { operationId: operation.id }, body: { status: "ACTIVE" } }));
    const responses = await Promise.all(requests);
    const statusResponse = responses.splice(10, 1)[0];
    expectStatus(statusResponse, 200);

    const applied = responses.filter((response) => response.status === 200);
    for (const response of responses) {
      if (response.status !== 200) expectProblem(response, 409, "operation_not_draft");
    }
    const { items } = await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { limit: 1000 } });
    const final = await readOperation(op, operation.id);
    expect(final.status).toBe("ACTIVE");
    expect(final.lineCount).toBe(items.length);
    expect(items.length).toBe(1 + applied.length * 100);
    // Each applied batch is whole: its 100 lines are all there or none of them.
    for (const lines of batches) {
      const present = lines.filter((line) => items.some((item) => item.variantExternalId === line.variantExternalId)).length;
      expect([0, 100]).toContain(present);
    }

    const events = await eventsOf(op, { operationId: operation.id });
    const statusIndex = events.findIndex((event) => event.type === "operation.status_changed");
    expect(statusIndex).toBeGreaterThan(0);
    expect(events.slice(statusIndex + 1).filter((event) => event.type.startsWith("lines."))).toEqual([]);
    expect(events.filter((event) => event.type === "lines.upserted").length).toBe(1 + applied.length);
    // Every change bumped the version once: create (1) + first line batch + applied batches + status.
    expect(final.version).toBe(1 + 1 + applied.length + 1);
    const statusAt = events[statusIndex].at;
    expect(items.every((line) => line.updatedAt <= statusAt)).toBe(true);
  });
});

describe("idempotent replays", () => {
  it("replays a PUT with the same Idempotency-Key without applying it twice", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const headers = { "Idempotency-Key": uniqueId("idem") };
    const first = await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: makeLines(5), headers });
    const second = await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: makeLines(5), headers });
    expect(second.body).toEqual(first.body);
    expect(second.body).toEqual({ created: 5, updated: 0, lineCount: 5 });
    expect((await readOperation(op, operation.id)).version).toBe(operation.version + 1);
  });
});
