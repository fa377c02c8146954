import { describe, expect, it } from "vitest";
import { call, collectPages, expectProblem, expectStatus, issueKey, newTenant, type Caller } from "../helpers/client";
import { tenantDb } from "../helpers/shards";

const RULES = "/v1/buying-policies/quotas/rules";
const DEFAULT = "/v1/buying-policies/quotas/default";

async function createRule(caller: Caller, body: Record<string, unknown>) {
  return expectStatus(await call(caller, "POST", RULES, { body }), 201);
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
    const response = await call(op, "POST", RULES, { body: { accountId: "A1", minimum: 15000 } });
    const rule = expectStatus(response, 201);
    expect(rule).toMatchObject({ accountId: "A1", supplierId: null, storeId: null, minimum: 15000 });
    expect(rule.id).toMatch(/^qr_/);
    expect(rule.createdAt).toBe(rule.updatedAt);
    expect(response.headers.get("location")).toBe(`${RULES}/${rule.id}`);
    expect(expectStatus(await call(op, "GET", `${RULES}/${rule.id}`), 200)).toEqual(rule);

    const full = await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 0 });
    expect(full).toMatchObject({ accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 0 });
    const supplierOnly = await createRule(op, { accountId: null, supplierId: "S1", storeId: null, minimum: Number.MAX_SAFE_INTEGER });
    expect(supplierOnly.minimum).toBe(Number.MAX_SAFE_INTEGER);
    expect(expectStatus(await call(op, "GET", `${RULES}/${supplierOnly.id}`), 200).minimum).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("rejects shapes the contract forbids with 400 and stores nothing", async () => {
    const op = await newTenant();
    const invalid: [unknown, string][] = [
      [{ minimum: 10 }, "body.accountId"],
      [{ accountId: null, supplierId: null, storeId: "st_1", minimum: 10 }, "body.accountId"],
      [{ accountId: "A1" }, "body.minimum"],
      [{ accountId: "A1", minimum: -1 }, "body.minimum"],
      [{ accountId: "A1", minimum: 1.5 }, "body.minimum"],
      [{ accountId: "A1", minimum: 2 ** 53 }, "body.minimum"],
      [{ accountId: "A1", minimum: "10" }, "body.minimum"],
      [{ accountId: "", minimum: 10 }, "body.accountId"],
      [{ accountId: "   ", minimum: 10 }, "body.accountId"],
      [{ accountId: 7, minimum: 10 }, "body.accountId"],
      [{ accountId: "A1", minimum: 10, id: "qr_x" }, "body"],
      [[], "body"],
    ];
    for (const [body, field] of invalid) {
      const problem = expectProblem(await call(op, "POST", RULES, { body }), 400, "validation_failed");
      expect(problem.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expectProblem(await call(op, "POST", RULES, { rawBody: "{nope" }), 400, "validation_failed");
    expect(await ruleCount(op.tenantId)).toBe(0);
    expect(await rulesVersion(op.tenantId)).toBe(0);
  });

  it("refuses a second rule with the same scope (409 duplicate_scope), null keys included", async () => {
    const op = await newTenant();
    await createRule(op, { accountId: "A1", supplierId: "S1", minimum: 10 });
    await createRule(op, { accountId: "A1", minimum: 10 });
    expectProblem(await call(op, "POST", RULES, { body: { accountId: "A1", supplierId: "S1", storeId: null, minimum: 99 } }), 409, "duplicate_scope");
    expectProblem(await call(op, "POST", RULES, { body: { accountId: "A1", minimum: 1 } }), 409, "duplicate_scope");
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
  it("PUT replaces the whole rule: omitted scope keys become null, createdAt stays", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", supplierId: "S1", storeId: "st_1", minimum: 10 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = expectStatus(await call(op, "PUT", `${RULES}/${rule.id}`, { body: { accountId: "A1", minimum: 20 } }), 200);
    expect(updated).toMatchObject({ id: rule.id, accountId: "A1", supplierId: null, storeId: null, minimum: 20, createdAt: rule.createdAt });
    expect(updated.updatedAt > rule.updatedAt).toBe(true);
    expect(expectStatus(await call(op, "GET", `${RULES}/${rule.id}`), 200)).toEqual(updated);
    // Same shape rules as create.
    expectProblem(await call(op, "PUT", `${RULES}/${rule.id}`, { body: { storeId: "st_1", minimum: 20 } }), 400, "validation_failed");
    expectProblem(await call(op, "PUT", `${RULES}/${rule.id}`, { body: { accountId: "A1", minimum: -5 } }), 400, "validation_failed");
  });

  it("PUT onto another rule's scope answers 409 duplicate_scope and changes nothing; onto its own scope is fine", async () => {
    const op = await newTenant();
    await createRule(op, { accountId: "A1", supplierId: "S1", minimum: 10 });
    const second = await createRule(op, { accountId: "A1", supplierId: "S2", minimum: 20 });
    const version = await rulesVersion(op.tenantId);
    expectProblem(await call(op, "PUT", `${RULES}/${second.id}`, { body: { accountId: "A1", supplierId: "S1", minimum: 30 } }), 409, "duplicate_scope");
    expect(expectStatus(await call(op, "GET", `${RULES}/${second.id}`), 200)).toEqual(second);
    expect(await rulesVersion(op.tenantId)).toBe(version);
    const same = expectStatus(await call(op, "PUT", `${RULES}/${second.id}`, { body: { accountId: "A1", supplierId: "S2", minimum: 30 } }), 200);
    expect(same.minimum).toBe(30);
  });

  it("DELETE answers 204, then the rule is gone (404 on read, update and delete)", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { supplierId: "S1", minimum: 10 });
    const response = await call(op, "DELETE", `${RULES}/${rule.id}`);
    expectStatus(response, 204);
    expect(response.text).toBe("");
    expectProblem(await call(op, "GET", `${RULES}/${rule.id}`), 404, "not_found");
    expectProblem(await call(op, "PUT", `${RULES}/${rule.id}`, { body: { supplierId: "S1", minimum: 1 } }), 404, "not_found");
    expectProblem(await call(op, "DELETE", `${RULES}/${rule.id}`), 404, "not_found");
    // The scope is free again.
    await createRule(op, { supplierId: "S1", minimum: 10 });
  });

  it("checks shape before existence: an invalid body on an unknown rule is 400", async () => {
    const op = await newTenant();
    expectProblem(await call(op, "PUT", `${RULES}/qr_unknown`, { body: { minimum: 1 } }), 400, "validation_failed");
    expectProblem(await call(op, "PUT", `${RULES}/qr_unknown`, { body: { accountId: "A", minimum: 1 } }), 404, "not_found");
  });
});

