import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callRoute, collectPages, createOperation, eventsOf, expectProblem, expectStatus, newTenant, uniqueId, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";
import { putAccounts } from "../helpers/setup";

const line = (variantExternalId: string, maxQuantity: number, extra: Record<string, unknown> = {}) => ({
  variantExternalId,
  minQuantity: 0,
  maxQuantity,
  ...extra,
});
const withoutTimes = <T extends Record<string, unknown>>(item: T) => {
  const { updatedAt: _u, attachedAt: _a, attachedBy: _b, operationStatus: _s, ...rest } = item;
  return rest;
};

async function snapshot(op: Caller, operationId: string) {
  const params = { operationId };
  const operation = expectStatus(await callRoute(op, routes.getOperation, { params }), 200);
  const lines = (await collectPages(op, routes.listLines, { params })).items.map(withoutTimes);
  const accounts = (await collectPages(op, routes.listAttachments, { params })).items.map((account) => account.accountId);
  return { operation, lines, accounts };
}

/** Whether two snapshots hold the same fields a revert takes back, lines and accounts. */
const sameContent = (a: Awaited<ReturnType<typeof snapshot>>, b: Awaited<ReturnType<typeof snapshot>>) =>
  JSON.stringify([a.lines, a.accounts, a.operation.externalId]) === JSON.stringify([b.lines, b.accounts, b.operation.externalId]);

describe("the difference between two versions", () => {
  it("lists the Operation's fields, its accounts and its lines (added, removed, changed) from one version to another, lines a page at a time", async () => {
    const op = await newTenant();
    await putAccounts(op, [{ accountId: "ACC-1" }, { accountId: "ACC-2" }]);
    const operation = await createOperation(op, { type: "PRIVATE" });
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 10), line("B", 20), line("C", 30)] }), 200);
    expectStatus(await callRoute(op, routes.attachAccountsByPost, { params, body: ["ACC-1"] }), 200);
    const from = expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version;
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 5), line("D", 1)] }), 200);
    expectStatus(await callRoute(op, routes.deleteLines, { params, body: ["B"] }), 200);
    expectStatus(await callRoute(op, routes.attachAccountsByPost, { params, body: ["ACC-2"] }), 200);
    expectStatus(await callRoute(op, routes.detachAccounts, { params, body: ["ACC-1"] }), 200);
    expectStatus(await callRoute(op, routes.patchOperation, { params, body: { externalId: "ERP-9" } }), 200);

    const diff = expectStatus(await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(from) } }), 200);
    expect(diff.to).toBe(from + 5);
    expect(diff.operation).toEqual([{ field: "externalId", previous: null, next: "ERP-9" }]);
    expect(diff.accounts).toEqual([
      { accountId: "ACC-1", change: "detached" },
      { accountId: "ACC-2", change: "attached" },
    ]);
    expect(diff.items.map((item) => [item.variantExternalId, item.change])).toEqual([
      ["A", "changed"],
      ["B", "removed"],
      ["D", "added"],
    ]);
    expect(diff.items[0].changes).toEqual([{ field: "maxQuantity", previous: 10, next: 5 }]);
    // Backwards: the same differences, the other way round.
    const back = expectStatus(await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(from + 5), to: String(from) } }), 200);
    expect(back.items.map((item) => [item.variantExternalId, item.change])).toEqual([
      ["A", "changed"],
      ["B", "added"],
      ["D", "removed"],
    ]);
    // Pages of one line; the Operation and accounts come with the first.
    const first = expectStatus(await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(from), limit: "1" } }), 200);
    const second = expectStatus(
      await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(from), limit: "1", nextToken: first.nextToken! } }),
      200,
    );
    expect([first.items[0].variantExternalId, second.items[0].variantExternalId]).toEqual(["A", "B"]);
    expect(second.operation).toEqual([]);
    // Without `to`, the token keeps the version the first page compared to: a write since moves nothing.
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("C", 31), line("0-NEW", 1)] }), 200);
    const resumed = expectStatus(
      await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(from), limit: "1", nextToken: second.nextToken! } }),
      200,
    );
    expect(resumed).toMatchObject({ to: first.to, items: [{ variantExternalId: "D", change: "added" }] });
    expectProblem(
      await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(from - 1), limit: "1", nextToken: first.nextToken! } }),
      400,
      "invalid_next_token",
    );
    expectProblem(await callRoute(op, routes.diffOperationVersions, { params, query: { from: "999" } }), 404, "version_not_found");
  });
});

