// A tenant's whole working day through the public API: every registered route called once with an
// answer that succeeds. Sharding tests run it for tenants on each shard, and seed moves with it.
import { env } from "cloudflare:test";
import { expect, vi } from "vitest";
import { apiRoutes } from "../../src/app";
import { archiveHistory } from "../../src/history/archive/job";
import { call, collectPages, expectStatus, issueKey, uniqueId, type CallOptions, type Caller } from "../helpers/client";
import { otherShard } from "../helpers/moves";
import { cartBody, line, putAccounts } from "../helpers/setup";
import { shardOf } from "../helpers/shards";

const patterns = apiRoutes.map(({ spec }) => ({
  key: `${spec.method.toUpperCase()} ${spec.path}`,
  method: spec.method.toUpperCase(),
  path: new RegExp(`^${spec.path.replace(/:[A-Za-z]+/g, "[^/]+")}$`),
}));

/**
 * A route the journey leaves out: reversing a move needs a move that switched, which takes the
 * tenant to the other shard (test/tenants/move.test.ts reverses moves from either shard).
 */
const NOT_IN_THE_JOURNEY = new Set(["POST /v1/tenant/moves/:moveId/reverse"]);

/** Every route of the API as "METHOD /path/:param" (but those the journey leaves out). */
export const everyRoute = (): string[] =>
  patterns
    .map((pattern) => pattern.key)
    .filter((key) => !NOT_IN_THE_JOURNEY.has(key))
    .sort();

export interface Journey {
  operator: Caller;
  account: Caller;
  operationId: string;
  accountIds: string[];
  ruleId: string;
  cartId: string;
  orderId: string;
  /** Routes answered with the expected success, as "METHOD /path/:param". */
  routesCalled: Set<string>;
}

/** The impact of a default above the journey's order (500): it replays the quota order facts the order left. */
const IMPACT_OF_A_HIGHER_DEFAULT = { changes: [], default: { minimum: 600 } };

