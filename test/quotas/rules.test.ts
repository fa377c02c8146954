import { afterEach, describe, expect, it, vi } from "vitest";
import { call, collectPages, expectProblem, expectStatus, issueKey, newTenant, type Caller, callRoute, type ResponseOf } from "../helpers/client";
import { servedDocument } from "../helpers/openapi";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

const RULES = "/v1/buying-policies/quotas/rules";
type Rule = ResponseOf<typeof routes.getRule>;
const DEFAULT = "/v1/buying-policies/quotas/default";

async function createRule(caller: Caller, body: Record<string, unknown>) {
  return expectStatus(await callRoute(caller, routes.createRule, { body }), 201);
}

async function ruleCount(tenantId: string): Promise<number> {
  const row = await (await tenantDb(tenantId)).prepare("select count(*) as n from quota_rules where tenant_id = ?").bind(tenantId).first<{ n: number }>();
  return row!.n;
}

async function rulesVersion(tenantId: string): Promise<number> {
  const row = await (await tenantDb(tenantId)).prepare("select rules_version as v from tenants where id = ?").bind(tenantId).first<{ v: number }>();
  return row!.v;
}

describe("Quotas Rules: create and read", () => {
  it("creates a rule (201, Location), unset scope keys read back as null, and reads it", async () => {
    const op = await newTenant();
    const response = await callRoute(op, routes.createRule, { body: { accountId: "A1", minimum: 15000 } });
    const rule = expectStatus(response, 201);
    expect(rule).toMatchObject({ accountId: "A1", supplierId: null, storeId: null, minimum: 15000 });
    expect(rule.id).toMatch(/^qr_/);
    expect(rule.createdAt).toBe(rule.updatedAt);
    expect(response.headers.get("location")).toBe(`${RULES}/${rule.id}`);
    expect(expectStatus(await callRoute(op, routes.getRule, { params: { ruleId: rule.id } }), 200)).toEqual(rule);

    const full = await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 0 });
    expect(full).toMatchObject({ accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 0 });
    const supplierOnly = await createRule(op, { accountId: null, supplierId: "S1", storeId: null, minimum: Number.MAX_SAFE_INTEGER });
    expect(supplierOnly.minimum).toBe(Number.MAX_SAFE_INTEGER);
    expect(expectStatus(await callRoute(op, routes.getRule, { params: { ruleId: supplierOnly.id } }), 200).minimum).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each<{ name: string; body: unknown; field: string }>([
    { name: "no scope", body: { minimum: 10 }, field: "body.accountId" },
    { name: "a store without an account or supplier", body: { accountId: null, supplierId: null, storeId: "st_1", minimum: 10 }, field: "body.accountId" },
    { name: "no minimum", body: { accountId: "A1" }, field: "body.minimum" },
    { name: "a negative minimum", body: { accountId: "A1", minimum: -1 }, field: "body.minimum" },
    { name: "a fractional minimum", body: { accountId: "A1", minimum: 1.5 }, field: "body.minimum" },
    { name: "a minimum past 2^53 - 1", body: { accountId: "A1", minimum: 2 ** 53 }, field: "body.minimum" },
    { name: "a minimum sent as a string", body: { accountId: "A1", minimum: "10" }, field: "body.minimum" },
    { name: "an empty accountId", body: { accountId: "", minimum: 10 }, field: "body.accountId" },
    { name: "a blank accountId", body: { accountId: "   ", minimum: 10 }, field: "body.accountId" },
    { name: "a numeric accountId", body: { accountId: 7, minimum: 10 }, field: "body.accountId" },
    { name: "an id sent by the client", body: { accountId: "A1", minimum: 10, id: "qr_x" }, field: "body" },
    { name: "an array", body: [], field: "body" },
  ])("refuses $name with 400 naming $field, and stores nothing", async ({ body, field }) => {
    const op = await newTenant();
    const problem = expectProblem(await callRoute(op, routes.createRule, { body }), 400, "validation_failed");
    expect(problem.errors?.map((e) => e.field)).toContain(field);
    expect(await ruleCount(op.tenantId)).toBe(0);
    expect(await rulesVersion(op.tenantId)).toBe(0);
  });

  it("refuses a body that is not JSON with 400 and stores nothing", async () => {
    const op = await newTenant();
    expectProblem(await call(op, "POST", RULES, { rawBody: "{nope" }), 400, "validation_failed");
    expect(await ruleCount(op.tenantId)).toBe(0);
    expect(await rulesVersion(op.tenantId)).toBe(0);
  });

  it("refuses a second rule with the same scope (409 duplicate_scope), null keys included", async () => {
    const op = await newTenant();
    await createRule(op, { accountId: "A1", supplierId: "S1", minimum: 10 });
    await createRule(op, { accountId: "A1", minimum: 10 });
    expectProblem(await callRoute(op, routes.createRule, { body: { accountId: "A1", supplierId: "S1", storeId: null, minimum: 99 } }), 409, "duplicate_scope");
    expectProblem(await callRoute(op, routes.createRule, { body: { accountId: "A1", minimum: 1 } }), 409, "duplicate_scope");
    // Differing in any one key is another scope.
    await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 10 });
    await createRule(op, { supplierId: "S1", minimum: 10 });
    await createRule(op, { accountId: "A2", supplierId: "S1", minimum: 10 });
    expect(await ruleCount(op.tenantId)).toBe(5);
    // Another tenant may use the same scope.
    const other = await newTenant();
    await createRule(other, { accountId: "A1", supplierId: "S1", minimum: 10 });
  });
});

