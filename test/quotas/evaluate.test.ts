import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { call, type Caller, callRoute, expectProblem, expectStatus, issueKey, newTenant, type CallOptions, type ResponseOf } from "../helpers/client";
import { routes } from "../helpers/routes";
import { accountWithKey } from "../helpers/setup";
import { shardOf, tenantDb } from "../helpers/shards";
import { shardNames } from "../../src/platform/core/shards";

const EVALUATE = "/v1/buying-policies/quotas/evaluate";

interface Order {
  accountId: string;
  supplierId?: string | null;
  storeId?: string | null;
  amount: number;
}

async function createRule(caller: Caller, body: Record<string, unknown>) {
  return expectStatus(await callRoute(caller, routes.createRule, { body }), 201);
}

async function evaluate(caller: Caller, orders: Order[], options: { store?: string; explain?: boolean } = {}) {
  const response = await callRoute(caller, routes.evaluateQuotas, {
    body: { orders },
    headers: options.store ? { "svc-store": options.store } : {},
    query: options.explain ? { explain: "true" } : {},
  });
  return expectStatus(response, 200).results;
}

async function evaluateOne(caller: Caller, order: Order, options: { store?: string } = {}) {
  return (await evaluate(caller, [order], options))[0];
}

const decidedBy = (result: ResponseOf<typeof routes.evaluateQuotas>["results"][number]) => [result.source.kind, result.source.ruleId, result.effectiveMinimum];

describe("evaluate: resolution", () => {
  it("walks the levels: Account+Supplier, then Account, then Supplier, then the default", async () => {
    const op = await newTenant();
    const accountSupplier = await createRule(op, { accountId: "A1", supplierId: "S1", minimum: 100 });
    const account = await createRule(op, { accountId: "A1", minimum: 200 });
    const supplier = await createRule(op, { supplierId: "S1", minimum: 300 });
    await createRule(op, { supplierId: "S2", minimum: 400 });
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 50 } }), 200);

    const results = await evaluate(op, [
      { accountId: "A1", supplierId: "S1", amount: 1000 },
      { accountId: "A1", supplierId: "S3", amount: 1000 },
      { accountId: "A2", supplierId: "S1", amount: 1000 },
      { accountId: "A2", supplierId: "S3", amount: 1000 },
      { accountId: "A1", amount: 1000 },
      { accountId: "A2", supplierId: null, amount: 1000 },
    ]);
    expect(results.map(decidedBy)).toEqual([
      ["ACCOUNT_SUPPLIER", accountSupplier.id, 100],
      ["ACCOUNT", account.id, 200],
      ["SUPPLIER", supplier.id, 300],
      ["DEFAULT", null, 50],
      ["ACCOUNT", account.id, 200], // no supplier: Account-only rules and the default only
      ["DEFAULT", null, 50],
    ]);
  });

  it("answers allowed, reason, shortfall and amount as §7 defines them", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", minimum: 15000 });
    const [below, equal, above] = await evaluate(op, [
      { accountId: "A1", amount: 12000 },
      { accountId: "A1", amount: 15000 },
      { accountId: "A1", amount: 15001 },
    ]);
    expect(below).toEqual({
      allowed: false,
      reason: "quota_min_not_met",
      effectiveMinimum: 15000,
      amount: 12000,
      shortfall: 3000,
      source: { kind: "ACCOUNT", ruleId: rule.id },
      enforcement: "BLOCK",
    });
    expect(equal).toMatchObject({ allowed: true, reason: null, shortfall: 0, amount: 15000 });
    expect(above).toMatchObject({ allowed: true, reason: null, shortfall: 0, amount: 15001 });
  });

  it("within a level the highest minimum wins, and on equal minimums the oldest rule", async () => {
    const op = await newTenant();
    const older = await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 500 });
    const newer = await createRule(op, { accountId: "A1", supplierId: "S1", minimum: 500 });
    const higher = await createRule(op, { accountId: "A1", storeId: "st_1", minimum: 900 });
    await createRule(op, { accountId: "A1", minimum: 100 });
    expect(older.id < newer.id).toBe(true);
    expect(decidedBy(await evaluateOne(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", amount: 0 }))).toEqual(["ACCOUNT_SUPPLIER", older.id, 500]);
    expect(decidedBy(await evaluateOne(op, { accountId: "A1", storeId: "st_1", amount: 0 }))).toEqual(["ACCOUNT", higher.id, 900]);
    // Raising the newer rule's minimum makes it win.
    expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: newer.id }, body: { accountId: "A1", supplierId: "S1", minimum: 501 } }), 200);
    expect(decidedBy(await evaluateOne(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", amount: 0 }))).toEqual(["ACCOUNT_SUPPLIER", newer.id, 501]);
  });
});

