import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, callRoute, collectPages, createOperation, expectProblem, expectStatus, newTenant, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";
import { ownLineFields, putAccounts } from "../helpers/setup";

const SKUS = ["A", "B", "C", "D", "E", "F"];
const ACCOUNTS = ["ACC-1", "ACC-2", "ACC-3"];

/** One write to the Operation, as a random sequence makes them. */
type Edit =
  | { kind: "put"; lines: { sku: string; max: number; min?: number; name?: string; recommended?: number | null }[] }
  | { kind: "remove"; skus: string[] }
  | { kind: "patch"; name: string; externalId: string | null }
  | { kind: "attach"; accounts: string[] }
  | { kind: "detach"; accounts: string[] };

const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constant("put" as const),
    lines: fc.uniqueArray(
      fc.record({
        sku: fc.constantFrom(...SKUS),
        max: fc.integer({ min: 5, max: 60 }),
        min: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
        name: fc.option(fc.constantFrom("Shirt", "Chemise", "Hemd"), { nil: undefined }),
        recommended: fc.option(fc.constantFrom(4, null), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 4, selector: (line) => line.sku },
    ),
  }),
  fc.record({ kind: fc.constant("remove" as const), skus: fc.uniqueArray(fc.constantFrom(...SKUS), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant("patch" as const), name: fc.constantFrom("Spring", "Summer", "Fall"), externalId: fc.constantFrom("ERP-1", "ERP-2", null) }),
  fc.record({ kind: fc.constant("attach" as const), accounts: fc.uniqueArray(fc.constantFrom(...ACCOUNTS), { minLength: 1, maxLength: 2 }) }),
  fc.record({ kind: fc.constant("detach" as const), accounts: fc.uniqueArray(fc.constantFrom(...ACCOUNTS), { minLength: 1, maxLength: 2 }) }),
);

async function apply(op: Caller, operationId: string, edit: Edit) {
  const params = { operationId };
  switch (edit.kind) {
    case "put": {
      const body = edit.lines.map((line) => ({
        variantExternalId: line.sku,
        maxQuantity: line.max,
        minQuantity: line.min ?? 0,
        ...(line.name !== undefined && { variantName: { en: line.name } }),
        ...(line.recommended !== undefined && { recommendedQuantity: line.recommended }),
      }));
      return callRoute(op, routes.putLines, { params, body });
    }
    case "remove":
      return callRoute(op, routes.deleteLines, { params, body: edit.skus });
    case "patch":
      return callRoute(op, routes.patchOperation, { params, body: { name: { en: edit.name }, externalId: edit.externalId } });
    case "attach":
      return callRoute(op, routes.attachAccountsByPost, { params, body: edit.accounts });
    case "detach":
      return callRoute(op, routes.detachAccounts, { params, body: edit.accounts });
  }
}

const withoutTimes = <T extends Record<string, unknown>>(item: T) => {
  // Order and allocation figures are today's, not a version's: asOf lines have none.
  const { attachedAt: _attached, ...rest } = ownLineFields(item);
  return rest;
};

async function stateOf(op: Caller, operationId: string) {
  const operation = expectStatus(await callRoute(op, routes.getOperation, { params: { operationId } }), 200);
  const lines = (await collectPages(op, routes.listLines, { params: { operationId } })).items;
  const accounts = (await collectPages(op, routes.listAttachments, { params: { operationId } })).items.map((account) => account.accountId);
  return { operation, lines, accounts };
}

type LineSeen = Awaited<ReturnType<typeof stateOf>>["lines"][number];