describe("Quotas Rules: update and delete", () => {
  afterEach(() => vi.useRealTimers());

  it("PUT replaces the whole rule: omitted scope keys become null, createdAt stays", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 10 });
    // The clock set a second on rather than waited on: the update is stamped with that time.
    const later = new Date(Date.parse(rule.updatedAt) + 1_000);
    vi.setSystemTime(later);
    const updated = expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A1", minimum: 20 } }), 200);
    vi.useRealTimers();
    expect(updated).toMatchObject({ id: rule.id, accountId: "A1", supplierId: null, storeId: null, minimum: 20, createdAt: rule.createdAt });
    expect(updated.updatedAt).toBe(later.toISOString());
    expect(expectStatus(await callRoute(op, routes.getRule, { params: { ruleId: rule.id } }), 200)).toEqual(updated);
    // Same shape rules as create.
    expectProblem(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { storeId: "st_1", minimum: 20 } }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A1", minimum: -5 } }), 400, "validation_failed");
  });

  it("PUT onto another rule's scope answers 409 duplicate_scope and changes nothing; onto its own scope is fine", async () => {
    const op = await newTenant();
    await createRule(op, { accountId: "A1", supplierId: "S1", minimum: 10 });
    const second = await createRule(op, { accountId: "A1", supplierId: "S2", minimum: 20 });
    const version = await rulesVersion(op.tenantId);
    expectProblem(
      await callRoute(op, routes.updateRule, { params: { ruleId: second.id }, body: { accountId: "A1", supplierId: "S1", minimum: 30 } }),
      409,
      "duplicate_scope",
    );
    expect(expectStatus(await callRoute(op, routes.getRule, { params: { ruleId: second.id } }), 200)).toEqual(second);
    expect(await rulesVersion(op.tenantId)).toBe(version);
    const same = expectStatus(
      await callRoute(op, routes.updateRule, { params: { ruleId: second.id }, body: { accountId: "A1", supplierId: "S2", minimum: 30 } }),
      200,
    );
    expect(same.minimum).toBe(30);
  });

  it("DELETE answers 204, then the rule is gone (404 on read, update and delete)", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { supplierId: "S1", minimum: 10 });
    const response = await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } });
    expectStatus(response, 204);
    expect(response.text).toBe("");
    expectProblem(await callRoute(op, routes.getRule, { params: { ruleId: rule.id } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { supplierId: "S1", minimum: 1 } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }), 404, "not_found");
    // The scope is free again.
    await createRule(op, { supplierId: "S1", minimum: 10 });
  });

  it("checks shape before existence: an invalid body on an unknown rule is 400", async () => {
    const op = await newTenant();
    expectProblem(await callRoute(op, routes.updateRule, { params: { ruleId: "qr_unknown" }, body: { minimum: 1 } }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.updateRule, { params: { ruleId: "qr_unknown" }, body: { accountId: "A", minimum: 1 } }), 404, "not_found");
  });
});

