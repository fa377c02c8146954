import { describe, expect, it } from "vitest";
import { type ApiResponse, type Caller, callRoute, expectProblem, expectStatus, issueKey, newTenant, type ResponseOf } from "../helpers/client";
import { cartBody, line, setUpOperation } from "../helpers/setup";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

/*
 * POST /v1/buying-policies/quotas/impact: every quota order placed or refused in the window,
 * replayed against today's rules and against them with the proposed changes.
 */
type Impact = ResponseOf<typeof routes.assessQuotaImpact>;
type ImpactBody = NonNullable<(typeof routes.assessQuotaImpact)["types"]>["body"];

const SKUS = ["SKU-A", "SKU-B", "SKU-C"];
const DAY = 86_400_000;

interface Shop {
  op: Caller;
  operationId: string;
}

async function shop(): Promise<Shop> {
  const op = await newTenant();
  const operation = await setUpOperation(op, {
    type: "PUBLIC",
    lines: SKUS.map((variantExternalId) => ({ variantExternalId, minQuantity: 0, maxQuantity: 1000 })),
  });
  return { op, operationId: operation.id };
}

async function rule(op: Caller, body: Record<string, unknown>) {
  return expectStatus(await callRoute(op, routes.createRule, { body }), 201);
}

/** Places an order of `amount` (one line of SKU-A) for `accountId` with `supplierId`; its status (201 placed, 422 refused). */
async function order({ op, operationId }: Shop, accountId: string, supplierId: string | null, amount: number, storeId?: string) {
  const res = await callRoute(op, routes.createOrder, {
    body: cartBody(operationId, accountId, [line("SKU-A", 1, amount, supplierId)], storeId === undefined ? {} : { storeId }),
  });
  expect([201, 422], JSON.stringify(res.body)).toContain(res.status);
  return res.status;
}

function impact(op: Caller, body: ImpactBody, query: Record<string, string | number | null | undefined> = {}): Promise<ApiResponse<Impact>> {
  return callRoute(op, routes.assessQuotaImpact, { body, query }) as Promise<ApiResponse<Impact>>;
}

const entry = (accountId: string, supplierId: string | null, fields: Partial<Impact["accounts"][number]>) => ({
  accountId,
  supplierId,
  storeId: null,
  ...fields,
});

describe("POST /v1/buying-policies/quotas/impact", () => {
  it("replays the orders placed and the orders refused against today's rules and the changed ones", async () => {
    const s = await shop();
    const s1 = await rule(s.op, { supplierId: "S1", minimum: 15_000 });
    expect(await order(s, "A1", "S1", 16_000)).toBe(201);
    expect(await order(s, "A2", "S1", 12_000)).toBe(422);
    expect(await order(s, "A3", "S1", 18_000)).toBe(201);

    const raised = expectStatus(await impact(s.op, { changes: [{ op: "replace", ruleId: s1.id, rule: { supplierId: "S1", minimum: 17_000 } }] }), 200);
    expect(raised).toEqual({
      ordersConsidered: 3,
      before: { blocked: 1, warned: 0 },
      after: { blocked: 2, warned: 0 },
      newlyBlocked: 1,
      newlyAllowed: 0,
      accounts: [
        entry("A1", "S1", { orders: 1, newlyBlocked: 1, newlyAllowed: 0, minimumBefore: 15_000, minimumAfter: 17_000 }),
        entry("A2", "S1", { orders: 1, newlyBlocked: 0, newlyAllowed: 0, minimumBefore: 15_000, minimumAfter: 17_000 }),
        entry("A3", "S1", { orders: 1, newlyBlocked: 0, newlyAllowed: 0, minimumBefore: 15_000, minimumAfter: 17_000 }),
      ],
      nextToken: null,
    });

    // Lowered: the refused order would have gone through.
    const lowered = expectStatus(await impact(s.op, { changes: [{ op: "replace", ruleId: s1.id, rule: { supplierId: "S1", minimum: 10_000 } }] }), 200);
    expect(lowered).toMatchObject({ ordersConsidered: 3, before: { blocked: 1 }, after: { blocked: 0 }, newlyBlocked: 0, newlyAllowed: 1 });
    expect(lowered.accounts[0]).toEqual(entry("A2", "S1", { orders: 1, newlyBlocked: 0, newlyAllowed: 1, minimumBefore: 15_000, minimumAfter: 10_000 }));
  });
});

