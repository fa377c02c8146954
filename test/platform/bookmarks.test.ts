import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { shardNames } from "../../src/platform/core/shards";
import { callRoute, createOperation, expectProblem, expectStatus, newTenant, operationBody, withoutRequestId } from "../helpers/client";
import { routes } from "../helpers/routes";

/*
 * Read-your-writes across replicas (D1 Sessions API): every answer carries x-d1-bookmark, writes
 * included; a request that sends one reads in a session that has every write up to it.
 */
/** "SHARD_n:" and D1's bookmark: a bookmark names the database it belongs to. */
const BOOKMARK = /^SHARD_[0-9A-Z_]+:[0-9a-f]+(-[0-9a-f]+)+$/;
const bookmarkOf = (response: { headers: Headers }) => response.headers.get("x-d1-bookmark");

describe("x-d1-bookmark", () => {
  it("is on every answer: reads, Worker writes, Durable Object writes, problems", async () => {
    const op = await newTenant();
    const created = await callRoute(op, routes.createOperation, {
      body: { code: "BM-1", name: { en: "B" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" },
    });
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
    const created = await callRoute(op, routes.createOperation, {
      body: { code: "BM-2", name: { en: "B" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" },
    });
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

  it.each(["yesterday", "0000-zz", "'; drop table operations; --", "shard_1:0000-0001", "SHARD_1:yesterday", ":0000-0001"])(
    "refuses the header %j (not a bookmark) with 400, before anything runs",
    async (value) => {
      const op = await newTenant();
      expectProblem(await callRoute(op, routes.createOperation, { body: { code: "X" }, headers: { "x-d1-bookmark": value } }), 400, "validation_failed");
      await createOperation(op);
    },
  );

  it("names the tenant's shard; a bookmark of another shard (the tenant moved since) reads from the primary", async () => {
    const op = await newTenant({ shard: "SHARD_2" });
    const created = await callRoute(op, routes.createOperation, {
      body: { code: "BM-3", name: { en: "B" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" },
    });
    const written = bookmarkOf(created)!;
    expect(written.startsWith("SHARD_2:")).toBe(true);
    const [, bare] = written.split(":");
    // A bare D1 bookmark is taken as the tenant's shard's; one named with another shard is not used as a position.
    for (const header of [bare, `SHARD_1:${bare}`]) {
      const read = await callRoute(op, routes.getOperation, { params: { operationId: created.body.id }, headers: { "x-d1-bookmark": header } });
      expect(expectStatus(read, 200).id).toBe(created.body.id);
      expect(bookmarkOf(read)!.startsWith("SHARD_2:")).toBe(true);
    }
  });

  it("refuses a bookmark naming a database this deployment has no shard of (SHARD_9, CONTROL) with the same 400 as any bad bookmark, changing nothing", async () => {
    const op = await newTenant();
    expect(shardNames(env)).not.toContain("SHARD_9");
    const garbled = expectProblem(await callRoute(op, routes.listOperations, { headers: { "x-d1-bookmark": "yesterday" } }), 400, "validation_failed");
    for (const header of ["SHARD_9:0000000a-00000001", "CONTROL:0000000a-00000001", "SHARD_1X:0000000a-00000001"]) {
      for (const response of [
        await callRoute(op, routes.listOperations, { headers: { "x-d1-bookmark": header } }),
        await callRoute(op, routes.createOperation, { body: operationBody(), headers: { "x-d1-bookmark": header } }),
      ]) {
        const problem = expectProblem(response, 400, "validation_failed");
        expect(withoutRequestId(problem), header).toEqual(withoutRequestId(garbled));
      }
    }
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items).toEqual([]);
    await createOperation(op);
  });
});