describe("reverting an Operation to a version", () => {
  it("on random edit sequences, a revert to any earlier version makes its fields, lines and accounts what they were then, as one new version", async () => {
    const skus = ["A", "B", "C", "D"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.uniqueArray(fc.constantFrom(...skus), { minLength: 1, maxLength: 3 }).map((put) => ({ put })),
            fc.uniqueArray(fc.constantFrom(...skus), { minLength: 1, maxLength: 2 }).map((remove) => ({ remove })),
            fc.constantFrom("ACC-1", "ACC-2").map((attach) => ({ attach })),
            fc.constantFrom("ERP-1", "ERP-2").map((externalId) => ({ externalId })),
          ),
          { minLength: 2, maxLength: 6 },
        ),
        fc.nat(),
        fc.integer({ min: 1, max: 40 }),
        async (edits, pick, max) => {
          const op = await newTenant();
          await putAccounts(op, [{ accountId: "ACC-1" }, { accountId: "ACC-2" }]);
          const operation = await createOperation(op, { type: "PRIVATE" });
          const params = { operationId: operation.id };
          const seen = [await snapshot(op, operation.id)];
          for (const [i, edit] of edits.entries()) {
            if ("put" in edit) await callRoute(op, routes.putLines, { params, body: edit.put.map((sku) => line(sku, max + i)) });
            if ("remove" in edit) await callRoute(op, routes.deleteLines, { params, body: edit.remove });
            if ("attach" in edit) await callRoute(op, routes.attachAccountsByPost, { params, body: [edit.attach] });
            if ("externalId" in edit) await callRoute(op, routes.patchOperation, { params, body: { externalId: edit.externalId } });
            seen.push(await snapshot(op, operation.id));
          }
          const target = seen[pick % seen.length];
          const before = seen[seen.length - 1];
          const answer = expectStatus(await callRoute(op, routes.revertOperation, { params, body: { toVersion: target.operation.version } }), 200);
          const after = await snapshot(op, operation.id);
          expect(after.lines).toEqual(target.lines);
          expect(after.accounts).toEqual(target.accounts);
          expect(after.operation).toMatchObject({
            externalId: target.operation.externalId,
            name: target.operation.name,
            status: before.operation.status,
            lineCount: target.operation.lineCount,
            accountCount: target.operation.accountCount,
            // A new version only when something changes: back to what it already is makes none.
            version: before.operation.version + (sameContent(target, before) ? 0 : 1),
          });
          expect(answer).toMatchObject({ version: after.operation.version, lineCount: after.operation.lineCount });
        },
      ),
      { numRuns: 8 },
    );
  });

  it("a dry run answers the counts and changes nothing; DRAFT only; If-Match; an unknown version; the event and the change records", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 10), line("B", 20)] }), 200);
    const v2 = expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version;
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 5), line("C", 1)] }), 200);
    expectStatus(await callRoute(op, routes.deleteLines, { params, body: ["B"] }), 200);
    const before = await snapshot(op, operation.id);

    const dry = await callRoute(op, routes.revertOperation, { params, query: { dryRun: "true" }, body: { toVersion: v2 } });
    expect(expectStatus(dry, 200).reverted).toEqual({ fields: 0, linesUpserted: 2, linesRemoved: 1, accountsAttached: 0, accountsDetached: 0 });
    expect(dry.headers.get("svc-dry-run")).toBe("true");
    expect(await snapshot(op, operation.id)).toEqual(before);

    expectProblem(
      await callRoute(op, routes.revertOperation, { params, body: { toVersion: v2 }, headers: { "If-Match": `"${v2}"` } }),
      412,
      "version_mismatch",
    );
    expectProblem(await callRoute(op, routes.revertOperation, { params, body: { toVersion: 99 } }), 404, "version_not_found");
    const reverted = await callRoute(op, routes.revertOperation, {
      params,
      body: { toVersion: v2 },
      headers: { "If-Match": `"${before.operation.version}"`, "svc-change-reason": "Undo the cut" },
    });
    expect(expectStatus(reverted, 200).reverted).toEqual({ fields: 0, linesUpserted: 2, linesRemoved: 1, accountsAttached: 0, accountsDetached: 0 });
    expect(reverted.headers.get("etag")).toBe(`"${before.operation.version + 1}"`);
    const event = (await eventsOf(op)).at(-1)!;
    expect(event).toMatchObject({ type: "operation.reverted", operationId: operation.id, data: { fromVersion: before.operation.version, toVersion: v2 } });
    const records = (await collectPages(op, routes.listOperationHistory, { params })).items.filter((record) => record.version === before.operation.version + 1);
    expect(records.map((record) => [record.resourceId, record.action, record.reason])).toEqual(
      expect.arrayContaining([
        ["A", "updated", "Undo the cut"],
        ["B", "created", "Undo the cut"],
        ["C", "deleted", "Undo the cut"],
      ]),
    );
    expect(records).toHaveLength(3);

    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 11)] }), 200);
    expectStatus(await callRoute(op, routes.changeStatus, { params, body: { status: "ACTIVE" } }), 200);
    expectProblem(await callRoute(op, routes.revertOperation, { params, body: { toVersion: v2 } }), 409, "operation_not_draft");
  });

  it("a dry run answers 409 duplicate_code as the revert would, when the code it would restore is taken since", async () => {
    const op = await newTenant();
    const operation = await createOperation(op, { code: uniqueId("OLD") });
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.patchOperation, { params, body: { code: uniqueId("NEW") } }), 200);
    await createOperation(op, { code: operation.code });
    const before = await snapshot(op, operation.id);
    const dry = await callRoute(op, routes.revertOperation, { params, query: { dryRun: "true" }, body: { toVersion: operation.version } });
    const real = await callRoute(op, routes.revertOperation, { params, body: { toVersion: operation.version } });
    expect(expectProblem(dry, 409, "duplicate_code").detail).toContain(operation.code);
    expectProblem(real, 409, "duplicate_code");
    expect(await snapshot(op, operation.id)).toEqual(before);
  });

  it("back to the version it is at makes no version, no event and no record: 200 with the Operation as it is", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.putLines, { params, body: [line("A", 10)] }), 200);
    const current = expectStatus(await callRoute(op, routes.getOperation, { params }), 200);
    const eventCount = (await eventsOf(op)).length;
    const answer = expectStatus(await callRoute(op, routes.revertOperation, { params, body: { toVersion: current.version } }), 200);
    expect(answer).toMatchObject({ version: current.version, reverted: { fields: 0, linesUpserted: 0, linesRemoved: 0 } });
    expect(expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version).toBe(current.version);
    expect(await eventsOf(op)).toHaveLength(eventCount);
    const versions = (await collectPages(op, routes.listOperationHistory, { params })).items.map((record) => record.version);
    expect(Math.max(...(versions as number[]))).toBe(current.version);
  });
});