describe("Quotas Rules: tenants and roles", () => {
  it("another tenant's rule answers 404 everywhere and is left alone", async () => {
    const owner = await newTenant();
    const stranger = await newTenant();
    const rule = await createRule(owner, { accountId: "A1", minimum: 10 });
    expectProblem(await call(stranger, "GET", `${RULES}/${rule.id}`), 404, "not_found");
    expectProblem(await call(stranger, "PUT", `${RULES}/${rule.id}`, { body: { accountId: "A1", minimum: 1 } }), 404, "not_found");
    expectProblem(await call(stranger, "DELETE", `${RULES}/${rule.id}`), 404, "not_found");
    expect((await collectPages(stranger, RULES)).items).toEqual([]);
    expect(expectStatus(await call(owner, "GET", `${RULES}/${rule.id}`), 200)).toEqual(rule);
  });

  it("ACCOUNT keys may not read or write rules or the default (403 forbidden)", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", minimum: 10 });
    const account = await issueKey(op.tenantId, "ACCOUNT", "u_1");
    expectProblem(await call(account, "GET", RULES), 403, "forbidden");
    expectProblem(await call(account, "GET", `${RULES}/${rule.id}`), 403, "forbidden");
    expectProblem(await call(account, "POST", RULES, { body: { accountId: "A2", minimum: 1 } }), 403, "forbidden");
    expectProblem(await call(account, "PUT", `${RULES}/${rule.id}`, { body: { accountId: "A1", minimum: 1 } }), 403, "forbidden");
    expectProblem(await call(account, "DELETE", `${RULES}/${rule.id}`), 403, "forbidden");
    expectProblem(await call(account, "GET", DEFAULT), 403, "forbidden");
    expectProblem(await call(account, "PUT", DEFAULT, { body: { minimum: 1 } }), 403, "forbidden");
    // Auth comes before shape.
    expectProblem(await call(account, "POST", RULES, { body: { nonsense: true } }), 403, "forbidden");
    expectProblem(await call(null, "GET", RULES), 401, "unauthorized");
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
    expect(ids((await collectPages(op, RULES)).items)).toEqual(ids(rules));
    expect(ids((await collectPages(op, RULES, { accountId: "A1" })).items)).toEqual([rules[1].id, rules[3].id]);
    expect(ids((await collectPages(op, RULES, { supplierId: "S2" })).items)).toEqual([rules[2].id, rules[3].id]);
    expect(ids((await collectPages(op, RULES, { storeId: "st_2" })).items)).toEqual([rules[3].id]);
    expect(ids((await collectPages(op, RULES, { accountId: "A1", supplierId: "S2" })).items)).toEqual([rules[3].id]);
    expect((await collectPages(op, RULES, { accountId: "A9" })).items).toEqual([]);
  });

  it("sorts by minimum, createdAt, accountId and supplierId (unset keys first), the id breaking ties, across pages", async () => {
    const op = await newTenant();
    const rules = await seed(op);
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    const cases: [string, (a: any, b: any) => number][] = [
      ["minimum", (a, b) => a.minimum - b.minimum || byId(a, b)],
      ["-minimum", (a, b) => b.minimum - a.minimum || -byId(a, b)],
      ["-createdAt", (a, b) => -byId(a, b)],
      ["accountId", (a, b) => (a.accountId ?? "").localeCompare(b.accountId ?? "") || byId(a, b)],
      ["supplierId,-minimum", (a, b) => (a.supplierId ?? "").localeCompare(b.supplierId ?? "") || b.minimum - a.minimum || -byId(a, b)],
    ];
    for (const [sort, compare] of cases) {
      const { items, pages } = await collectPages(op, RULES, { sort, limit: 2 });
      expect(pages).toBe(3);
      expect(items.map((r) => r.id), sort).toEqual([...rules].sort(compare).map((r) => r.id));
    }
    expectProblem(await call(op, "GET", RULES, { query: { sort: "storeId" } }), 400, "validation_failed");
    expectProblem(await call(op, "GET", RULES, { query: { limit: 501 } }), 400, "validation_failed");
    expectProblem(await call(op, "GET", RULES, { query: { unknown: "x" } }), 400, "validation_failed");
  });

  it("binds nextToken to its filters and sort", async () => {
    const op = await newTenant();
    await seed(op);
    const first = expectStatus(await call(op, "GET", RULES, { query: { limit: 1, sort: "minimum" } }), 200);
    expect(first.nextToken).toBeTruthy();
    expectProblem(await call(op, "GET", RULES, { query: { limit: 1, sort: "-minimum", nextToken: first.nextToken } }), 400, "invalid_next_token");
    expectProblem(await call(op, "GET", RULES, { query: { limit: 1, sort: "minimum", accountId: "A1", nextToken: first.nextToken } }), 400, "invalid_next_token");
    const other = await newTenant();
    expectProblem(await call(other, "GET", RULES, { query: { limit: 1, sort: "minimum", nextToken: first.nextToken } }), 400, "invalid_next_token");
  });
});

