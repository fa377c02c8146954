import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { call, collectPages, eventsOf, expectProblem, expectStatus, issueKey, newTenant, uniqueId, type Caller, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";
import { accountKeyAttachedTo, finishedDeliveryDirectly, snapshotWholeTenant } from "../helpers/direct";
import { cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { moveReaches, otherShard, startMove } from "../helpers/moves";
import { shardOf } from "../helpers/shards";

/*
 * Another tenant's ids, on every registered route. Driven by apiRoutes, so a route added later is
 * covered the day it is registered: tenant B (OPERATOR key, and an ACCOUNT key on routes ACCOUNT
 * keys may call) sends tenant A's real ids with a body that would succeed for A, and must get
 * 404 not_found (never 403/409/422, which would reveal that the id exists), change nothing of A's
 * and record nothing in B. A route with a path parameter that has no fixture here fails.
 */
const paramsOf = (path: string) => [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]);
const routeKey = (spec: { method: string; path: string }) => `${spec.method.toUpperCase()} ${spec.path}`;
const hasParam = (name: string) => apiRoutes.some(({ spec }) => paramsOf(spec.path).includes(name));

interface World {
  a: Caller;
  b: Caller;
  bAccount: Caller;
  /** Path parameter name → A's ids for it (every route is called with each). */
  ids: Record<string, string[]>;
  etags: Record<string, string>;
  acc1: string;
  acc2: string;
  userOfAcc1: string;
  orderId: string;
  cartId: string;
  activeId: string;
}
let w: World;

/** A body that would succeed for A (or fail only on A's state), by route; a route with a body and no entry fails. */
/** Query parameters a route requires, as A would send them. */
const QUERIES: Record<string, Record<string, string>> = {
  "GET /v1/operations/:operationId/diff": { from: "1" },
};

const BODIES: Record<string, (w: World) => unknown> = {
  "PATCH /v1/operations/:operationId": () => ({ name: { en: "Taken over" } }),
  "POST /v1/operations/:operationId/status": () => ({ status: "INACTIVE" }),
  "POST /v1/operations/:operationId/revert": () => ({ toVersion: 1 }),
  "POST /v1/operations/:operationId/approvals": () => ({ decision: "APPROVE", version: 1 }),
  "PUT /v1/operations/:operationId/lines": () => [{ variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 20 }],
  "DELETE /v1/operations/:operationId/lines": () => ["SKU-A"],
  "PUT /v1/operations/:operationId/accounts": (w) => [w.acc2],
  "POST /v1/operations/:operationId/accounts": (w) => [w.acc2],
  "DELETE /v1/operations/:operationId/accounts": (w) => [w.acc1],
  "POST /v1/operations/:operationId/compare": (w) => ({ orderId: w.orderId }),
  "PUT /v1/buying-policies/quotas/rules/:ruleId": (w) => ({ accountId: w.acc1, supplierId: "SUP-1", minimum: 500 }),
  "PATCH /v1/webhooks/:webhookId": () => ({ description: "Taken over", url: "https://attacker.example.com/in" }),
  "POST /v1/orders/:orderId/cancel": () => ({ reason: "Taken over" }),
  "PUT /v1/operations/:operationId/allocations": () => [{ variantExternalId: "SKU-A", poolQuantity: 1 }],
  "PUT /v1/operations/:operationId/allocations/accounts": (w) => [{ variantExternalId: "SKU-A", accountId: w.acc1, maxQuantity: 1 }],
  "POST /v1/operations/:operationId/allocations/plan": () => ({ method: "equal" }),
};

beforeAll(async () => {
  const a = await newTenant();
  const acc1 = uniqueId("accA");
  const acc2 = uniqueId("accA");
  const userOfAcc1 = uniqueId("uA");
  await putAccounts(a, [{ accountId: acc1, users: [{ userId: userOfAcc1, email: `${userOfAcc1}@example.test` }] }, { accountId: acc2 }]);
  await issueKey(a.tenantId, "ACCOUNT", userOfAcc1);
  const active = await setUpOperation(a, { attach: [acc1] });
  const draft = await setUpOperation(a, { attach: [acc1], status: "DRAFT" });
  const cart = expectStatus(
    await callRoute(a, routes.createCart, { body: cartBody(active.id, acc1, [line("SKU-A", 1), line("SKU-B", 2), line("SKU-C", 1)]) }),
    201,
  );
  const order = expectStatus(await callRoute(a, routes.createOrder, { body: { cartId: cart.id } }), 201);
  // An order of acc1 for SUP-1 below 100 is blocked in A (the evaluate case below relies on it).
  const rule = expectStatus(await callRoute(a, routes.createRule, { body: { accountId: acc1, supplierId: "SUP-1", minimum: 100 } }), 201);
  const webhookId = expectStatus(await callRoute(a, routes.createWebhook, { body: { url: `${env.TEST_RECEIVER_URL}/hooks/ok/${uniqueId("a")}` } }), 201).id;
  const etags: Record<string, string> = {};
  for (const id of [active.id, draft.id]) etags[id] = (await callRoute(a, routes.getOperation, { params: { operationId: id } })).headers.get("etag")!;
  const ids: Record<string, string[]> = {
    operationId: [active.id, draft.id], // ACTIVE (front, carts, orders) and DRAFT (lines and attachments editable)
    ruleId: [rule.id],
    cartId: [cart.id],
    orderId: [order.id],
    // For /v1/keys/:keyId: created once a route takes the parameter (POST /v1/keys then answers 201 with the key's id).
    keyId: hasParam("keyId") ? [expectStatus(await callRoute(a, routes.createKey, { body: { role: "OPERATOR" } }), 201).id] : [],
    version: ["1"],
    webhookId: [webhookId],
    // A failed delivery of A's: redelivering it would succeed for A.
    deliveryId: hasParam("deliveryId") ? [await finishedDeliveryDirectly(a.tenantId, webhookId)] : [],
    // A move of A's that ended (aborted): A's rows stay where they are for the snapshots below.
    moveId: hasParam("moveId") ? [await abortedMove(a)] : [],
  };
  const b = await newTenant();
  // Written directly: B must record no event at all, and PUT /v1/accounts would record one.
  const bAccount = (await accountKeyAttachedTo(b.tenantId, [])).caller;
  w = { a, b, bAccount, ids, etags, acc1, acc2, userOfAcc1, orderId: order.id, cartId: cart.id, activeId: active.id };
});

async function abortedMove(a: Caller): Promise<string> {
  const started = await startMove(a, otherShard(await shardOf(a.tenantId)));
  expectStatus(await callRoute(a, routes.abortTenantMove, { params: { moveId: started.id } }), 202);
  return (await moveReaches(a, started.id, ["ABORTED"])).id;
}

describe("another tenant's ids, on every registered route", () => {
  it("has a fixture of tenant A for every path parameter of apiRoutes", () => {
    const missing = [...new Set(apiRoutes.flatMap(({ spec }) => paramsOf(spec.path)))].filter((name) => !w.ids[name]?.length);
    expect(missing, "add a resource of tenant A for these parameters to `ids` in beforeAll of this file").toEqual([]);
  });

  for (const { spec } of apiRoutes.filter((route) => paramsOf(route.spec.path).length)) {
    const key = routeKey(spec);
    it(`${key}: B's keys get 404 not_found for A's ids, and nothing changes`, async () => {
      const names = paramsOf(spec.path);
      const missing = names.filter((name) => !w.ids[name]?.length);
      if (missing.length) {
        throw new Error(
          `${key}: no fixture for :${missing.join(", :")}. Create one for tenant A in beforeAll of test/platform/foreign-tenant.test.ts and add it to \`ids\`.`,
        );
      }
      if (spec.body && !BODIES[key]) throw new Error(`${key} takes a body: add one that would succeed for A to BODIES in this file.`);
      const callers = spec.roles.includes("ACCOUNT") ? [w.b, w.bAccount] : [w.b];
      const before = await snapshotWholeTenant(w.a.tenantId);
      const wrong: string[] = [];
      const variants = Math.max(...names.map((name) => w.ids[name].length));
      for (let i = 0; i < variants; i++) {
        const chosen = Object.fromEntries(names.map((name) => [name, w.ids[name][Math.min(i, w.ids[name].length - 1)]]));
        const path = spec.path.replace(/:([A-Za-z]+)/g, (_, name: string) => chosen[name]);
        const ifMatch = spec.headers?.includes("If-Match") && chosen.operationId ? { "If-Match": w.etags[chosen.operationId] } : undefined;
        for (const caller of callers) {
          const response = await call(caller, spec.method.toUpperCase(), path, { body: BODIES[key]?.(w), query: QUERIES[key], headers: ifMatch });
          try {
            expectProblem(response, 404, "not_found");
          } catch (error) {
            wrong.push(`${caller.role} ${spec.method.toUpperCase()} ${path}: ${(error as Error).message}`);
          }
        }
      }
      expect(wrong).toEqual([]);
      expect(await snapshotWholeTenant(w.a.tenantId)).toEqual(before);
      expect(await eventsOf(w.b)).toEqual([]);
    });
  }
});

/*
 * Routes without path parameters that take ids in the body or query. Covered, where the answer is
 * clearly defined: POST /v1/carts and POST /v1/orders (A's operationId, A's cartId: 404);
 * POST /v1/buying-policies/quotas/evaluate (A's account: B's OPERATOR gets B's default, not A's rule;
 * B's ACCOUNT key gets 403 account_not_permitted); empty lists from GET /v1/operations and
 * /v1/front/operations (ids=A's), /v1/accounts (A's user, name), /v1/buying-policies/quotas/rules
 * (accountId=A's), /v1/events (operationId=A's), /v1/keys (userId of A's ACCOUNT key); and on
 * tenant C's own Operations: compare with A's orderId (404) and attach of A's account ids
 * (422 unknown_accounts).
 */
describe("another tenant's ids in bodies and queries", () => {
  it("POST /v1/carts and /v1/orders with A's Operation or cart: 404 not_found", async () => {
    const before = await snapshotWholeTenant(w.a.tenantId);
    const body = cartBody(w.activeId, w.acc1, [line("SKU-A", 1)]);
    for (const caller of [w.b, w.bAccount]) {
      expectProblem(await callRoute(caller, routes.createCart, { body }), 404, "not_found");
      expectProblem(await callRoute(caller, routes.createOrder, { body }), 404, "not_found");
      expectProblem(await callRoute(caller, routes.createOrder, { body: { cartId: w.cartId } }), 404, "not_found");
    }
    expect(await snapshotWholeTenant(w.a.tenantId)).toEqual(before);
    expect(await eventsOf(w.b)).toEqual([]);
  });

  it("POST /v1/buying-policies/quotas/evaluate with A's account: B's rules only, 403 for B's ACCOUNT key", async () => {
    const body = { orders: [{ accountId: w.acc1, supplierId: "SUP-1", storeId: null, amount: 50 }] };
    // In A the order is blocked by A's rule: the fixture means something.
    const inA = expectStatus(await callRoute(w.a, routes.evaluateQuotas, { body }), 200);
    expect(inA.results[0]).toMatchObject({ allowed: false, effectiveMinimum: 100 });
    const inB = expectStatus(await callRoute(w.b, routes.evaluateQuotas, { body, query: { explain: "true" } }), 200);
    expect(inB.results[0]).toMatchObject({ allowed: true, effectiveMinimum: 0, source: { kind: "DEFAULT", ruleId: null } });
    expect(inB.results[0].explanation?.levels.flatMap((level) => level.candidates)).toEqual([]);
    const refused = expectProblem(await callRoute(w.bAccount, routes.evaluateQuotas, { body }), 403, "account_not_permitted");
    expect(refused.accountIds).toEqual([w.acc1]);
    expect(await eventsOf(w.b)).toEqual([]);
  });

  it("lists nothing of A's for A's ids, users and names", async () => {
    const operationIds = w.ids.operationId.join(",");
    const lists: [Caller, string, Record<string, string>][] = [
      [w.b, "/v1/operations", { ids: operationIds }],
      [w.bAccount, "/v1/operations", { ids: operationIds }],
      [w.b, "/v1/front/operations", { ids: operationIds }],
      [w.bAccount, "/v1/front/operations", { ids: operationIds }],
      [w.b, "/v1/accounts", { userId: w.userOfAcc1 }],
      [w.b, "/v1/accounts", { name: w.acc1 }],
      [w.b, "/v1/buying-policies/quotas/rules", { accountId: w.acc1 }],
      [w.b, "/v1/events", { operationId: w.activeId }],
      ...(apiRoutes.some(({ spec }) => spec.path === "/v1/keys")
        ? [[w.b, "/v1/keys", { userId: w.userOfAcc1 }] as [Caller, string, Record<string, string>]]
        : []),
    ];
    for (const [caller, path, query] of lists) {
      expect((await collectPages(caller, path, query)).items, `${caller.role} GET ${path} ${JSON.stringify(query)}`).toEqual([]);
    }
  });

  it("on C's own Operations: compare with A's orderId is 404, attaching A's accounts is 422 unknown_accounts", async () => {
    const before = await snapshotWholeTenant(w.a.tenantId);
    const c = await newTenant();
    const open = await setUpOperation(c, { type: "PUBLIC" });
    const draft = await setUpOperation(c, { status: "DRAFT" });
    expectProblem(await callRoute(c, routes.compare, { params: { operationId: open.id }, body: { orderId: w.orderId } }), 404, "not_found");
    for (const method of ["PUT", "POST"]) {
      const refused = expectProblem(await call(c, method, `/v1/operations/${draft.id}/accounts`, { body: [w.acc1, w.acc2] }), 422, "unknown_accounts");
      expect(refused.unknownAccountIds).toEqual([w.acc1, w.acc2]);
    }
    expect(await snapshotWholeTenant(w.a.tenantId)).toEqual(before);
  });
});