describe("evaluate: stores", () => {
  it("a store rule needs the order's store; a rule without store matches every store; svc-store supplies a missing storeId", async () => {
    const op = await newTenant();
    const everyStore = await createRule(op, { supplierId: "S1", minimum: 100 });
    const store1 = await createRule(op, { supplierId: "S1", storeId: "st_1", minimum: 700 });
    const accountStore2 = await createRule(op, { accountId: "A1", storeId: "st_2", minimum: 50 });
    const order = { accountId: "A1", supplierId: "S1", amount: 600 };

    expect(decidedBy(await evaluateOne(op, order))).toEqual(["SUPPLIER", everyStore.id, 100]);
    expect(decidedBy(await evaluateOne(op, { ...order, storeId: "st_1" }))).toEqual(["SUPPLIER", store1.id, 700]);
    expect(decidedBy(await evaluateOne(op, { ...order, storeId: "st_3" }))).toEqual(["SUPPLIER", everyStore.id, 100]);
    // From the header:
    expect(decidedBy(await evaluateOne(op, order, { store: "st_1" }))).toEqual(["SUPPLIER", store1.id, 700]);
    expect(decidedBy(await evaluateOne(op, order, { store: "st_2" }))).toEqual(["ACCOUNT", accountStore2.id, 50]);
    // The order's own storeId wins over the header; null means "no store" even with the header.
    expect(decidedBy(await evaluateOne(op, { ...order, storeId: "st_1" }, { store: "st_2" }))).toEqual(["SUPPLIER", store1.id, 700]);
    expect(decidedBy(await evaluateOne(op, { ...order, storeId: null }, { store: "st_1" }))).toEqual(["SUPPLIER", everyStore.id, 100]);
  });
});

describe("evaluate: batches, shapes and roles", () => {
  const order = { accountId: "A1", amount: 1 };

  it("takes 1 to 100 orders; more is 413 batch_too_large even when items are invalid; none is 400", async () => {
    const op = await newTenant();
    expect(
      await evaluate(
        op,
        Array.from({ length: 100 }, () => order),
      ),
    ).toHaveLength(100);
    expectProblem(await callRoute(op, routes.evaluateQuotas, { body: { orders: Array.from({ length: 101 }, () => order) } }), 413, "batch_too_large");
    expectProblem(
      await callRoute(op, routes.evaluateQuotas, { body: { orders: Array.from({ length: 101 }, () => ({ amount: -1 })) } }),
      413,
      "batch_too_large",
    );
    expectProblem(await callRoute(op, routes.evaluateQuotas, { body: { orders: [] } }), 400, "validation_failed");
  });

  it.each<{ name: string; body: unknown; field: string }>([
    { name: "no orders", body: {}, field: "body.orders" },
    { name: "an order without accountId", body: { orders: [{ amount: 1 }] }, field: "body.orders.0.accountId" },
    { name: "a negative amount in the second order", body: { orders: [order, { accountId: "A1", amount: -1 }] }, field: "body.orders.1.amount" },
    { name: "an amount past 2^53 - 1", body: { orders: [{ accountId: "A1", amount: 2 ** 53 }] }, field: "body.orders.0.amount" },
    { name: "a fractional amount", body: { orders: [{ accountId: "A1", amount: 1.5 }] }, field: "body.orders.0.amount" },
    { name: "an unknown field", body: { orders: [{ accountId: "A1", amount: 1, currency: "EUR" }] }, field: "body.orders.0" },
    { name: "a numeric supplierId", body: { orders: [{ accountId: "A1", supplierId: 3, amount: 1 }] }, field: "body.orders.0.supplierId" },
  ])("refuses $name with 400 naming $field", async ({ body, field }) => {
    const op = await newTenant();
    const problem = expectProblem(await callRoute(op, routes.evaluateQuotas, { body }), 400, "validation_failed");
    expect(problem.errors?.map((e) => e.field)).toContain(field);
  });

  it("refuses an explain that is not a boolean with 400", async () => {
    const op = await newTenant();
    expectProblem(await callRoute(op, routes.evaluateQuotas, { body: { orders: [order] }, query: { explain: "yes" } }), 400, "validation_failed");
  });

  it("ACCOUNT keys may evaluate their own accounts; tenants never see each other's rules", async () => {
    const owner = await newTenant();
    const rule = await createRule(owner, { accountId: "A1", minimum: 100 });
    const { caller: account } = await accountWithKey(owner, "A1");
    expect(decidedBy(await evaluateOne(account, { accountId: "A1", amount: 5 }))).toEqual(["ACCOUNT", rule.id, 100]);
    const stranger = await newTenant();
    expect(decidedBy(await evaluateOne(stranger, { accountId: "A1", amount: 5 }))).toEqual(["DEFAULT", null, 0]);
    expectProblem(await callRoute(null, routes.evaluateQuotas, { body: { orders: [order] } }), 401, "unauthorized");
  });
});