/** Moves `accountId`'s facts back in time, as if its orders had been placed `days` ago. */
async function age(tenantId: string, accountId: string, days: number) {
  const db = await tenantDb(tenantId);
  const at = new Date(Date.now() - days * DAY).toISOString();
  await db.prepare("update quota_order_facts set at = ? where tenant_id = ? and account_id = ?").bind(at, tenantId, accountId).run();
}

const isoSeconds = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

describe("the changes and the default replayed", () => {
  it("creates, deletes and a new default, WARN minimums counted as warned", async () => {
    const s = await shop();
    const s1 = await rule(s.op, { supplierId: "S1", minimum: 15_000 });
    expectStatus(await callRoute(s.op, routes.putQuotaDefault, { body: { minimum: 1_000 } }), 200);
    await order(s, "A1", "S1", 16_000);
    await order(s, "A2", "S1", 12_000); // refused
    await order(s, "A1", null, 1_500);
    await order(s, "A2", "S2", 800); // refused by the default

    // A WARN rule for A1 with S1 above its order; S1's rule goes (A2 falls to the default); the default warns at 2000.
    const answer = expectStatus(
      await impact(s.op, {
        changes: [
          { op: "create", rule: { accountId: "A1", supplierId: "S1", minimum: 20_000, enforcement: "WARN" } },
          { op: "delete", ruleId: s1.id },
        ],
        default: { minimum: 2_000, enforcement: "WARN" },
      }),
      200,
    );
    expect(answer).toEqual({
      ordersConsidered: 4,
      before: { blocked: 2, warned: 0 },
      after: { blocked: 0, warned: 3 },
      newlyBlocked: 0,
      newlyAllowed: 2,
      accounts: [
        entry("A2", "S1", { orders: 1, newlyBlocked: 0, newlyAllowed: 1, minimumBefore: 15_000, minimumAfter: 2_000 }),
        entry("A2", "S2", { orders: 1, newlyBlocked: 0, newlyAllowed: 1, minimumBefore: 1_000, minimumAfter: 2_000 }),
        entry("A1", null, { orders: 1, newlyBlocked: 0, newlyAllowed: 0, minimumBefore: 1_000, minimumAfter: 2_000 }),
        entry("A1", "S1", { orders: 1, newlyBlocked: 0, newlyAllowed: 0, minimumBefore: 15_000, minimumAfter: 20_000 }),
      ],
      nextToken: null,
    });
  });

  it("lists only the keys whose minimum or outcome changes; a default alone needs no change", async () => {
    const s = await shop();
    await rule(s.op, { accountId: "A1", minimum: 5_000 });
    await order(s, "A1", "S1", 6_000);
    await order(s, "A2", "S1", 6_000);
    const answer = expectStatus(await impact(s.op, { changes: [], default: { minimum: 7_000, enforcement: "BLOCK" } }), 200);
    expect(answer).toMatchObject({ ordersConsidered: 2, before: { blocked: 0 }, after: { blocked: 1 }, newlyBlocked: 1 });
    expect(answer.accounts).toEqual([entry("A2", "S1", { orders: 1, newlyBlocked: 1, newlyAllowed: 0, minimumBefore: 0, minimumAfter: 7_000 })]);
  });

  it("matches by store as evaluation does: an order's store, rules of every store or of that store", async () => {
    const s = await shop();
    await order(s, "A1", "S1", 3_000, "st-1");
    await order(s, "A1", "S1", 3_000, "st-2");
    const answer = expectStatus(await impact(s.op, { changes: [{ op: "create", rule: { accountId: "A1", storeId: "st-2", minimum: 4_000 } }] }), 200);
    expect(answer).toMatchObject({ ordersConsidered: 2, newlyBlocked: 1 });
    expect(answer.accounts).toEqual([
      { accountId: "A1", supplierId: "S1", storeId: "st-2", orders: 1, newlyBlocked: 1, newlyAllowed: 0, minimumBefore: 0, minimumAfter: 4_000 },
    ]);
  });
});

