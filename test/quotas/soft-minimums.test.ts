import { describe, expect, it } from "vitest";
import { call, callRoute, eventsOf, expectProblem, expectStatus, newTenant, type Caller, type ResponseOf } from "../helpers/client";
import { cartBody, line, setUpOperation } from "../helpers/setup";
import { routes } from "../helpers/routes";

type QuotaResult = ResponseOf<typeof routes.evaluateQuotas>["results"][number];

const RULES = "/v1/buying-policies/quotas/rules";

const evaluate = async (op: Caller, orders: Record<string, unknown>[]) =>
  expectStatus(await callRoute(op, routes.evaluateQuotas, { body: { orders } }), 200).results;

describe("soft minimums: enforcement on rules and the default", () => {
  it("stores enforcement on create and update (BLOCK when omitted) and refuses other values", async () => {
    const op = await newTenant();
    const warn = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A1", minimum: 500, enforcement: "WARN" } }), 201);
    expect(warn.enforcement).toBe("WARN");
    const block = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A2", minimum: 500 } }), 201);
    expect(block.enforcement).toBe("BLOCK");
    const updated = expectStatus(
      await callRoute(op, routes.updateRule, { params: { ruleId: block.id }, body: { accountId: "A2", minimum: 500, enforcement: "WARN" } }),
      200,
    );
    expect(updated.enforcement).toBe("WARN");
    // PUT takes the full representation: enforcement omitted is BLOCK again.
    expect(
      expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: block.id }, body: { accountId: "A2", minimum: 500 } }), 200).enforcement,
    ).toBe("BLOCK");
    for (const enforcement of ["warn", "SOFT", null, 1]) {
      expectProblem(await callRoute(op, routes.createRule, { body: { accountId: "A3", minimum: 1, enforcement } }), 400, "validation_failed");
    }
    const listed = expectStatus(await callRoute(op, routes.listRules), 200).items;
    expect(listed.map((rule) => [rule.accountId, rule.enforcement])).toEqual([
      ["A1", "WARN"],
      ["A2", "BLOCK"],
    ]);
  });

  it("bulk PUT takes enforcement, counts a change of it as updated, and the CSV carries the column both ways", async () => {
    const op = await newTenant();
    expect(
      expectStatus(
        await callRoute(op, routes.upsertRules, {
          body: [
            { accountId: "A1", minimum: 100 },
            { supplierId: "S1", minimum: 200, enforcement: "WARN" },
          ],
        }),
        200,
      ),
    ).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
    });
    expect(
      expectStatus(
        await callRoute(op, routes.upsertRules, {
          body: [
            { accountId: "A1", minimum: 100, enforcement: "WARN" },
            { supplierId: "S1", minimum: 200, enforcement: "WARN" },
          ],
        }),
        200,
      ),
    ).toEqual({ created: 0, updated: 1, unchanged: 1 });
    const exported = await callRoute(op, routes.listRules, { headers: { accept: "text/csv" } });
    const records = exported.text.trim().split(/\r?\n/);
    expect(records[0]).toBe("id,accountId,supplierId,storeId,minimum,enforcement");
    expect(records.slice(1).map((record) => record.split(",").slice(1).join(","))).toEqual(["A1,,,100,WARN", ",S1,,200,WARN"]);
    const csv = "accountId,supplierId,minimum,enforcement\nA1,,100,BLOCK\n,S2,300,WARN\n,S3,300,\n";
    expect(expectStatus(await call(op, "PUT", RULES, { rawBody: csv, headers: { "content-type": "text/csv" } }), 200)).toEqual({
      created: 2,
      updated: 1,
      unchanged: 0,
    });
    const rules = expectStatus(await callRoute(op, routes.listRules), 200).items;
    expect(rules.map((rule) => [rule.accountId ?? rule.supplierId, rule.enforcement])).toEqual([
      ["A1", "BLOCK"],
      ["S1", "WARN"],
      ["S2", "WARN"],
      ["S3", "BLOCK"],
    ]);
    const bad = expectProblem(
      await call(op, "PUT", RULES, { rawBody: "accountId,minimum,enforcement\nA9,1,MAYBE\n", headers: { "content-type": "text/csv" } }),
      400,
      "validation_failed",
    );
    expect(bad.errors?.[0].row).toBe(2);
  });

  it("the default carries enforcement: GET answers BLOCK until set, PUT stores it", async () => {
    const op = await newTenant();
    expect(expectStatus(await callRoute(op, routes.getQuotaDefault), 200)).toEqual({ minimum: 0, enforcement: "BLOCK" });
    expect(expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 1000, enforcement: "WARN" } }), 200)).toEqual({
      minimum: 1000,
      enforcement: "WARN",
    });
    expect(expectStatus(await callRoute(op, routes.getQuotaDefault), 200)).toEqual({ minimum: 1000, enforcement: "WARN" });
    const events = await eventsOf(op);
    expect(events.at(-1)).toMatchObject({ type: "quota_default.updated", data: { minimum: 1000, enforcement: "WARN" } });
    expect(expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 1000 } }), 200)).toEqual({ minimum: 1000, enforcement: "BLOCK" });
    expectProblem(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 1000, enforcement: "OFF" } }), 400, "validation_failed");
  });

  it("evaluate: below a WARN minimum is allowed with the reason and shortfall; below a BLOCK one is not; each result names its enforcement", async () => {
    const op = await newTenant();
    const warnRule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A1", minimum: 500, enforcement: "WARN" } }), 201);
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A2", minimum: 500 } }), 201);
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 300, enforcement: "WARN" } }), 200);
    const results = await evaluate(op, [
      { accountId: "A1", amount: 200 },
      { accountId: "A1", amount: 500 },
      { accountId: "A2", amount: 200 },
      { accountId: "A3", amount: 100 },
    ]);
    expect(results).toEqual([
      {
        allowed: true,
        reason: "quota_min_not_met",
        effectiveMinimum: 500,
        amount: 200,
        shortfall: 300,
        source: { kind: "ACCOUNT", ruleId: warnRule.id },
        enforcement: "WARN",
      },
      { allowed: true, reason: null, effectiveMinimum: 500, amount: 500, shortfall: 0, source: { kind: "ACCOUNT", ruleId: warnRule.id }, enforcement: "WARN" },
      {
        allowed: false,
        reason: "quota_min_not_met",
        effectiveMinimum: 500,
        amount: 200,
        shortfall: 300,
        source: { kind: "ACCOUNT", ruleId: expect.any(String) },
        enforcement: "BLOCK",
      },
      {
        allowed: true,
        reason: "quota_min_not_met",
        effectiveMinimum: 300,
        amount: 100,
        shortfall: 200,
        source: { kind: "DEFAULT", ruleId: null },
        enforcement: "WARN",
      },
    ]);
    // A change of enforcement alone is seen at once by the next evaluation.
    expectStatus(
      await callRoute(op, routes.updateRule, { params: { ruleId: warnRule.id }, body: { accountId: "A1", minimum: 500, enforcement: "BLOCK" } }),
      200,
    );
    expect((await evaluate(op, [{ accountId: "A1", amount: 200 }]))[0]).toMatchObject({ allowed: false, enforcement: "BLOCK" });
  });
});