describe("evaluate: ACCOUNT keys", () => {
  it("evaluate only the accounts their user belongs to: others answer 403 account_not_permitted, naming them", async () => {
    const op = await newTenant();
    await createRule(op, { accountId: "A2", minimum: 700 });
    const { caller: account } = await accountWithKey(op, "A1");
    const refused = expectProblem(
      await callRoute(account, routes.evaluateQuotas, {
        body: {
          orders: [
            { accountId: "A1", amount: 5 },
            { accountId: "A2", amount: 5 },
            { accountId: "A3", amount: 5 },
          ],
        },
      }),
      403,
      "account_not_permitted",
    );
    expect(refused.accountIds).toEqual(["A2", "A3"]);
    expect(JSON.stringify(refused)).not.toContain("qr_"); // nothing of another account's rules
    expect(await evaluate(account, [{ accountId: "A1", amount: 5 }])).toHaveLength(1);
    // OPERATOR keys evaluate any account of the tenant.
    expect(
      await evaluate(op, [
        { accountId: "A2", amount: 5 },
        { accountId: "A9", amount: 5 },
      ]),
    ).toHaveLength(2);
  });
});

describe("evaluate: explain", () => {
  it("lists the candidates of each level and why each lost, only when asked", async () => {
    const op = await newTenant();
    const winner = await createRule(op, { accountId: "A1", supplierId: "S1", minimum: 300 });
    const tie = await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 300 });
    const lower = await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_2", minimum: 100 });
    const account = await createRule(op, { accountId: "A1", minimum: 50 });
    const order = { accountId: "A1", supplierId: "S1", storeId: "st_1", amount: 10 };
    expect((await evaluateOne(op, order)).explanation).toBeUndefined();

    const [result] = await evaluate(op, [order], { explain: true });
    expect(decidedBy(result)).toEqual(["ACCOUNT_SUPPLIER", winner.id, 300]);
    const levels = result.explanation?.levels.map((level) => [level.level, level.candidates.map((c) => [c.ruleId, c.outcome])]);
    expect(levels).toEqual([
      [
        "ACCOUNT_SUPPLIER",
        [
          [winner.id, "selected"],
          [tie.id, "tie_older_rule_wins"],
          [lower.id, "store_mismatch"],
        ],
      ],
      ["ACCOUNT", [[account.id, "shadowed_by_higher_level"]]],
      ["SUPPLIER", []],
    ]);
    expect(result.explanation?.storeId).toBe("st_1");
    expect(result.explanation?.default).toEqual({ minimum: 0, outcome: "shadowed_by_higher_level" });

    // On st_2 the cheaper store rule matches and loses on its minimum.
    const [st2] = await evaluate(op, [{ ...order, storeId: "st_2" }], { explain: true });
    expect(st2.explanation?.levels[0].candidates.map((c) => [c.ruleId, c.outcome])).toEqual([
      [winner.id, "selected"],
      [lower.id, "lower_minimum"],
      [tie.id, "store_mismatch"],
    ]);
  });

  it("is for OPERATOR keys only: an explanation shows rules, which ACCOUNT keys may not read", async () => {
    const op = await newTenant();
    await createRule(op, { accountId: "A1", minimum: 50 });
    const account = await issueKey(op.tenantId, "ACCOUNT", "u_1");
    const body = { orders: [{ accountId: "A1", amount: 10 }] };
    expectProblem(await callRoute(account, routes.evaluateQuotas, { body, query: { explain: "true" } }), 403, "forbidden");
    expectProblem(await callRoute(account, routes.evaluateQuotas, { body, query: { explain: "false" } }), 403, "forbidden");
  });

  it.each<{ name: string; input: CallOptions }>([
    { name: "with an invalid body", input: { body: { orders: "not orders" }, query: { explain: "true" } } },
    { name: "with a body that is not JSON", input: { rawBody: "{ not json", query: { explain: "true" } } },
    { name: "with an explain that is not a boolean", input: { body: { orders: [] }, query: { explain: "maybe" } } },
  ])("answers 403 to an ACCOUNT key sending explain $name (before it reads the body or the query's value)", async ({ input }) => {
    const op = await newTenant();
    const account = await issueKey(op.tenantId, "ACCOUNT", "u_1");
    expectProblem(await call(account, "POST", EVALUATE, input), 403, "forbidden");
  });

  it("answers an ACCOUNT key's bad body without explain with its 400", async () => {
    const op = await newTenant();
    const account = await issueKey(op.tenantId, "ACCOUNT", "u_1");
    expectProblem(await callRoute(account, routes.evaluateQuotas, { body: { orders: "not orders" } }), 400, "validation_failed");
  });
});

