// A real request for every registered route that writes, in a fresh tenant: what each needs set up,
// the request, its status and the event it records. Table tests drive every write route with it
// (idempotency races, change history), so a write route added later is covered the day it is
// registered (each such test fails for a route missing here).
import { env } from "cloudflare:test";
import { finishedDeliveryDirectly } from "./direct";
import { callRoute, createOperation, operationBody, readOperation, uniqueId, type Caller } from "./client";
import { routes } from "./routes";
import { cartBody, line, putAccounts, setUpOperation } from "./setup";
import { holdMover, moveReaches, otherShard, startMove } from "./moves";
import { shardOf } from "./shards";

/** A write to make: where, with what, what it answers and records. */
export interface Race {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The status of the request that ran. */
  status: number;
  /** The event type recorded once by the request that ran; null: the route records nothing. */
  event: string | null;
}

const ifMatch = (version: number) => ({ "If-Match": `"${version}"` });
const draftWithLines = (op: Caller, attach?: string[]) => setUpOperation(op, { status: "DRAFT", attach });
async function directoryAccount(op: Caller) {
  const accountId = uniqueId("acc");
  await putAccounts(op, [{ accountId }]);
  return accountId;
}
async function rule(op: Caller) {
  return (await callRoute(op, routes.createRule, { body: { accountId: "ACC-1", minimum: 100 } })).body;
}

/** A move of the tenant to its other shard, held where it stands (its alarm cleared) so it stays abortable. */
async function heldMove(op: Caller) {
  const started = await startMove(op, otherShard(await shardOf(op.tenantId)));
  await holdMover(op.tenantId);
  return started;
}

