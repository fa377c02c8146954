import { describe, expect, it } from "vitest";
import { call, callRoute, createOperation, expectProblem, expectStatus, newTenant } from "../helpers/client";
import { routes } from "../helpers/routes";

/*
 * Read-your-writes across replicas (D1 Sessions API): every answer carries x-d1-bookmark, writes
 * included; a request that sends one reads in a session that has every write up to it.
 */
const BOOKMARK = /^[0-9a-f]+(-[0-9a-f]+)+$/;
const bookmarkOf = (response: { headers: Headers }) => response.headers.get("x-d1-bookmark");

describe("x-d1-bookmark", () => {
  it("is on every answer: reads, Worker writes, Durable Object writes, problems", async () => {
    const op = await newTenant();
    const created = await callRoute(op, routes.createOperation, { body: { code: "BM-1", name: { en: "B" }, type: "PUBLIC", startDate: "2027-01-01", endDate: "2027-02-01" } });
    const operationId = expectStatus(created, 201).id;
    const answers = [
      created,
      await callRoute(op, routes.listOperations),
      await callRoute(op, routes.putLines, { params: { operationId }, body: [{ variantExternalId: "S1", minQuantity: 1, maxQuantity: 2 }] }),
      await callRoute(op, routes.createRule, { body: { accountId: "A1", minimum: 5 } }),
      await callRoute(op, routes.evaluateQuotas, { body: { orders: [{ accountId: "A1", amount: 1 }] } }),
      await callRoute(op, routes.getOperation, { params: { operationId: "op_00000000000000000000000000" } }),
    ];
    for (const response of answers) expect(bookmarkOf(response) ?? "none", `${response.status} ${response.text.slice(0, 100)}`).toMatch(BOOKMARK);
  });

  it("moves forward with every write, and a read with a write's bookmark sees the write", async () => {
    const op = await newTenant();
    const before = bookmarkOf(await callRoute(op, routes.listOperations))!;
    const created = await callRoute(op, routes.createOperation, { body: { code: "BM-2", name: { en: "B" }, type: "PUBLIC", startDate: "2027-01-01", endDate: "2027-02-01" } });
    const afterCreate = bookmarkOf(created)!;
    expect(afterCreate > before).toBe(true);
    const operationId = created.body.id;
    const read = await callRoute(op, routes.getOperation, { params: { operationId }, headers: { "x-d1-bookmark": afterCreate } });
    expect(expectStatus(read, 200).id).toBe(operationId);
    expect(bookmarkOf(read)! >= afterCreate).toBe(true);

    const lines = await callRoute(op, routes.putLines, { params: { operationId }, body: [{ variantExternalId: "S1", minQuantity: 1, maxQuantity: 2 }] });
    const afterLines = bookmarkOf(lines)!;
    expect(afterLines > afterCreate).toBe(true);
    const listed = await callRoute(op, routes.listLines, { params: { operationId }, headers: { "x-d1-bookmark": afterLines } });
    expect(expectStatus(listed, 200).items.map((line) => line.variantExternalId)).toEqual(["S1"]);
  });

  it("refuses a header that is not a bookmark with 400, before anything runs", async () => {
    const op = await newTenant();
    for (const value of ["yesterday", "0000-zz", "'; drop table operations; --"]) {
      expectProblem(await call(op, "POST", "/v1/operations", { body: { code: "X" }, headers: { "x-d1-bookmark": value } }), 400, "validation_failed");
    }
    await createOperation(op);
  });
});