describe("evaluate: large tenants", () => {
  it("reads every rule of a tenant whose rules span many packed chunks, interleaved with another tenant's", async () => {
    const op = await newTenant();
    // On the same shard, so the two tenants' rules interleave in one table.
    const other = await newTenant({ shard: await shardOf(op.tenantId) });
    const rows = Array.from({ length: 1500 }, (_, i) => {
      const tenantId = i % 2 ? other.tenantId : op.tenantId;
      return [`qr_bulk_${String(i).padStart(5, "0")}`, tenantId, `A${Math.floor(i / 2)}`, i % 2 ? 1 : 1000 + i];
    });
    await (await tenantDb(op.tenantId))
      .prepare(
        `insert into quota_rules (id, tenant_id, account_id, minimum, created_at, updated_at)
       select value->>0, value->>1, value->>2, value->>3, 'x', 'x' from json_each(?)`,
      )
      .bind(JSON.stringify(rows))
      .run();
    const sample = Array.from({ length: 100 }, (_, k) => 2 * Math.floor((k * 749) / 99));
    const results = await evaluate(
      op,
      sample.map((i) => ({ accountId: `A${i / 2}`, amount: 0 })),
    );
    expect(results.map((r) => [r.source.ruleId, r.effectiveMinimum])).toEqual(sample.map((i) => [`qr_bulk_${String(i).padStart(5, "0")}`, 1000 + i]));
    const theirs = await evaluate(other, [{ accountId: "A0", amount: 0 }]);
    expect(theirs[0]).toMatchObject({ effectiveMinimum: 1, source: { ruleId: "qr_bulk_00001" } });
  });
});