/** What a diff from lines `a` to lines `b` shows: each line added, removed or changed (with the fields that differ), by variantExternalId. */
function expectedDiff(a: LineSeen[], b: LineSeen[]) {
  const skus = [...new Set([...a, ...b].map((line) => line.variantExternalId))].sort();
  return skus.flatMap((sku) => {
    const before = a.find((line) => line.variantExternalId === sku);
    const after = b.find((line) => line.variantExternalId === sku);
    if (!before) return [[sku, "added"]];
    if (!after) return [[sku, "removed"]];
    const fields = (["variantId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const).filter(
      (field) => JSON.stringify(before[field] ?? null) !== JSON.stringify(after[field] ?? null),
    );
    // Sorted, as the answer's fields are read (collectDiff): the order of a change's fields is not what is compared.
    return fields.length ? [[sku, "changed", [...fields].sort()]] : [];
  });
}

async function collectDiff(op: Caller, operationId: string, from: number, to: number) {
  const items: unknown[] = [];
  let nextToken: string | undefined;
  do {
    const page = expectStatus(
      await callRoute(op, routes.diffOperationVersions, {
        params: { operationId },
        query: { from: String(from), to: String(to), limit: "2", ...(nextToken && { nextToken }) },
      }),
      200,
    );
    for (const item of page.items)
      items.push(
        item.change === "changed"
          ? [item.variantExternalId, item.change, item.changes.map((change) => change.field).sort()]
          : [item.variantExternalId, item.change],
      );
    nextToken = page.nextToken ?? undefined;
  } while (nextToken);
  return items;
}

describe("an Operation at any version", () => {
  it("on random edit sequences, every version's Operation, lines?asOf and accounts?asOf equal what it was then", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(editArbitrary, { minLength: 3, maxLength: 9 }), async (edits) => {
        const op = await newTenant();
        await putAccounts(
          op,
          ACCOUNTS.map((accountId) => ({ accountId })),
        );
        const operation = await createOperation(op, { type: "PRIVATE" });
        const seen = [await stateOf(op, operation.id)];
        for (const edit of edits) {
          const answer = await apply(op, operation.id, edit);
          if (answer.status >= 300) continue; // refused (bounds): changes nothing
          seen.push(await stateOf(op, operation.id));
        }
        for (const [index, then] of seen.entries()) {
          const version = then.operation.version;
          const at = expectStatus(await call(op, "GET", `/v1/operations/${operation.id}/versions/${version}`), 200) as Record<string, unknown>;
          expect(withoutTimes(at)).toEqual(withoutTimes(then.operation as unknown as Record<string, unknown>));
          const lines = (await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { asOf: String(version), limit: "2" } }))
            .items;
          expect(lines.map(withoutTimes)).toEqual(then.lines.map(withoutTimes));
          // The default order pages without undoing every line; other sorts and filters undo them all: both agree with
          // what was. Those at every other version and the last: each reads every line again, at whatever version.
          const accounts = (
            await collectPages(op, routes.listAttachments, { params: { operationId: operation.id }, query: { asOf: String(version) } })
          ).items.map((account) => account.accountId);
          expect(accounts).toEqual(then.accounts);
          if (index % 2 === 1 && index !== seen.length - 1) continue;
          const pastLines = async (query: Record<string, string>) =>
            (await collectPages(op, routes.listLines, { params: { operationId: operation.id }, query: { asOf: String(version), ...query } })).items.map(
              (line) => line.variantExternalId,
            );
          const skus = then.lines.map((line) => line.variantExternalId);
          expect(await pastLines({ sort: "-variantExternalId", limit: "3" })).toEqual([...skus].reverse());
          expect(await pastLines({ variantIds: "B,D,F", limit: "1" })).toEqual(skus.filter((sku) => "BDF".includes(sku)));
          expect(await pastLines({ minQuantity: "0", limit: "2" })).toEqual(
            then.lines.filter((line) => line.minQuantity === 0).map((line) => line.variantExternalId),
          );
        }
        // The difference between two versions, either way round, two lines a page: what differs between the states seen then.
        const pairs = seen.flatMap((a, i) => [[a, seen[seen.length - 1 - i]] as const, [seen[0], a] as const]);
        for (const [a, b] of pairs) {
          const diff = await collectDiff(op, operation.id, a.operation.version, b.operation.version);
          expect(diff).toEqual(expectedDiff(a.lines, b.lines));
        }
      }),
      { numRuns: 8 },
    );
    // About 5 s alone: a few hundred small paged reads, which a machine busy with other suites can make six times slower.
  }, 180_000);

  it("sorts and filters a past version's lines as the current ones; an unknown version is 404 version_not_found; asOf is the OPERATOR's", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(
      await callRoute(op, routes.putLines, {
        params,
        body: [
          { variantExternalId: "A", minQuantity: 0, maxQuantity: 30, variantName: { en: "Zebra" } },
          { variantExternalId: "B", minQuantity: 0, maxQuantity: 10, variantName: { en: "Apple" } },
        ],
      }),
      200,
    );
    const v2 = expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version;
    expectStatus(
      await callRoute(op, routes.putLines, {
        params,
        body: [
          { variantExternalId: "A", maxQuantity: 5 },
          { variantExternalId: "C", minQuantity: 0, maxQuantity: 1 },
        ],
      }),
      200,
    );
    const byMax = (await collectPages(op, routes.listLines, { params, query: { asOf: String(v2), sort: "-maxQuantity" } })).items;
    expect(byMax.map((line) => [line.variantExternalId, line.maxQuantity])).toEqual([
      ["A", 30],
      ["B", 10],
    ]);
    expect(
      (await collectPages(op, routes.listLines, { params, query: { asOf: String(v2), sort: "variantName" } })).items.map((line) => line.variantExternalId),
    ).toEqual(["B", "A"]);
    expect(
      (await collectPages(op, routes.listLines, { params, query: { asOf: String(v2), maxQuantity: "30" } })).items.map((line) => line.variantExternalId),
    ).toEqual(["A"]);
    expectProblem(await call(op, "GET", `/v1/operations/${operation.id}/versions/99`), 404, "version_not_found");
    expectProblem(await callRoute(op, routes.listLines, { params, query: { asOf: "99" } }), 404, "version_not_found");
    expectProblem(await call(op, "GET", `/v1/operations/${operation.id}/versions/0`), 400, "validation_failed");
    expectProblem(await call(op, "GET", "/v1/operations/op_00000000000000000000000000/versions/1"), 404, "not_found");
    // Past pages sort text as the current list does (SQLite compares code points: U+FF21 before U+1F600, which UTF-16 would put first).
    const wide = ["X\u{1F600}", "X\uFF21", "XA"].map((variantExternalId) => ({ variantExternalId, minQuantity: 0, maxQuantity: 3 }));
    expectStatus(await callRoute(op, routes.putLines, { params, body: wide }), 200);
    const v4 = expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version;
    expectStatus(await callRoute(op, routes.deleteLines, { params, body: ["A"] }), 200);
    const order = async (query: Record<string, string>) =>
      (await collectPages(op, routes.listLines, { params, query: { limit: "1", ...query } })).items.map((line) => line.variantExternalId);
    const now = await order({});
    expect(now.slice(-3)).toEqual(["XA", "X\uFF21", "X\u{1F600}"]);
    expect(await order({ asOf: String(v4) })).toEqual(["A", ...now]);
    expect(await order({ asOf: String(v4), minQuantity: "0" })).toEqual(["A", ...now]);
    // A token of the current list does not page a past version.
    const current = expectStatus(await callRoute(op, routes.listLines, { params, query: { limit: "1" } }), 200);
    expectProblem(
      await callRoute(op, routes.listLines, { params, query: { asOf: String(v2), limit: "1", nextToken: current.nextToken! } }),
      400,
      "invalid_next_token",
    );
  });
});