/** `${METHOD} ${path}` → sets up what the route needs in a fresh tenant and names the request to race. */
export const WRITES: Record<string, (op: Caller) => Promise<Race>> = {
  "POST /v1/operations": async () => ({ path: "/v1/operations", body: operationBody(), status: 201, event: "operation.created" }),
  "PATCH /v1/operations/:operationId": async (op) => {
    const created = await createOperation(op);
    return {
      path: `/v1/operations/${created.id}`,
      body: { name: { en: "Renamed" } },
      headers: ifMatch(created.version),
      status: 200,
      event: "operation.updated",
    };
  },
  "POST /v1/operations/:operationId/status": async (op) => {
    const draft = await draftWithLines(op);
    const etag = (await callRoute(op, routes.getOperation, { params: { operationId: draft.id } })).headers.get("etag")!;
    return {
      path: `/v1/operations/${draft.id}/status`,
      body: { status: "ACTIVE" },
      headers: { "If-Match": etag },
      status: 200,
      event: "operation.status_changed",
    };
  },
  "DELETE /v1/operations/:operationId": async (op) => {
    const created = await createOperation(op);
    return { path: `/v1/operations/${created.id}`, headers: ifMatch(created.version), status: 204, event: "operation.deleted" };
  },
  "PUT /v1/operations/:operationId/lines": async (op) => {
    const created = await createOperation(op);
    const body = [{ variantExternalId: "SKU-NEW", minQuantity: 1, maxQuantity: 5 }];
    return { path: `/v1/operations/${created.id}/lines`, body, status: 200, event: "lines.upserted" };
  },
  "DELETE /v1/operations/:operationId/lines": async (op) => {
    const draft = await draftWithLines(op);
    return { path: `/v1/operations/${draft.id}/lines`, body: ["SKU-A"], status: 200, event: "lines.removed" };
  },
  "PUT /v1/operations/:operationId/accounts": async (op) => {
    const [accountId, draft] = [await directoryAccount(op), await draftWithLines(op)];
    return { path: `/v1/operations/${draft.id}/accounts`, body: [accountId], status: 200, event: "accounts.attached" };
  },
  "POST /v1/operations/:operationId/accounts": async (op) => {
    const [accountId, draft] = [await directoryAccount(op), await draftWithLines(op)];
    return { path: `/v1/operations/${draft.id}/accounts`, body: [accountId], status: 200, event: "accounts.attached" };
  },
  "DELETE /v1/operations/:operationId/accounts": async (op) => {
    const accountId = await directoryAccount(op);
    const draft = await draftWithLines(op, [accountId]);
    return { path: `/v1/operations/${draft.id}/accounts`, body: [accountId], status: 200, event: "accounts.detached" };
  },
  "POST /v1/operations/:operationId/revert": async (op) => {
    const created = await createOperation(op);
    const params = { operationId: created.id };
    await callRoute(op, routes.putLines, { params, body: [{ variantExternalId: "SKU-1", minQuantity: 1, maxQuantity: 5 }] });
    const version = (await callRoute(op, routes.getOperation, { params })).body.version;
    await callRoute(op, routes.putLines, {
      params,
      body: [
        { variantExternalId: "SKU-1", maxQuantity: 9 },
        { variantExternalId: "SKU-2", minQuantity: 1, maxQuantity: 2 },
      ],
    });
    return {
      path: `/v1/operations/${created.id}/revert`,
      body: { toVersion: version },
      headers: ifMatch(version + 1),
      status: 200,
      event: "operation.reverted",
    };
  },
  "PUT /v1/settings/display": async () => ({ path: "/v1/settings/display", body: { currency: "EUR" }, status: 200, event: null }),
  "PUT /v1/settings/approvals": async () => ({
    path: "/v1/settings/approvals",
    body: { activation: { required: 2 } },
    status: 200,
    event: null,
  }),
  "POST /v1/operations/:operationId/approvals": async (op) => {
    const draft = await draftWithLines(op);
    const { version } = (await callRoute(op, routes.getOperation, { params: { operationId: draft.id } })).body;
    return { path: `/v1/operations/${draft.id}/approvals`, body: { decision: "APPROVE", version }, status: 201, event: "operation.approved" };
  },
  "PUT /v1/accounts": async () => ({
    path: "/v1/accounts",
    body: [{ accountId: uniqueId("acc"), name: "Racer", users: [] }],
    status: 200,
    event: "directory.upserted",
  }),
  "POST /v1/buying-policies/quotas/rules": async () => ({
    path: "/v1/buying-policies/quotas/rules",
    body: { accountId: "ACC-1", supplierId: "SUP-1", minimum: 100 },
    status: 201,
    event: "rule.created",
  }),
  "PUT /v1/buying-policies/quotas/rules/:ruleId": async (op) => ({
    path: `/v1/buying-policies/quotas/rules/${(await rule(op)).id}`,
    body: { accountId: "ACC-1", minimum: 250 },
    status: 200,
    event: "rule.updated",
  }),
  "DELETE /v1/buying-policies/quotas/rules/:ruleId": async (op) => ({
    path: `/v1/buying-policies/quotas/rules/${(await rule(op)).id}`,
    status: 204,
    event: "rule.deleted",
  }),
  "PUT /v1/buying-policies/quotas/rules": async () => ({
    path: "/v1/buying-policies/quotas/rules",
    body: [
      { accountId: "ACC-9", minimum: 10 },
      { supplierId: "SUP-9", storeId: "STORE-9", minimum: 20 },
    ],
    status: 200,
    event: "rules.upserted",
  }),
  "DELETE /v1/buying-policies/quotas/rules": async (op) => ({
    path: "/v1/buying-policies/quotas/rules",
    body: [(await rule(op)).id, "qr_unknown"],
    status: 200,
    event: "rules.deleted",
  }),
  "POST /v1/buying-policies/quotas/rules/:ruleId/restore": async (op) => {
    const deleted = await rule(op);
    await callRoute(op, routes.deleteRule, { params: { ruleId: deleted.id } });
    return { path: `/v1/buying-policies/quotas/rules/${deleted.id}/restore`, status: 201, event: "rule.created" };
  },
  "PUT /v1/buying-policies/quotas/default": async () => ({
    path: "/v1/buying-policies/quotas/default",
    body: { minimum: 300 },
    status: 200,
    event: "quota_default.updated",
  }),
  "PUT /v1/settings/history": async () => ({ path: "/v1/settings/history", body: { retentionYears: 5 }, status: 200, event: null }),
  "POST /v1/carts": async (op) => {
    const open = await setUpOperation(op, { type: "PUBLIC" });
    return { path: "/v1/carts", body: cartBody(open.id, await directoryAccount(op), [line("SKU-A", 2), line("SKU-B", 2)]), status: 201, event: "cart.created" };
  },
  "POST /v1/orders": async (op) => {
    const open = await setUpOperation(op, { type: "PUBLIC" });
    return { path: "/v1/orders", body: cartBody(open.id, await directoryAccount(op), [line("SKU-B", 3, 250, "SUP-1")]), status: 201, event: "order.created" };
  },
  "PUT /v1/operations/:operationId/allocations": async (op) => {
    const open = await readOperation(op, (await setUpOperation(op, { type: "PUBLIC" })).id);
    return {
      path: `/v1/operations/${open.id}/allocations`,
      body: [{ variantExternalId: "SKU-A", poolQuantity: 100, maxPerAccount: 10 }],
      headers: ifMatch(open.version),
      status: 200,
      event: "allocation.updated",
    };
  },
  "PUT /v1/operations/:operationId/allocations/accounts": async (op) => {
    const accountId = await directoryAccount(op);
    const open = await readOperation(op, (await setUpOperation(op, { type: "PUBLIC" })).id);
    return {
      path: `/v1/operations/${open.id}/allocations/accounts`,
      body: [{ variantExternalId: "SKU-A", accountId, maxQuantity: 20 }],
      headers: ifMatch(open.version),
      status: 200,
      event: "allocation.updated",
    };
  },
  "POST /v1/orders/:orderId/cancel": async (op) => {
    const open = await setUpOperation(op, { type: "PUBLIC" });
    const order = await callRoute(op, routes.createOrder, { body: cartBody(open.id, await directoryAccount(op), [line("SKU-B", 3, 250, "SUP-1")]) });
    return { path: `/v1/orders/${order.body.id}/cancel`, body: { reason: "Race" }, status: 200, event: "order.cancelled" };
  },
  "POST /v1/keys": async () => ({
    path: "/v1/keys",
    body: { role: "ACCOUNT", userId: "u_racer", name: "Racer" },
    status: 201,
    event: "key.created",
  }),
  "DELETE /v1/keys/:keyId": async (op) => ({
    path: `/v1/keys/${(await callRoute(op, routes.createKey, { body: { role: "OPERATOR" } })).body.id}`,
    status: 204,
    event: "key.revoked",
  }),
  "POST /v1/webhooks": async () => ({
    path: "/v1/webhooks",
    body: { url: "https://hooks.example.com/race", eventTypes: ["order.*"] },
    status: 201,
    event: null,
  }),
  "PATCH /v1/webhooks/:webhookId": async (op) => ({
    path: `/v1/webhooks/${(await callRoute(op, routes.createWebhook, { body: { url: "https://hooks.example.com/race", eventTypes: ["order.*"] } })).body.id}`,
    body: { description: "Raced" },
    status: 200,
    event: null,
  }),
  "POST /v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver": async (op) => {
    const hook = (
      await callRoute(op, routes.createWebhook, { body: { url: `${env.TEST_RECEIVER_URL}/hooks/ok/${uniqueId("race")}`, eventTypes: ["order.*"] } })
    ).body;
    await createOperation(op);
    const deliveryId = await finishedDeliveryDirectly(op.tenantId, hook.id);
    return { path: `/v1/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`, status: 200, event: null };
  },
  "DELETE /v1/webhooks/:webhookId": async (op) => ({
    path: `/v1/webhooks/${(await callRoute(op, routes.createWebhook, { body: { url: "https://hooks.example.com/race", eventTypes: ["order.*"] } })).body.id}`,
    status: 204,
    event: null,
  }),
  "POST /v1/tenant/moves": async (op) => ({
    path: "/v1/tenant/moves",
    body: { to: otherShard(await shardOf(op.tenantId)) },
    status: 202,
    event: null,
  }),
  "POST /v1/tenant/moves/:moveId/abort": async (op) => ({ path: `/v1/tenant/moves/${(await heldMove(op)).id}/abort`, status: 202, event: null }),
  "POST /v1/tenant/moves/:moveId/reverse": async (op) => {
    const started = await startMove(op, otherShard(await shardOf(op.tenantId)));
    await moveReaches(op, started.id, ["SWITCHED"]);
    return { path: `/v1/tenant/moves/${started.id}/reverse`, status: 202, event: null };
  },
};
