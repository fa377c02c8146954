import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectPages, eventsOf, expectStatus, newTenant, type ApiResponse, type Caller, callRoute, withoutRequestId } from "../helpers/client";
import { routes } from "../helpers/routes";
import { putAccounts, setUpOperation } from "../helpers/setup";

/*
 * ?dryRun=true on every batch write: on random batches (valid or not), the dry run answers exactly
 * what the real call then answers (status, body, errors[]), marked svc-dry-run: true, and leaves
 * everything as it was (rows, the Operation's version, events). The bulk rule writes have their
 * own property in test/quotas/bulk-rules.test.ts.
 */
const KEYS = ["SKU-1", "SKU-2", "SKU-3", "SKU-4", "SKU-5"];
const ACCOUNTS = ["A1", "A2", "A3", "A4"];
const UNKNOWN_ACCOUNTS = ["A8", "A9"];

const lineArbitrary = fc.record(
  {
    variantExternalId: fc.constantFrom(...KEYS),
    minQuantity: fc.integer({ min: 0, max: 12 }),
    maxQuantity: fc.integer({ min: 0, max: 12 }),
    recommendedQuantity: fc.option(fc.integer({ min: 0, max: 14 }), { nil: null }),
    quantityIncrement: fc.integer({ min: 1, max: 4 }),
  },
  { requiredKeys: ["variantExternalId"] },
);

interface World {
  op: Caller;
  operationId: string;
}

async function world(): Promise<World> {
  const op = await newTenant();
  await putAccounts(
    op,
    ACCOUNTS.map((accountId) => ({ accountId })),
  );
  const created = await setUpOperation(op, {
    status: "DRAFT",
    lines: [
      { variantExternalId: "SKU-1", minQuantity: 1, maxQuantity: 5 },
      { variantExternalId: "SKU-2", minQuantity: 0, maxQuantity: 9 },
    ],
    attach: ["A1", "A2"],
  });
  return { op, operationId: created.id };
}

/** Everything these writes may change. */
async function state({ op, operationId }: World) {
  const operation = await callRoute(op, routes.getOperation, { params: { operationId } });
  return {
    operation: operation.body,
    etag: operation.headers.get("etag"),
    lines: (await collectPages(op, routes.listLines, { params: { operationId }, query: { limit: 1000 } })).items,
    attachments: (await collectPages(op, routes.listAttachments, { params: { operationId }, query: { limit: 1000 } })).items,
    directory: (await collectPages(op, routes.listDirectory, { query: { limit: 1000 } })).items,
    events: await eventsOf(op),
  };
}

interface Case<T> {
  name: string;
  batch: fc.Arbitrary<T>;
  send: (w: World, batch: T, dryRun: boolean) => Promise<ApiResponse>;
}

const query = (dryRun: boolean) => (dryRun ? { dryRun: "true" } : {});
const accountIds = fc.array(fc.constantFrom(...ACCOUNTS, ...UNKNOWN_ACCOUNTS), { maxLength: 5 });

const CASES: Case<unknown>[] = [
  {
    name: "PUT …/lines",
    batch: fc.array(lineArbitrary, { maxLength: 6 }),
    send: (w, batch, dryRun) => callRoute(w.op, routes.putLines, { params: { operationId: w.operationId }, body: batch, query: query(dryRun) }),
  },
  {
    name: "DELETE …/lines",
    batch: fc.array(fc.constantFrom(...KEYS), { maxLength: 5 }),
    send: (w, batch, dryRun) => callRoute(w.op, routes.deleteLines, { params: { operationId: w.operationId }, body: batch, query: query(dryRun) }),
  },
  {
    name: "PUT …/accounts (attach)",
    batch: accountIds,
    send: (w, batch, dryRun) => callRoute(w.op, routes.attachAccounts, { params: { operationId: w.operationId }, body: batch, query: query(dryRun) }),
  },
  {
    name: "POST …/accounts (attach)",
    batch: accountIds,
    send: (w, batch, dryRun) => callRoute(w.op, routes.attachAccountsByPost, { params: { operationId: w.operationId }, body: batch, query: query(dryRun) }),
  },
  {
    name: "DELETE …/accounts (detach)",
    batch: accountIds,
    send: (w, batch, dryRun) => callRoute(w.op, routes.detachAccounts, { params: { operationId: w.operationId }, body: batch, query: query(dryRun) }),
  },
  {
    name: "PUT /v1/accounts (directory)",
    batch: fc.array(fc.record({ accountId: fc.constantFrom(...ACCOUNTS, "A5", "A6"), name: fc.constantFrom("North", "South", "") }), { maxLength: 4 }),
    send: (w, batch, dryRun) => callRoute(w.op, routes.putDirectory, { body: batch, query: query(dryRun) }),
  },
];

describe("?dryRun=true on every batch write", () => {
  for (const { name, batch, send } of CASES) {
    it(`${name}: answers exactly what the real call answers, and changes nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(batch, async (value) => {
          const w = await world();
          const before = await state(w);
          const dry = await send(w, value, true);
          expect(await state(w)).toEqual(before);
          const real = await send(w, value, false);
          expect({ status: dry.status, body: withoutRequestId(dry.body) }).toEqual({ status: real.status, body: withoutRequestId(real.body) });
          expect(dry.headers.get("svc-dry-run")).toBe(dry.status === 200 ? "true" : null);
          expect(real.headers.get("svc-dry-run")).toBeNull();
        }),
        { numRuns: 6 },
      );
    });
  }

  it("is refused for anything but true or false", async () => {
    const w = await world();
    expectStatus(
      await callRoute(w.op, routes.putLines, {
        params: { operationId: w.operationId },
        body: [{ variantExternalId: "SKU-1", maxQuantity: 6 }],
        query: { dryRun: "yes" },
      }),
      400,
    );
  });
});