describe("soft minimums on orders", () => {
  it("places an order below a WARN minimum with its warnings, recorded in order.created; a BLOCK minimum still refuses", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A1", supplierId: "S-WARN", minimum: 10_000, enforcement: "WARN" } }), 201);
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A1", supplierId: "S-BLOCK", minimum: 10_000 } }), 201);

    // S-WARN short by 9,000; the lines without a supplier meet the default (0).
    const order = expectStatus(
      await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1, 1000, "S-WARN"), line("SKU-C", 1, 50)]) }),
      201,
    );
    expect(order.warnings).toEqual([
      {
        allowed: true,
        reason: "quota_min_not_met",
        effectiveMinimum: 10_000,
        amount: 1000,
        shortfall: 9000,
        source: { kind: "ACCOUNT_SUPPLIER", ruleId: expect.any(String) },
        enforcement: "WARN",
      },
    ]);
    const read = expectStatus(await callRoute(op, routes.getOrder, { params: { orderId: order.id } }), 200);
    expect(read.warnings).toEqual(order.warnings);
    const created = (await eventsOf(op)).filter((event) => event.type === "order.created");
    expect(created).toHaveLength(1);
    expect(created[0].data.warnings).toEqual(order.warnings);

    // An order meeting every minimum has no warnings.
    const clean = expectStatus(await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 10, 1000, "S-WARN")]) }), 201);
    expect(clean.warnings).toEqual([]);

    // Below a BLOCK minimum: refused as before, even beside a WARN shortfall.
    const refused = expectProblem(
      await callRoute(op, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1, 1000, "S-WARN"), line("SKU-C", 1, 1000, "S-BLOCK")]) }),
      422,
      "quota_min_not_met",
    );
    expect((refused.results as QuotaResult[]).map((result) => [result.allowed, result.enforcement])).toEqual([
      [true, "WARN"],
      [false, "BLOCK"],
    ]);
  });
});