/** Runs the journey for `operator`'s tenant; `lineCount` lines make its Operation (several move chunks above 1000). */
export async function runJourney(operator: Caller, { lineCount = 12 }: { lineCount?: number } = {}): Promise<Journey> {
  const routesCalled = new Set<string>();
  const step = async <T = unknown>(caller: Caller, method: string, path: string, status: number, options: CallOptions = {}) => {
    const answer = await call<T>(caller, method, path, options);
    const body = expectStatus(answer, status);
    const route = patterns.find((pattern) => pattern.method === method && pattern.path.test(path.split("?")[0]));
    if (route) routesCalled.add(route.key);
    return { body, headers: answer.headers };
  };

  const [acc1, acc2] = [uniqueId("acc"), uniqueId("acc")];
  const user = uniqueId("u");
  await putAccounts(operator, [
    { accountId: acc1, name: "Alpha Stores", users: [{ userId: user, email: `${user}@example.test` }] },
    { accountId: acc2, name: "Beta" },
  ]);
  routesCalled.add("PUT /v1/accounts");
  await step(operator, "GET", "/v1/accounts", 200);
  const account = await issueKey(operator.tenantId, "ACCOUNT", user);

  // The receiver answers 200: the order.created event below is delivered there (moves carry the record).
  const hook = await step<{ id: string }>(operator, "POST", "/v1/webhooks", 201, {
    body: { url: `${env.TEST_RECEIVER_URL}/hooks/ok/${uniqueId("journey")}`, eventTypes: ["order.created"] },
  });
  await step(operator, "GET", `/v1/webhooks/${hook.body.id}`, 200);
  await step(operator, "PATCH", `/v1/webhooks/${hook.body.id}`, 200, { body: { description: "ERP" } });
  await step(operator, "GET", "/v1/webhooks", 200);
  await step(operator, "GET", `/v1/webhooks/${hook.body.id}/deliveries`, 200);
  const spareHook = await step<{ id: string }>(operator, "POST", "/v1/webhooks", 201, {
    body: { url: "https://hooks.example.com/spare", eventTypes: ["key.created"] },
  });
  await step(operator, "DELETE", `/v1/webhooks/${spareHook.body.id}`, 204);
  // The history so far archived, as the hourly job archives it 90 days on: the history reads below reach into the archive, and a move carries its index.
  expect(await archiveHistory(env, { tenantId: operator.tenantId, archiveBefore: Date.now() + 1 })).toMatchObject({ objects: 1, failed: 0 });

  const created = await step<{ id: string }>(operator, "POST", "/v1/operations", 201, {
    body: {
      code: uniqueId("OP"),
      name: { en: "Spring", fr: "Printemps" },
      type: "PRIVATE",
      ownerIds: [uniqueId("owner")],
      startDate: "2020-01-01T00:00:00Z",
      endDate: "2099-12-31T23:59:59Z",
    },
  });
  const operationId: string = created.body.id;
  const lines = Array.from({ length: lineCount }, (_, i) => ({
    variantExternalId: `SKU-${String(i).padStart(5, "0")}`,
    minQuantity: i % 3,
    maxQuantity: 50 + (i % 7),
    variantName: { en: `Variant ${i}`, fr: `Variante ${i}` },
  }));
  await step(operator, "PUT", `/v1/operations/${operationId}/lines`, 200, {
    body: [...lines, { variantExternalId: "SKU-GONE", minQuantity: 0, maxQuantity: 1 }],
  });
  await step(operator, "DELETE", `/v1/operations/${operationId}/lines`, 200, { body: ["SKU-GONE"] });
  await step(operator, "GET", `/v1/operations/${operationId}/lines`, 200);
  await step(operator, "PUT", `/v1/operations/${operationId}/accounts`, 200, { body: [acc1] });
  await step(operator, "POST", `/v1/operations/${operationId}/accounts`, 200, { body: [acc2] });
  await step(operator, "DELETE", `/v1/operations/${operationId}/accounts`, 200, { body: [acc2] });
  await step(operator, "GET", `/v1/operations/${operationId}/accounts`, 200);
  const read = await step(operator, "GET", `/v1/operations/${operationId}`, 200);
  const patched = await step<{ name: Record<string, string> }>(operator, "PATCH", `/v1/operations/${operationId}`, 200, {
    body: { name: { en: "Spring sale", fr: "Soldes de printemps" } },
    headers: { "If-Match": read.headers.get("etag")! },
  });
  expect(patched.body.name.en).toBe("Spring sale");
  // Four eyes before it goes live (its author's own approval counts here: the journey has one operator).
  await step(operator, "PUT", "/v1/settings/approvals", 200, { body: { activation: { required: 1, allowSelfApproval: true } } });
  await step(operator, "GET", "/v1/settings/approvals", 200);
  await step(operator, "PUT", "/v1/settings/display", 200, { body: { currency: "EUR" } });
  await step(operator, "GET", "/v1/settings/display", 200);
  const { version } = (await step<{ version: number }>(operator, "GET", `/v1/operations/${operationId}`, 200)).body;
  await step(operator, "POST", `/v1/operations/${operationId}/approvals`, 201, { body: { decision: "APPROVE", version, comment: "Checked" } });
  await step(operator, "GET", `/v1/operations/${operationId}/approvals`, 200);
  await step(operator, "POST", `/v1/operations/${operationId}/status`, 200, { body: { status: "ACTIVE" } });
  await step(operator, "GET", "/v1/operations", 200);

  const rule = await step<{ id: string }>(operator, "POST", "/v1/buying-policies/quotas/rules", 201, {
    body: { accountId: acc1, supplierId: "SUP-1", minimum: 100 },
  });
  const ruleId: string = rule.body.id;
  await step(operator, "GET", `/v1/buying-policies/quotas/rules/${ruleId}`, 200);
  await step(operator, "PUT", `/v1/buying-policies/quotas/rules/${ruleId}`, 200, { body: { accountId: acc1, supplierId: "SUP-1", minimum: 120 } });
  await step(operator, "GET", "/v1/buying-policies/quotas/rules", 200);
  const doomed = await step<{ id: string }>(operator, "POST", "/v1/buying-policies/quotas/rules", 201, { body: { supplierId: "SUP-2", minimum: 5 } });
  await step(operator, "DELETE", `/v1/buying-policies/quotas/rules/${doomed.body.id}`, 204);
  await step(operator, "POST", `/v1/buying-policies/quotas/rules/${doomed.body.id}/restore`, 201);
  const bulk = await step(operator, "PUT", "/v1/buying-policies/quotas/rules", 200, {
    body: [
      { accountId: acc2, minimum: 40 },
      { supplierId: "SUP-3", storeId: "STORE-1", minimum: 70 },
    ],
  });
  expect(bulk.body).toEqual({ created: 2, updated: 0, unchanged: 0 });
  const bulkIds = (
    await step<{ items: { id: string }[] }>(operator, "GET", "/v1/buying-policies/quotas/rules", 200, { query: { supplierId: "SUP-3" } })
  ).body.items.map((r) => r.id);
  await step(operator, "DELETE", "/v1/buying-policies/quotas/rules", 200, { body: bulkIds });
  await step(operator, "PUT", "/v1/buying-policies/quotas/default", 200, { body: { minimum: 10 } });
  await step(operator, "GET", "/v1/buying-policies/quotas/default", 200);
  const evaluated = await step<{ results: unknown[] }>(operator, "POST", "/v1/buying-policies/quotas/evaluate", 200, {
    body: { orders: [{ accountId: acc1, supplierId: "SUP-1", storeId: null, amount: 50 }] },
  });
  expect(evaluated.body.results[0]).toMatchObject({ allowed: false, effectiveMinimum: 120 });

  const cart = await step<{ id: string }>(account, "POST", "/v1/carts", 201, {
    body: cartBody(operationId, acc1, [line(lines[1].variantExternalId, 2), line(lines[2].variantExternalId, 3)]),
  });
  const cartId: string = cart.body.id;
  await step(account, "GET", `/v1/carts/${cartId}`, 200);
  const order = await step<{ id: string }>(account, "POST", "/v1/orders", 201, { body: { cartId } });
  const orderId: string = order.body.id;
  await step(account, "GET", `/v1/orders/${orderId}`, 200);
  await step(operator, "GET", `/v1/operations/${operationId}/orders`, 200);
  await step(operator, "POST", `/v1/operations/${operationId}/compare`, 200, { body: { orderId } });
  const impact = await step<{ ordersConsidered: number; newlyBlocked: number }>(operator, "POST", "/v1/buying-policies/quotas/impact", 200, {
    body: IMPACT_OF_A_HIGHER_DEFAULT,
  });
  expect(impact.body).toMatchObject({ ordersConsidered: 1, newlyBlocked: 1 });
  await step(operator, "GET", `/v1/operations/${operationId}/totals`, 200);
  await step(operator, "GET", `/v1/operations/${operationId}/totals/accounts`, 200);
  await step(operator, "GET", `/v1/operations/${operationId}/totals/daily`, 200);
  await step(account, "POST", `/v1/orders/${orderId}/cancel`, 200, { body: { reason: "Journey" } });
  const pooled = lines[1].variantExternalId;
  await step(operator, "PUT", `/v1/operations/${operationId}/allocations`, 200, {
    body: [{ variantExternalId: pooled, poolQuantity: 1000, maxPerAccount: 100 }],
  });
  await step(operator, "PUT", `/v1/operations/${operationId}/allocations/accounts`, 200, {
    body: [{ variantExternalId: pooled, accountId: acc1, maxQuantity: 500 }],
  });
  await step(operator, "GET", `/v1/operations/${operationId}/allocations/accounts`, 200);
  await step(operator, "POST", `/v1/operations/${operationId}/allocations/plan`, 200, { body: { method: "equal", basis: { weights: { [acc1]: 1 } } } });
  await step(operator, "POST", `/v1/operations/${operationId}/live-tickets`, 201);

  await step(account, "GET", "/v1/front/operations", 200);
  await step(account, "GET", `/v1/front/operations/${operationId}`, 200);
  await step(account, "GET", `/v1/front/operations/${operationId}/lines`, 200);
  await step(operator, "GET", "/v1/events", 200);

  const key = await step<{ id: string }>(operator, "POST", "/v1/keys", 201, { body: { role: "OPERATOR", name: "journey" } });
  await step(operator, "GET", `/v1/keys/${key.body.id}`, 200);
  await step(operator, "GET", "/v1/keys", 200);
  await step(operator, "DELETE", `/v1/keys/${key.body.id}`, 204);

  const spare = await step<{ id: string }>(operator, "POST", "/v1/operations", 201, {
    body: { code: uniqueId("OP"), name: { en: "Spare" }, type: "PUBLIC", startDate: "2020-01-01T00:00:00Z", endDate: "2099-12-31T23:59:59Z" },
  });
  // Its history: lines changed, a version read, compared and reverted to, before it goes.
  await step(operator, "PUT", `/v1/operations/${spare.body.id}/lines`, 200, { body: [{ variantExternalId: "SKU-S", minQuantity: 0, maxQuantity: 5 }] });
  await step(operator, "PUT", `/v1/operations/${spare.body.id}/lines`, 200, { body: [{ variantExternalId: "SKU-S", maxQuantity: 9 }] });
  await step(operator, "GET", `/v1/operations/${spare.body.id}/versions/2`, 200);
  await step(operator, "GET", `/v1/operations/${spare.body.id}/diff`, 200, { query: { from: 2 } });
  await step(operator, "POST", `/v1/operations/${spare.body.id}/revert`, 200, { body: { toVersion: 2 } });
  await step(operator, "GET", `/v1/operations/${spare.body.id}/history`, 200);
  await step(operator, "DELETE", `/v1/operations/${spare.body.id}`, 204);
  await step(operator, "PUT", "/v1/settings/history", 200, { body: { retentionYears: 10 } });
  await step(operator, "GET", "/v1/settings/history", 200);
  await step(operator, "GET", "/v1/history", 200);

  // A move of the tenant, aborted at once: it stays whole where it is (moves that go through: move.test.ts).
  const other = otherShard(await shardOf(operator.tenantId));
  const move = await step<{ id: string }>(operator, "POST", "/v1/tenant/moves", 202, { body: { to: other } });
  await step(operator, "POST", `/v1/tenant/moves/${move.body.id}/abort`, 202);
  await vi.waitFor(async () => expect((await step<{ status: string }>(operator, "GET", `/v1/tenant/moves/${move.body.id}`, 200)).body.status).toBe("ABORTED"), {
    timeout: 30_000,
    interval: 50,
  });

  // The order's event reaches the receiver through the queue, a moment after the answer.
  await vi.waitFor(
    async () => {
      const delivered = (await step<{ items: { status: string; eventType: string }[] }>(operator, "GET", `/v1/webhooks/${hook.body.id}/deliveries`, 200)).body
        .items;
      expect(delivered).toEqual([expect.objectContaining({ status: "delivered", eventType: "order.created" })]);
    },
    { timeout: 30_000, interval: 100 },
  );
  // Sent again (the receiver lost it): delivered once more.
  const [{ id: deliveryId }] = (await step<{ items: { id: string }[] }>(operator, "GET", `/v1/webhooks/${hook.body.id}/deliveries`, 200)).body.items;
  await step(operator, "POST", `/v1/webhooks/${hook.body.id}/deliveries/${deliveryId}/redeliver`, 200);
  await vi.waitFor(
    async () => {
      const [delivery] = (await step<{ items: { status: string }[] }>(operator, "GET", `/v1/webhooks/${hook.body.id}/deliveries`, 200)).body.items;
      expect(delivery.status).toBe("delivered");
    },
    { timeout: 30_000, interval: 100 },
  );

  return { operator, account, operationId, accountIds: [acc1, acc2], ruleId, cartId, orderId, routesCalled };
}