describe("evaluate: freshness", () => {
  afterEach(() => vi.restoreAllMocks());

  it("sees a rule's creation, update and deletion and a default change at the very next request", async () => {
    const op = await newTenant();
    const order = { accountId: "A1", supplierId: "S1", amount: 100 };
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["DEFAULT", null, 0]); // warms the index

    const rule = await createRule(op, { accountId: "A1", minimum: 200 });
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["ACCOUNT", rule.id, 200]);

    expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A1", supplierId: "S1", minimum: 50 } }), 200);
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["ACCOUNT_SUPPLIER", rule.id, 50]);

    expectStatus(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }), 204);
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["DEFAULT", null, 0]);

    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 150 } }), 200);
    expect(await evaluateOne(op, order)).toMatchObject({ allowed: false, shortfall: 50, source: { kind: "DEFAULT", ruleId: null } });
  });

  it("a warm isolate answers without any D1 query", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", minimum: 200 });
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now); // the cache's clock stands still: no version check falls due
    await evaluateOne(op, { accountId: "A1", amount: 1 }); // loads the index and the key

    // Every D1 call of a request goes through its session: count the sessions' calls, on every database.
    let queries = 0;
    for (const name of ["CONTROL", ...shardNames(env)] as const) {
      const database = env[name];
      const withSession = database.withSession.bind(database);
      vi.spyOn(database, "withSession").mockImplementation((start) => {
        const session = withSession(start) as unknown as Record<string, (...args: unknown[]) => unknown>;
        for (const method of ["prepare", "batch"]) {
          const original = session[method].bind(session);
          session[method] = (...args: unknown[]) => {
            queries++;
            return original(...args);
          };
        }
        return session as unknown as D1DatabaseSession;
      });
    }
    const stats = { ...ruleIndexCache.stats };
    for (let i = 0; i < 20; i++) {
      expect(decidedBy(await evaluateOne(op, { accountId: "A1", amount: 1 }))).toEqual(["ACCOUNT", rule.id, 200]);
    }
    expect(queries).toBe(0);
    expect(ruleIndexCache.stats.loads).toBe(stats.loads);
    expect(ruleIndexCache.stats.versionChecks).toBe(stats.versionChecks);
    expect(ruleIndexCache.stats.hits - stats.hits).toBe(20);

    // The probe does count: a rule read goes through it.
    expectStatus(await callRoute(op, routes.getRule, { params: { ruleId: rule.id } }), 200);
    expect(queries).toBeGreaterThan(0);
  });

  it("sees another instance's write within 2 s: trusted for 1 s, then served while a check runs after the answer", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", minimum: 200 });
    let clock = Date.now();
    vi.spyOn(Date, "now").mockImplementation(() => clock);
    const order = { accountId: "A1", amount: 1 };
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["ACCOUNT", rule.id, 200]); // loaded at `clock`
    const loadedAt = clock;

    // Another Worker instance changes the rule: same batch shape as the API's, but this isolate's cache is not told.
    const db = await tenantDb(op.tenantId);
    const changeElsewhere = (minimum: number) =>
      db.batch([
        db.prepare("update quota_rules set minimum = ? where id = ?").bind(minimum, rule.id),
        db.prepare("update tenants set rules_version = rules_version + 1 where id = ?").bind(op.tenantId),
      ]);
    await changeElsewhere(999);
    clock = loadedAt + 999;
    const stats = { ...ruleIndexCache.stats };
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["ACCOUNT", rule.id, 200]);
    expect(ruleIndexCache.stats.hits - stats.hits).toBe(1);

    // Due for a check: the answer comes from the index at once, the check runs after it.
    clock = loadedAt + 1000;
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["ACCOUNT", rule.id, 200]);
    expect(ruleIndexCache.stats.staleHits - stats.staleHits).toBe(1);
    expect(ruleIndexCache.stats.backgroundChecks - stats.backgroundChecks).toBe(1);
    await vi.waitFor(async () => expect(decidedBy(await evaluateOne(op, order))).toEqual(["ACCOUNT", rule.id, 999]), { timeout: 5_000 });
    expect(ruleIndexCache.stats.backgroundChecks - stats.backgroundChecks).toBe(1); // one check, however many requests came meanwhile

    // An index 2 s past its last check is not served: the request checks first.
    const checkedAt = clock;
    await changeElsewhere(1234);
    clock = checkedAt + 2000;
    expect(decidedBy(await evaluateOne(op, order))).toEqual(["ACCOUNT", rule.id, 1234]);
  });
});