describe("Quotas Rules: tenants and roles", () => {
  it("another tenant's rule answers 404 everywhere and is left alone", async () => {
    const owner = await newTenant();
    const stranger = await newTenant();
    const rule = await createRule(owner, { accountId: "A1", minimum: 10 });
    expectProblem(await callRoute(stranger, routes.getRule, { params: { ruleId: rule.id } }), 404, "not_found");
    expectProblem(await callRoute(stranger, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A1", minimum: 1 } }), 404, "not_found");
    expectProblem(await callRoute(stranger, routes.deleteRule, { params: { ruleId: rule.id } }), 404, "not_found");
    expect((await collectPages(stranger, routes.listRules)).items).toEqual([]);
    expect(expectStatus(await callRoute(owner, routes.getRule, { params: { ruleId: rule.id } }), 200)).toEqual(rule);
  });

  it("ACCOUNT keys may not read or write rules or the default (403 forbidden)", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", minimum: 10 });
    const account = await issueKey(op.tenantId, "ACCOUNT", "u_1");
    expectProblem(await callRoute(account, routes.listRules), 403, "forbidden");
    expectProblem(await callRoute(account, routes.getRule, { params: { ruleId: rule.id } }), 403, "forbidden");
    expectProblem(await callRoute(account, routes.createRule, { body: { accountId: "A2", minimum: 1 } }), 403, "forbidden");
    expectProblem(await callRoute(account, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A1", minimum: 1 } }), 403, "forbidden");
    expectProblem(await callRoute(account, routes.deleteRule, { params: { ruleId: rule.id } }), 403, "forbidden");
    expectProblem(await callRoute(account, routes.getQuotaDefault), 403, "forbidden");
    expectProblem(await callRoute(account, routes.putQuotaDefault, { body: { minimum: 1 } }), 403, "forbidden");
    // Auth comes before shape.
    expectProblem(await callRoute(account, routes.createRule, { body: { nonsense: true } }), 403, "forbidden");
    expectProblem(await callRoute(null, routes.listRules), 401, "unauthorized");
    expect(await ruleCount(op.tenantId)).toBe(1);
  });
});

describe("Quotas Rules: list", () => {
  async function seed(op: Caller) {
    const specs = [
      { accountId: "A2", supplierId: "S1", storeId: null, minimum: 300 },
      { accountId: "A1", supplierId: null, storeId: "st_1", minimum: 100 },
      { accountId: null, supplierId: "S2", storeId: null, minimum: 200 },
      { accountId: "A1", supplierId: "S2", storeId: "st_2", minimum: 100 },
      { accountId: "A3", supplierId: null, storeId: null, minimum: 50 },
    ];
    const created = [];
    for (const spec of specs) created.push(await createRule(op, spec));
    return created;
  }

  it("defaults to createdAt order and filters each scope key exactly", async () => {
    const op = await newTenant();
    const rules = await seed(op);
    const ids = (items: { id: string }[]) => items.map((r) => r.id);
    expect(ids((await collectPages(op, routes.listRules)).items)).toEqual(ids(rules));
    expect(ids((await collectPages(op, routes.listRules, { query: { accountId: "A1" } })).items)).toEqual([rules[1].id, rules[3].id]);
    expect(ids((await collectPages(op, routes.listRules, { query: { supplierId: "S2" } })).items)).toEqual([rules[2].id, rules[3].id]);
    expect(ids((await collectPages(op, routes.listRules, { query: { storeId: "st_2" } })).items)).toEqual([rules[3].id]);
    expect(ids((await collectPages(op, routes.listRules, { query: { accountId: "A1", supplierId: "S2" } })).items)).toEqual([rules[3].id]);
    expect((await collectPages(op, routes.listRules, { query: { accountId: "A9" } })).items).toEqual([]);
  });

  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
  it.each<{ sort: string; compare: (a: Rule, b: Rule) => number }>([
    { sort: "minimum", compare: (a, b) => a.minimum - b.minimum || byId(a, b) },
    { sort: "-minimum", compare: (a, b) => b.minimum - a.minimum || -byId(a, b) },
    { sort: "-createdAt", compare: (a, b) => -byId(a, b) },
    { sort: "accountId", compare: (a, b) => (a.accountId ?? "").localeCompare(b.accountId ?? "") || byId(a, b) },
    { sort: "supplierId,-minimum", compare: (a, b) => (a.supplierId ?? "").localeCompare(b.supplierId ?? "") || b.minimum - a.minimum || -byId(a, b) },
  ])("sorts by $sort (unset keys first, the id breaking ties) across pages", async ({ sort, compare }) => {
    const op = await newTenant();
    const rules = await seed(op);
    const { items, pages } = await collectPages(op, routes.listRules, { query: { sort, limit: 2 } });
    expect(pages).toBe(3);
    expect(items.map((r) => r.id)).toEqual([...rules].sort(compare).map((r) => r.id));
  });

  it("refuses a sort, limit or parameter it does not take with 400", async () => {
    const op = await newTenant();
    expectProblem(await callRoute(op, routes.listRules, { query: { sort: "storeId" } }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.listRules, { query: { limit: 501 } }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.listRules, { query: { unknown: "x" } }), 400, "validation_failed");
  });

  it("binds nextToken to its filters and sort", async () => {
    const op = await newTenant();
    await seed(op);
    const first = expectStatus(await callRoute(op, routes.listRules, { query: { limit: 1, sort: "minimum" } }), 200);
    expect(first.nextToken).toBeTruthy();
    expectProblem(await callRoute(op, routes.listRules, { query: { limit: 1, sort: "-minimum", nextToken: first.nextToken } }), 400, "invalid_next_token");
    expectProblem(
      await callRoute(op, routes.listRules, { query: { limit: 1, sort: "minimum", accountId: "A1", nextToken: first.nextToken } }),
      400,
      "invalid_next_token",
    );
    const other = await newTenant();
    expectProblem(await callRoute(other, routes.listRules, { query: { limit: 1, sort: "minimum", nextToken: first.nextToken } }), 400, "invalid_next_token");
  });
});

describe("Quotas default", () => {
  it("is 0 until set; PUT answers 200 with it; bad values are 400", async () => {
    const op = await newTenant();
    expect(expectStatus(await callRoute(op, routes.getQuotaDefault), 200)).toEqual({ minimum: 0, enforcement: "BLOCK" });
    expect(expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 2500 } }), 200)).toEqual({ minimum: 2500, enforcement: "BLOCK" });
    expect(expectStatus(await callRoute(op, routes.getQuotaDefault), 200)).toEqual({ minimum: 2500, enforcement: "BLOCK" });
    const other = await newTenant();
    expect(expectStatus(await callRoute(other, routes.getQuotaDefault), 200)).toEqual({ minimum: 0, enforcement: "BLOCK" });
  });

  it.each([
    { name: "no minimum", body: {} },
    { name: "a negative minimum", body: { minimum: -1 } },
    { name: "a minimum past 2^53 - 1", body: { minimum: 2 ** 53 } },
    { name: "a fractional minimum", body: { minimum: 1.1 } },
    { name: "an unknown field", body: { minimum: 1, extra: 1 } },
  ])("refuses $name with 400 and keeps the default it had", async ({ body }) => {
    const op = await newTenant();
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 2500 } }), 200);
    expectProblem(await callRoute(op, routes.putQuotaDefault, { body }), 400, "validation_failed");
    expect(expectStatus(await callRoute(op, routes.getQuotaDefault), 200)).toEqual({ minimum: 2500, enforcement: "BLOCK" });
  });
});