/** What a tenant sees through the API: compared before and after a move (everything a move must keep). */
export async function apiView(journey: Journey) {
  const { operator, account, operationId, ruleId, cartId, orderId } = journey;
  const get = async (caller: Caller, path: string, query: Record<string, string | number> = {}) =>
    expectStatus(await call(caller, "GET", path, { query }), 200);
  const all = async (caller: Caller, path: string, limit: number) => (await collectPages(caller, path, { limit })).items;
  return {
    operations: await all(operator, "/v1/operations", 500),
    operation: await get(operator, `/v1/operations/${operationId}`),
    lines: await all(operator, `/v1/operations/${operationId}/lines`, 1000),
    attachments: await get(operator, `/v1/operations/${operationId}/accounts`),
    accounts: await get(operator, "/v1/accounts"),
    rules: await get(operator, "/v1/buying-policies/quotas/rules"),
    rule: await get(operator, `/v1/buying-policies/quotas/rules/${ruleId}`),
    quotaDefault: await get(operator, "/v1/buying-policies/quotas/default"),
    approvalSettings: await get(operator, "/v1/settings/approvals"),
    displaySettings: await get(operator, "/v1/settings/display"),
    approvals: await get(operator, `/v1/operations/${operationId}/approvals`),
    cart: await get(account, `/v1/carts/${cartId}`),
    order: await get(account, `/v1/orders/${orderId}`),
    orders: await get(operator, `/v1/operations/${operationId}/orders`),
    front: await all(account, `/v1/front/operations/${operationId}/lines`, 1000),
    events: await all(operator, "/v1/events", 500),
    keys: await get(operator, "/v1/keys"),
    webhooks: await get(operator, "/v1/webhooks"),
    impact: expectStatus(await call(operator, "POST", "/v1/buying-policies/quotas/impact", { body: IMPACT_OF_A_HIGHER_DEFAULT }), 200),
  };
}