describe("the window", () => {
  it("is the last 90 days unless from and to say otherwise, both ends included", async () => {
    const s = await shop();
    await order(s, "RECENT", "S1", 100);
    await order(s, "OLD", "S1", 100);
    await order(s, "OLDER", "S1", 100);
    await age(s.op.tenantId, "OLD", 100);
    await age(s.op.tenantId, "OLDER", 200);
    const raise = { changes: [{ op: "create" as const, rule: { supplierId: "S1", minimum: 1_000 } }] };
    const keys = (answer: Impact) => answer.accounts.map((account) => account.accountId).sort();

    const recent = expectStatus(await impact(s.op, raise), 200);
    expect([recent.ordersConsidered, keys(recent)]).toEqual([1, ["RECENT"]]);
    const year = expectStatus(await impact(s.op, { ...raise, from: isoSeconds(Date.now() - 365 * DAY) }), 200);
    expect([year.ordersConsidered, keys(year)]).toEqual([3, ["OLD", "OLDER", "RECENT"]]);
    const before = expectStatus(await impact(s.op, { ...raise, from: isoSeconds(Date.now() - 300 * DAY), to: isoSeconds(Date.now() - 150 * DAY) }), 200);
    expect(keys(before)).toEqual(["OLDER"]);
    // To the second, both ends: the fact's own second is in, the second after it is out.
    const db = await tenantDb(s.op.tenantId);
    const { at } = (await db
      .prepare("select at from quota_order_facts where tenant_id = ? and account_id = 'OLD'")
      .bind(s.op.tenantId)
      .first<{ at: string }>())!;
    const second = `${at.slice(0, 19)}Z`;
    expect(keys(expectStatus(await impact(s.op, { ...raise, from: second, to: second }), 200))).toEqual(["OLD"]);
    expect(
      keys(expectStatus(await impact(s.op, { ...raise, from: isoSeconds(Date.parse(second) + 1000), to: isoSeconds(Date.parse(second) + 5000) }), 200)),
    ).toEqual([]);
  });

  it("is bounded: at most 366 days, from not after to (400 naming the field)", async () => {
    const s = await shop();
    const changes = [{ op: "create" as const, rule: { supplierId: "S1", minimum: 1 } }];
    const field = (res: ApiResponse) => [...new Set(expectProblem(res, 400, "validation_failed").errors?.map((error) => error.field))];
    expect(field(await impact(s.op, { changes, from: "2026-01-01T00:00:00Z", to: "2027-01-03T00:00:00Z" }))).toEqual(["body.to"]);
    expect(field(await impact(s.op, { changes, from: isoSeconds(Date.now() - 400 * DAY) }))).toEqual(["body.from"]);
    expect(field(await impact(s.op, { changes, from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }))).toEqual(["body.from"]);
    expect(field(await impact(s.op, { changes, to: "yesterday" }))).toEqual(["body.to"]);
    expectStatus(await impact(s.op, { changes, from: "2026-01-01T00:00:00Z", to: "2027-01-02T00:00:00Z" }), 200);
  });
});