describe("Quotas default", () => {
  it("is 0 until set; PUT answers 200 with it; bad values are 400", async () => {
    const op = await newTenant();
    expect(expectStatus(await call(op, "GET", DEFAULT), 200)).toEqual({ minimum: 0, enforcement: "BLOCK" });
    expect(expectStatus(await call(op, "PUT", DEFAULT, { body: { minimum: 2500 } }), 200)).toEqual({ minimum: 2500, enforcement: "BLOCK" });
    expect(expectStatus(await call(op, "GET", DEFAULT), 200)).toEqual({ minimum: 2500, enforcement: "BLOCK" });
    for (const body of [{}, { minimum: -1 }, { minimum: 2 ** 53 }, { minimum: 1.1 }, { minimum: 1, extra: 1 }]) {
      expectProblem(await call(op, "PUT", DEFAULT, { body }), 400, "validation_failed");
    }
    expect(expectStatus(await call(op, "GET", DEFAULT), 200)).toEqual({ minimum: 2500, enforcement: "BLOCK" });
    const other = await newTenant();
    expect(expectStatus(await call(other, "GET", DEFAULT), 200)).toEqual({ minimum: 0, enforcement: "BLOCK" });
  });
});

describe("Quotas events and versioning", () => {
  it("records rule.created/updated/deleted (with ruleId) and quota_default.updated, and bumps rules_version on every write", async () => {
    const op = await newTenant();
    const rule = await createRule(op, { accountId: "A1", minimum: 10 });
    expect(await rulesVersion(op.tenantId)).toBe(1);
    expectStatus(await call(op, "PUT", `${RULES}/${rule.id}`, { body: { accountId: "A1", minimum: 20 } }), 200);
    expectStatus(await call(op, "PUT", DEFAULT, { body: { minimum: 5 } }), 200);
    expectStatus(await call(op, "DELETE", `${RULES}/${rule.id}`), 204);
    expect(await rulesVersion(op.tenantId)).toBe(4);
    // Refused writes change nothing: no version bump, no event.
    expectProblem(await call(op, "DELETE", `${RULES}/${rule.id}`), 404, "not_found");
    expect(await rulesVersion(op.tenantId)).toBe(4);

    const { items } = await collectPages(op, "/v1/events");
    expect(items.map((e) => [e.type, e.ruleId ?? null])).toEqual([
      ["rule.created", rule.id],
      ["rule.updated", rule.id],
      ["quota_default.updated", null],
      ["rule.deleted", rule.id],
    ]);
    expect(items[0].data.rule).toEqual(rule);
    expect(items[1].data.previous.minimum).toBe(10);
    expect(items[1].data.rule.minimum).toBe(20);
    expect(items[2].data).toEqual({ minimum: 5, enforcement: "BLOCK" });
    expect(items[3].data.rule.minimum).toBe(20);
    expect(items.every((e) => e.actor.startsWith("key:"))).toBe(true);
  });
});

describe("Quotas in the OpenAPI document", () => {
  it("documents every quota route, the explain outcomes and the batch limit", async () => {
    const doc = expectStatus(await call(null, "GET", "/v1/openapi.json"), 200);
    const paths = doc.paths;
    expect(Object.keys(paths[RULES])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(paths[`${RULES}/{ruleId}`])).toEqual(expect.arrayContaining(["get", "put", "delete"]));
    expect(Object.keys(paths[DEFAULT])).toEqual(expect.arrayContaining(["get", "put"]));
    const evaluate = paths["/v1/buying-policies/quotas/evaluate"].post;
    for (const outcome of ["selected", "lower_minimum", "tie_older_rule_wins", "shadowed_by_higher_level", "store_mismatch"]) {
      expect(evaluate.description).toContain(outcome);
    }
    expect(evaluate.responses["413"]).toBeDefined();
    const evaluateBody = doc.components.schemas[evaluate.requestBody.content["application/json"].schema.$ref.split("/").pop()];
    expect(evaluateBody.properties.orders.maxItems).toBe(100);
    expect(evaluate.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["explain", "svc-store"]));
  });
});
