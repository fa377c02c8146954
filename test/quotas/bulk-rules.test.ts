import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callRoute, collectPages, eventsOf, expectProblem, expectStatus, newTenant, type Caller, withoutRequestId } from "../helpers/client";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

const rulesOf = async (caller: Caller) =>
  (await collectPages(caller, routes.listRules, { query: { limit: 500 } })).items.map(({ accountId, supplierId, storeId, minimum }) => ({
    accountId,
    supplierId,
    storeId,
    minimum,
  }));

async function rulesVersion(tenantId: string): Promise<number> {
  const row = await (await tenantDb(tenantId)).prepare("select rules_version as v from tenants where id = ?").bind(tenantId).first<{ v: number }>();
  return row!.v;
}

/** Everything a bulk rule write may change: the rules, the version, the events. */
async function state(caller: Caller) {
  return { rules: await rulesOf(caller), version: await rulesVersion(caller.tenantId), events: await eventsOf(caller) };
}

const evaluate = async (caller: Caller, accountId: string, supplierId: string | null, amount: number) =>
  expectStatus(await callRoute(caller, routes.evaluateQuotas, { body: { orders: [{ accountId, supplierId, storeId: null, amount }] } }), 200).results[0];

describe("PUT /v1/buying-policies/quotas/rules (bulk)", () => {
  it("upserts by scope: counts created, updated and unchanged, one event, one version bump, evaluation sees it at once", async () => {
    const op = await newTenant();
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A1", supplierId: "S1", minimum: 100 } }), 201);
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A2", minimum: 50 } }), 201);
    expect((await evaluate(op, "A1", "S1", 150)).allowed).toBe(true);
    const before = await rulesVersion(op.tenantId);
    const eventsBefore = (await eventsOf(op)).length;

    const answer = await callRoute(op, routes.upsertRules, {
      body: [
        { accountId: "A1", supplierId: "S1", minimum: 200 }, // updated
        { accountId: "A2", minimum: 50 }, // unchanged
        { supplierId: "S9", storeId: "ST1", minimum: 7 }, // created
        { accountId: "A3", supplierId: null, storeId: null, minimum: 0 }, // created
      ],
    });
    expect(expectStatus(answer, 200)).toEqual({ created: 2, updated: 1, unchanged: 1 });
    expect(answer.headers.get("svc-dry-run")).toBeNull();
    expect(await rulesVersion(op.tenantId)).toBe(before + 1);
    const events = await eventsOf(op);
    expect(events.slice(eventsBefore).map((event: { type: string; data: unknown }) => [event.type, event.data])).toEqual([
      ["rules.upserted", { created: 2, updated: 1, unchanged: 1 }],
    ]);
    expect(await rulesOf(op)).toEqual(
      expect.arrayContaining([
        { accountId: "A1", supplierId: "S1", storeId: null, minimum: 200 },
        { accountId: "A2", supplierId: null, storeId: null, minimum: 50 },
        { accountId: null, supplierId: "S9", storeId: "ST1", minimum: 7 },
        { accountId: "A3", supplierId: null, storeId: null, minimum: 0 },
      ]),
    );
    expect((await rulesOf(op)).length).toBe(4);
    expect(await evaluate(op, "A1", "S1", 150)).toMatchObject({ allowed: false, effectiveMinimum: 200 });

    // Nothing to change: counted, and nothing written (no bump, no event).
    expect(expectStatus(await callRoute(op, routes.upsertRules, { body: [{ accountId: "A2", minimum: 50 }] }), 200)).toEqual({
      created: 0,
      updated: 0,
      unchanged: 1,
    });
    expect(await rulesVersion(op.tenantId)).toBe(before + 1);
  });

  it("writes 5000 rules in one call within D1's limits", async () => {
    const op = await newTenant();
    const body = Array.from({ length: 5000 }, (_, i) => ({ accountId: `ACC-${i}`, supplierId: i % 2 ? `SUP-${i % 7}` : null, minimum: i }));
    expect(expectStatus(await callRoute(op, routes.upsertRules, { body }), 200)).toEqual({ created: 5000, updated: 0, unchanged: 0 });
    const again = body.map((rule, i) => ({ ...rule, minimum: i % 3 === 0 ? rule.minimum + 1 : rule.minimum }));
    expect(expectStatus(await callRoute(op, routes.upsertRules, { body: again }), 200)).toEqual({ created: 0, updated: 1667, unchanged: 3333 });
    expect(await evaluate(op, "ACC-3", "SUP-3", 1)).toMatchObject({ effectiveMinimum: 4 });
  });

  it("inserts a batch's new rules in the supplier index's order, whatever order they were sent in (each of its pages written once)", async () => {
    const op = await newTenant();
    // Suppliers cycling through the batch, as a client's batch often does; every third without one.
    const body = Array.from({ length: 300 }, (_, i) => ({ accountId: `ACC-${i}`, supplierId: i % 3 === 0 ? null : `SUP-${(i * 7) % 11}`, minimum: i }));
    expect(expectStatus(await callRoute(op, routes.upsertRules, { body }), 200)).toMatchObject({ created: 300 });
    const { results } = await (await tenantDb(op.tenantId))
      .prepare("select supplier_id as supplierId, id from quota_rules where tenant_id = ? order by rowid")
      .bind(op.tenantId)
      .all<{ supplierId: string | null; id: string }>();
    const key = (rule: { supplierId: string | null; id: string }) => [rule.supplierId === null ? 0 : 1, rule.supplierId ?? "", rule.id] as const;
    const inIndexOrder = [...results].sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
    });
    expect(results).toHaveLength(300);
    expect(results.map((rule) => rule.id)).toEqual(inIndexOrder.map((rule) => rule.id));
  });

  it("refuses the whole batch for one bad rule, a repeated scope or more than 5000 rules, changing nothing", async () => {
    const op = await newTenant();
    expectStatus(await callRoute(op, routes.upsertRules, { body: [{ accountId: "A1", minimum: 1 }] }), 200);
    const before = await state(op);
    const bad = expectProblem(
      await callRoute(op, routes.upsertRules, {
        body: [
          { accountId: "A1", minimum: 5 },
          { storeId: "ST1", minimum: 3 },
          { accountId: "A4", minimum: -1 },
        ],
      }),
      400,
      "validation_failed",
    );
    expect(bad.errors?.map((error) => error.field)).toEqual(expect.arrayContaining([expect.stringMatching(/^body\.1\./), "body.2.minimum"]));
    const repeated = expectProblem(
      await callRoute(op, routes.upsertRules, {
        body: [
          { accountId: "A1", minimum: 5 },
          { accountId: "A1", supplierId: null, minimum: 6 },
        ],
      }),
      400,
      "validation_failed",
    );
    expect(repeated.errors).toEqual([expect.objectContaining({ code: "duplicate_key", field: "body.1.scope" })]);
    expectProblem(
      await callRoute(op, routes.upsertRules, { body: Array.from({ length: 5001 }, (_, i) => ({ accountId: `A${i}`, minimum: 1 })) }),
      413,
      "batch_too_large",
    );
    expectProblem(await callRoute(op, routes.upsertRules, { body: [] }), 400, "validation_failed");
    expect(await state(op)).toEqual(before);
  });
});