describe("the accounts, paginated", () => {
  it("most newly blocked first, then most newly allowed, then by key; nextToken pages through them all, each once", async () => {
    const s = await shop();
    const s1 = await rule(s.op, { supplierId: "S1", minimum: 5_000 });
    // Newly blocked under 9000: B-x has two orders between 5000 and 9000, A-x one; C-x is refused today (4000) and stays so.
    for (const account of ["A-1", "A-2", "A-3"]) await order(s, account, "S1", 6_000);
    for (const account of ["B-1", "B-2"]) {
      await order(s, account, "S1", 6_000);
      await order(s, account, "S1", 7_000);
    }
    await order(s, "C-1", "S1", 4_000);
    await order(s, "D-1", "S1", 9_500);
    const body = { changes: [{ op: "replace" as const, ruleId: s1.id, rule: { supplierId: "S1", minimum: 9_000 } }] };
    const all = expectStatus(await impact(s.op, body), 200);
    expect(all.accounts.map((a) => [a.accountId, a.newlyBlocked])).toEqual([
      ["B-1", 2],
      ["B-2", 2],
      ["A-1", 1],
      ["A-2", 1],
      ["A-3", 1],
      ["C-1", 0],
      ["D-1", 0],
    ]);
    expect(all).toMatchObject({ ordersConsidered: 9, newlyBlocked: 7, nextToken: null });

    const pages: Impact[] = [];
    let nextToken: string | null | undefined;
    do {
      const page = expectStatus(await impact(s.op, body, { limit: 2, nextToken }), 200);
      pages.push(page);
      nextToken = page.nextToken;
      // A new order meanwhile is not in the window the first page fixed: every page has the same totals.
      if (pages.length === 1) await order(s, "E-1", "S1", 6_000);
    } while (nextToken);
    expect(pages.map((page) => page.accounts.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flatMap((page) => page.accounts)).toEqual(all.accounts);
    for (const page of pages) expect({ ...page, accounts: [], nextToken: null }).toEqual({ ...all, accounts: [], nextToken: null });

    // The token belongs to its body.
    const first = expectStatus(await impact(s.op, body, { limit: 2 }), 200);
    const otherBody = { changes: [{ op: "replace" as const, ruleId: s1.id, rule: { supplierId: "S1", minimum: 9_001 } }] };
    expectProblem(await impact(s.op, otherBody, { limit: 2, nextToken: first.nextToken }), 400, "invalid_next_token");
    expectProblem(await impact(s.op, body, { nextToken: "not-a-token" }), 400, "invalid_next_token");
    const field = (res: ApiResponse) => expectProblem(res, 400, "validation_failed").errors?.map((error) => error.field);
    expect(field(await impact(s.op, body, { limit: 0 }))).toEqual(["query.limit"]);
    expect(field(await impact(s.op, body, { limit: 501 }))).toEqual(["query.limit"]);
  });
});

/** The status and code of an answer: what the impact must answer alike with the write. */
function answerOf(res: ApiResponse) {
  return { status: res.status, code: (res.body as { code?: string }).code };
}

describe("invalid changes answer as the writes would, and nothing is replayed", () => {
  it("400 naming the field, 413 past 5000 changes, empty changes without a default", async () => {
    const s = await shop();
    const fields = (res: ApiResponse) => [...new Set(expectProblem(res, 400, "validation_failed").errors?.map((error) => error.field))];
    const badRule = { accountId: "A1", minimum: -1 };
    expect(
      fields(
        await impact(s.op, {
          changes: [
            { op: "create", rule: { supplierId: "S1", minimum: 1 } },
            { op: "create", rule: badRule },
          ],
        }),
      ),
    ).toEqual(["body.changes.1.rule.minimum"]);
    // The rule write refuses the same body for the same field.
    expect(fields(await callRoute(s.op, routes.createRule, { body: badRule }))).toEqual(["body.minimum"]);
    expect(fields(await impact(s.op, { changes: [{ op: "create", rule: { minimum: 1 } }] }))).toEqual(["body.changes.0.rule.accountId"]);
    expect(fields(await impact(s.op, { changes: [{ op: "rename", ruleId: "qr_x" }] } as never))).toEqual(["body.changes.0.op"]);
    expect(fields(await impact(s.op, { changes: [{ op: "delete" }] } as never))).toEqual(["body.changes.0.ruleId"]);
    expect(fields(await impact(s.op, { changes: [] }))).toEqual(["body.changes"]);
    expect(fields(await impact(s.op, { changes: [], default: { minimum: 1.5 } }))).toEqual(["body.default.minimum"]);
    expect(fields(await impact(s.op, { changes: [], default: { minimum: 1 }, extra: true } as never))).toEqual(["body"]);
    const many = Array.from({ length: 5001 }, (_, i) => ({ op: "create" as const, rule: { accountId: `A${i}`, minimum: 1 } }));
    expectProblem(await impact(s.op, { changes: many }), 413, "batch_too_large");
    expectStatus(await impact(s.op, { changes: many.slice(0, 5000) }), 200);
  });

  it("404 not_found for a replace or delete of an unknown rule, before any 409; errors[] names each change", async () => {
    const s = await shop();
    const r1 = await rule(s.op, { supplierId: "S1", minimum: 100 });
    const unknown = "qr_01JQ4A2B3C4D5E6F7G8H9J0K1M";
    const other = await newTenant();
    const foreign = await rule(other, { supplierId: "S1", minimum: 100 });
    // What the writes answer.
    expect(answerOf(await callRoute(s.op, routes.updateRule, { params: { ruleId: unknown }, body: { supplierId: "S9", minimum: 1 } }))).toEqual({
      status: 404,
      code: "not_found",
    });
    expect(answerOf(await callRoute(s.op, routes.deleteRule, { params: { ruleId: foreign.id } }))).toEqual({ status: 404, code: "not_found" });

    const problem = expectProblem(
      await impact(s.op, {
        changes: [
          { op: "create", rule: { supplierId: "S1", minimum: 5 } }, // 409 on its own: 404s answer first
          { op: "replace", ruleId: unknown, rule: { supplierId: "S9", minimum: 1 } },
          { op: "delete", ruleId: foreign.id },
          { op: "delete", ruleId: r1.id },
          { op: "delete", ruleId: r1.id }, // deleted by the change before
        ],
      }),
      404,
      "not_found",
    );
    expect(problem.errors?.map((error) => [error.index, error.field, error.code])).toEqual([
      [1, "body.changes.1.ruleId", "not_found"],
      [2, "body.changes.2.ruleId", "not_found"],
      [4, "body.changes.4.ruleId", "not_found"],
    ]);
  });

  it("409 duplicate_scope for a create or replace onto a scope a rule holds, then (changes apply in order)", async () => {
    const s = await shop();
    const r1 = await rule(s.op, { supplierId: "S1", minimum: 100 });
    const r2 = await rule(s.op, { accountId: "A1", supplierId: "S1", minimum: 100 });
    // What the writes answer.
    expect(answerOf(await callRoute(s.op, routes.createRule, { body: { supplierId: "S1", minimum: 7 } }))).toEqual({ status: 409, code: "duplicate_scope" });
    expect(answerOf(await callRoute(s.op, routes.updateRule, { params: { ruleId: r2.id }, body: { supplierId: "S1", minimum: 7 } }))).toEqual({
      status: 409,
      code: "duplicate_scope",
    });

    const conflicts = async (changes: ImpactBody["changes"]) =>
      expectProblem(await impact(s.op, { changes }), 409, "duplicate_scope").errors?.map((error) => [error.index, error.field]);
    expect(await conflicts([{ op: "create", rule: { supplierId: "S1", storeId: null, minimum: 7 } }])).toEqual([[0, "body.changes.0.rule"]]);
    expect(await conflicts([{ op: "replace", ruleId: r2.id, rule: { supplierId: "S1", minimum: 7 } }])).toEqual([[0, "body.changes.0.rule"]]);
    expect(
      await conflicts([
        { op: "create", rule: { accountId: "A2", minimum: 7 } },
        { op: "create", rule: { accountId: "A3", minimum: 7 } },
        { op: "create", rule: { accountId: "A2", minimum: 8 } },
      ]),
    ).toEqual([[2, "body.changes.2.rule"]]);

    // In order, as the writes one after another: a scope freed by an earlier change may be taken.
    expectStatus(
      await impact(s.op, {
        changes: [
          { op: "delete", ruleId: r1.id },
          { op: "create", rule: { supplierId: "S1", minimum: 9 } },
          { op: "replace", ruleId: r2.id, rule: { accountId: "A1", supplierId: "S2", minimum: 9 } },
          { op: "create", rule: { accountId: "A1", supplierId: "S1", minimum: 9 } },
          { op: "replace", ruleId: r2.id, rule: { accountId: "A1", supplierId: "S2", minimum: 10 } },
        ],
      }),
      200,
    );
    // The other way round, the create finds the scope taken.
    expect(
      await conflicts([
        { op: "create", rule: { supplierId: "S1", minimum: 9 } },
        { op: "delete", ruleId: r1.id },
      ]),
    ).toEqual([[0, "body.changes.0.rule"]]);
  });

  it("OPERATOR only", async () => {
    const s = await shop();
    const account = await issueKey(s.op.tenantId, "ACCOUNT", "u-1");
    expectProblem(await impact(account, { changes: [], default: { minimum: 1 } }), 403, "forbidden");
  });
});

describe("an impact changes nothing", () => {
  async function everything(tenantId: string) {
    const db = await tenantDb(tenantId);
    const read = async (sql: string) => (await db.prepare(sql).bind(tenantId).all()).results;
    return {
      tenant: await read("select * from tenants where id = ?"),
      rules: await read("select * from quota_rules where tenant_id = ? order by id"),
      events: await read("select id from events where tenant_id = ? order by id"),
      facts: await read("select * from quota_order_facts where tenant_id = ? order by account_id, supplier_id, store_id, record_id"),
      idempotency: await read("select * from idempotency_keys where tenant_id = ?"),
    };
  }

  it("no row, no version, no event, no stored answer (an Idempotency-Key is ignored), the read budget", async () => {
    const s = await shop();
    const r1 = await rule(s.op, { supplierId: "S1", minimum: 100 });
    await order(s, "A1", "S1", 150);
    const before = await everything(s.op.tenantId);
    const body = {
      changes: [{ op: "replace" as const, ruleId: r1.id, rule: { supplierId: "S1", minimum: 200 } }],
      default: { minimum: 5, enforcement: "WARN" as const },
    };
    const key = { "Idempotency-Key": `impact-${s.op.tenantId}` };
    expectStatus(await callRoute(s.op, routes.assessQuotaImpact, { body, headers: key }), 200);
    // The same key with another body is run again: nothing was stored under it (a write would answer 422 idempotency_key_reused).
    const again = await callRoute(s.op, routes.assessQuotaImpact, { body: { ...body, default: { minimum: 6 } }, headers: key });
    expectStatus(again, 200);
    expect(await everything(s.op.tenantId)).toEqual(before);
    expect(before.facts).toHaveLength(1);

    // It spends the read budget, not the write budget.
    const refusing = { limit: async () => ({ success: false }) } as unknown as RateLimit;
    expectStatus(await callRoute(s.op, routes.assessQuotaImpact, { body, env: { RATE_LIMIT_WRITE: refusing } }), 200);
    expectProblem(await callRoute(s.op, routes.assessQuotaImpact, { body, env: { RATE_LIMIT_READ: refusing } }), 429, "rate_limited");
  });
});

describe("the facts: one per quota order, in the batch that places or refuses the order", () => {
  async function facts(tenantId: string) {
    const db = await tenantDb(tenantId);
    const { results } = await db
      .prepare("select account_id, supplier_id, store_id, record_id, amount from quota_order_facts where tenant_id = ? order by record_id, supplier_id")
      .bind(tenantId)
      .all<Record<string, unknown>>();
    return results;
  }

  it("records every supplier's part of a placed order under its id, and of a refused one under its order.blocked event", async () => {
    const s = await shop();
    await rule(s.op, { supplierId: "S2", minimum: 10_000 });
    const lines = [line("SKU-A", 2, 300, "S1"), line("SKU-B", 1, 500), line("SKU-C", 1, 50, "S1")];
    const placed = expectStatus(
      await callRoute(s.op, routes.createOrder, { body: cartBody(s.operationId, "A1", lines), headers: { "svc-store": "st-1" } }),
      201,
    );
    const refused = expectProblem(
      await callRoute(s.op, routes.createOrder, { body: cartBody(s.operationId, "A1", [line("SKU-A", 1, 900, "S2"), line("SKU-B", 1, 100, "S1")]) }),
      422,
      "quota_min_not_met",
    );
    const [blocked] = expectStatus(await callRoute(s.op, routes.listEvents, { query: { types: "order.blocked" } }), 200).items;
    expect(await facts(s.op.tenantId)).toEqual(
      [
        { account_id: "A1", supplier_id: "", store_id: "st-1", record_id: placed.id, amount: 500 },
        { account_id: "A1", supplier_id: "S1", store_id: "st-1", record_id: placed.id, amount: 650 },
        { account_id: "A1", supplier_id: "S1", store_id: "", record_id: blocked.id, amount: 100 },
        { account_id: "A1", supplier_id: "S2", store_id: "", record_id: blocked.id, amount: 900 },
      ].sort((a, b) => (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : a.supplier_id < b.supplier_id ? -1 : 1)),
    );
    expect(refused.orders).toHaveLength(2);
  });

  it("never without its order or its event: a fact that cannot be written leaves neither", async () => {
    const s = await shop();
    await rule(s.op, { supplierId: "S1", minimum: 1_000 });
    const refusedAccount = `A-REFUSED-${s.op.tenantId}`;
    const db = await tenantDb(s.op.tenantId);
    const trigger = `test_refuse_facts_${s.op.tenantId.replace(/\W/g, "_")}`;
    await db
      .prepare(
        `create trigger ${trigger} before insert on quota_order_facts when new.account_id = '${refusedAccount}' begin select raise(abort, 'refused by the test'); end`,
      )
      .run();
    try {
      const placed = await callRoute(s.op, routes.createOrder, { body: cartBody(s.operationId, refusedAccount, [line("SKU-A", 1, 2_000, "S1")]) });
      const blocked = await callRoute(s.op, routes.createOrder, { body: cartBody(s.operationId, refusedAccount, [line("SKU-A", 1, 500, "S1")]) });
      expect([placed.status, blocked.status]).toEqual([500, 500]);
    } finally {
      await db.prepare(`drop trigger ${trigger}`).run();
    }
    const left = await db.batch<{ n: number }>([
      db.prepare("select count(*) as n from orders where tenant_id = ?").bind(s.op.tenantId),
      db.prepare("select count(*) as n from events where tenant_id = ? and type in ('order.created', 'order.blocked')").bind(s.op.tenantId),
      db.prepare("select count(*) as n from quota_order_facts where tenant_id = ?").bind(s.op.tenantId),
    ]);
    expect(left.map((result) => result.results[0].n)).toEqual([0, 0, 0]);
  });
});