describe("Quotas events and versioning", () => {
  it("records rule.created/updated/deleted (with ruleId) and quota_default.updated, and bumps rules_version on every write", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", minimum: 10 });
    expect(await rulesVersion(op.tenantId)).toBe(1);
    expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A1", minimum: 20 } }), 200);
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 5 } }), 200);
    expectStatus(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }), 204);
    expect(await rulesVersion(op.tenantId)).toBe(4);
    // Refused writes change nothing: no version bump, no event.
    expectProblem(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }), 404, "not_found");
    expect(await rulesVersion(op.tenantId)).toBe(4);

    const { items } = await collectPages(op, routes.listEvents);
    expect(items.map((e) => [e.type, e.ruleId ?? null])).toEqual([
      ["rule.created", rule.id],
      ["rule.updated", rule.id],
      ["quota_default.updated", null],
      ["rule.deleted", rule.id],
    ]);
    const data = items.map((event) => event.data as { rule: Rule; previous?: Rule });
    expect(data[0].rule).toEqual(rule);
    expect(data[1].previous?.minimum).toBe(10);
    expect(data[1].rule.minimum).toBe(20);
    expect(items[2].data).toEqual({ minimum: 5, enforcement: "BLOCK" });
    expect(data[3].rule.minimum).toBe(20);
    expect(items.every((e) => e.actor.startsWith("key:"))).toBe(true);
  });
});

describe("Quotas in the OpenAPI document", () => {
  it("documents every quota route, the explain outcomes and the batch limit", async () => {
    const doc = await servedDocument();
    const paths = doc.paths;
    expect(Object.keys(paths[RULES])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(paths[`${RULES}/{ruleId}`])).toEqual(expect.arrayContaining(["get", "put", "delete"]));
    expect(Object.keys(paths[DEFAULT])).toEqual(expect.arrayContaining(["get", "put"]));
    const evaluate = paths["/v1/buying-policies/quotas/evaluate"].post;
    for (const outcome of ["selected", "lower_minimum", "tie_older_rule_wins", "shadowed_by_higher_level", "store_mismatch"]) {
      expect(evaluate.description).toContain(outcome);
    }
    expect(evaluate.responses["413"]).toBeDefined();
    const evaluateBody = doc.components.schemas[evaluate.requestBody.content["application/json"].schema.$ref?.split("/").pop() ?? ""];
    expect(evaluateBody.properties?.orders.maxItems).toBe(100);
    expect(evaluate.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["explain", "svc-store"]));
  });
});