describe("DELETE /v1/buying-policies/quotas/rules (bulk)", () => {
  it("deletes the tenant's rules among the ids, lists the others (another tenant's included) as notFound", async () => {
    const [op, other] = [await newTenant(), await newTenant()];
    const mine = await Promise.all(
      ["A1", "A2", "A3"].map(async (accountId) => expectStatus(await callRoute(op, routes.createRule, { body: { accountId, minimum: 10 } }), 201).id),
    );
    const theirs = expectStatus(await callRoute(other, routes.createRule, { body: { accountId: "A1", minimum: 10 } }), 201).id;
    const answer = expectStatus(await callRoute(op, routes.deleteRules, { body: [mine[0], theirs, mine[2], "qr_unknown", mine[0]] }), 200);
    expect(answer).toEqual({ deleted: 2, notFound: [theirs, "qr_unknown"] });
    expect((await rulesOf(op)).map((rule) => rule.accountId)).toEqual(["A2"]);
    expect((await rulesOf(other)).length).toBe(1);
    expect((await eventsOf(op)).at(-1)).toMatchObject({ type: "rules.deleted", data: { deleted: 2, notFound: 2 } });
    expect(await evaluate(op, "A1", null, 1)).toMatchObject({ effectiveMinimum: 0 });
    // Deleting nothing writes nothing.
    const version = await rulesVersion(op.tenantId);
    expect(expectStatus(await callRoute(op, routes.deleteRules, { body: ["qr_unknown"] }), 200)).toEqual({ deleted: 0, notFound: ["qr_unknown"] });
    expect(await rulesVersion(op.tenantId)).toBe(version);
  });
});

describe("?dryRun=true on the bulk rule writes", () => {
  const ruleArbitrary = fc.record({
    accountId: fc.option(fc.constantFrom("A1", "A2", "A3", "A4"), { nil: null }),
    supplierId: fc.option(fc.constantFrom("S1", "S2"), { nil: null }),
    storeId: fc.option(fc.constantFrom("ST1"), { nil: null }),
    minimum: fc.integer({ min: -2, max: 300 }),
  });

  it("answers exactly what the real call answers, with svc-dry-run: true, and changes nothing (random batches)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(ruleArbitrary, { maxLength: 3 }),
        fc.array(ruleArbitrary, { minLength: 0, maxLength: 8 }),
        fc.boolean(),
        async (seed, batch, remove) => {
          const op = await newTenant();
          const valid = seed.filter((rule) => (rule.accountId || rule.supplierId) && rule.minimum >= 0);
          const seeded = new Map(valid.map((rule) => [JSON.stringify([rule.accountId, rule.supplierId, rule.storeId]), rule]));
          if (seeded.size) expectStatus(await callRoute(op, routes.upsertRules, { body: [...seeded.values()] }), 200);
          const ids = (await collectPages(op, routes.listRules)).items.map((rule: { id: string }) => rule.id);
          const send = (dryRun: boolean) =>
            remove
              ? callRoute(op, routes.deleteRules, { body: [...ids.slice(0, batch.length), "qr_missing"], query: dryRun ? { dryRun: "true" } : {} })
              : callRoute(op, routes.upsertRules, { body: batch, query: dryRun ? { dryRun: "true" } : {} });
          const before = await state(op);
          const dry = await send(true);
          expect(await state(op)).toEqual(before);
          const real = await send(false);
          expect(dry.status).toBe(real.status);
          expect(withoutRequestId(dry.body)).toEqual(withoutRequestId(real.body));
          expect(dry.headers.get("svc-dry-run")).toBe(dry.status === 200 ? "true" : null);
          expect(real.headers.get("svc-dry-run")).toBeNull();
        },
      ),
      { numRuns: 15 },
    );
  });
});
