import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, type Caller, callRoute, createOperation, expectProblem, expectStatus, issueKey, newTenant, operationBody, uniqueId } from "../helpers/client";
import { accountKeyAttachedTo, snapshotTenant } from "../helpers/direct";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

async function sha256Hex(text: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const raw = (headers: Record<string, string>, method = "GET", path = "/v1/operations", body?: string) =>
  call(null, method, path, { headers: { ...(body && { "content-type": "application/json" }), ...headers }, rawBody: body });

describe("authentication", () => {
  it("answers 401 unauthorized without a valid svc-client", async () => {
    const op = await newTenant();
    expectProblem(await raw({ "svc-api-key": op.key }), 401, "unauthorized");
    expectProblem(await raw({ "svc-client": "ADMIN", "svc-api-key": op.key }), 401, "unauthorized");
    expectProblem(await raw({ "svc-client": "operator", "svc-api-key": op.key }), 401, "unauthorized");
    expectProblem(await raw({ "svc-client": "", "svc-api-key": op.key }), 401, "unauthorized");
  });

  it("answers 401 unauthorized for a missing, unknown or revoked key", async () => {
    const op = await newTenant();
    expectProblem(await raw({ "svc-client": "OPERATOR" }), 401, "unauthorized");
    expectProblem(await raw({ "svc-client": "OPERATOR", "svc-api-key": "" }), 401, "unauthorized");
    expectProblem(await raw({ "svc-client": "OPERATOR", "svc-api-key": `${op.key}x` }), 401, "unauthorized");
    expectProblem(await raw({ "svc-client": "OPERATOR", "svc-api-key": "sk_test_unknown" }), 401, "unauthorized");

    const revoked = await issueKey(op.tenantId, "OPERATOR");
    await env.CONTROL.prepare("update api_keys set revoked_at = ? where key_hash = ?")
      .bind(new Date().toISOString(), await sha256Hex(revoked.key))
      .run();
    expectProblem(await callRoute(revoked, routes.listOperations), 401, "unauthorized");
    expectProblem(await callRoute(revoked, routes.createOperation, { body: operationBody() }), 401, "unauthorized");
  });

  it("checks credentials before anything else: unknown routes, bad bodies and big bodies answer 401 first", async () => {
    expectProblem(await raw({}, "GET", "/v1/no-such-route"), 401, "unauthorized");
    expectProblem(await raw({ "svc-client": "OPERATOR" }, "POST", "/v1/operations", "{not json"), 401, "unauthorized");
    const big = JSON.stringify({ padding: "x".repeat(9 * 1024 * 1024) });
    expectProblem(await raw({ "svc-client": "OPERATOR" }, "POST", "/v1/operations", big), 401, "unauthorized");
  });

  it("answers 403 client_mismatch when svc-client does not match the key's role", async () => {
    const op = await newTenant();
    const account = await issueKey(op.tenantId, "ACCOUNT", uniqueId("u"));
    expectProblem(await raw({ "svc-client": "ACCOUNT", "svc-api-key": op.key }), 403, "client_mismatch");
    expectProblem(await raw({ "svc-client": "OPERATOR", "svc-api-key": account.key }), 403, "client_mismatch");
    // The mismatch is refused before the body is looked at.
    expectProblem(await raw({ "svc-client": "OPERATOR", "svc-api-key": account.key }, "POST", "/v1/operations", "{"), 403, "client_mismatch");
  });
});

describe("ACCOUNT keys", () => {
  async function setting() {
    const op = await newTenant();
    const publicOp = await createOperation(op, { type: "PUBLIC" });
    const attached = await createOperation(op, { type: "PRIVATE" });
    const other = await createOperation(op, { type: "PRIVATE" });
    const { caller: account } = await accountKeyAttachedTo(op.tenantId, [attached.id]);
    // Another user's account attached to `other`: must not make it visible to `account`.
    await accountKeyAttachedTo(op.tenantId, [other.id]);
    return { op, account, publicOp, attached, other };
  }

  it("are refused 403 forbidden on create, patch, status, delete and events, changing nothing", async () => {
    const { op, account, attached, publicOp } = await setting();
    const before = await snapshotTenant(op.tenantId);
    expectProblem(await callRoute(account, routes.createOperation, { body: operationBody() }), 403, "forbidden");
    // Role is checked before the body shape.
    expectProblem(await callRoute(account, routes.createOperation, { body: { nonsense: true } }), 403, "forbidden");
    expectProblem(await call(account, "POST", "/v1/operations", { rawBody: "{oops" }), 403, "forbidden");
    // ... and before the body's size or an Idempotency-Key are looked at.
    const big = JSON.stringify({ padding: "x".repeat(9 * 1024 * 1024) });
    expectProblem(await call(account, "POST", "/v1/operations", { rawBody: big }), 403, "forbidden");
    expectProblem(
      await callRoute(account, routes.createOperation, { body: operationBody(), headers: { "Idempotency-Key": uniqueId("idem") } }),
      403,
      "forbidden",
    );
    for (const target of [attached, publicOp]) {
      expectProblem(await callRoute(account, routes.patchOperation, { params: { operationId: target.id }, body: { code: "X" } }), 403, "forbidden");
      expectProblem(await callRoute(account, routes.changeStatus, { params: { operationId: target.id }, body: { status: "INACTIVE" } }), 403, "forbidden");
      expectProblem(await callRoute(account, routes.deleteOperation, { params: { operationId: target.id } }), 403, "forbidden");
    }
    expectProblem(await callRoute(account, routes.listEvents), 403, "forbidden");
    expectProblem(await callRoute(account, routes.listEvents, { query: { after: "evt_0" } }), 403, "forbidden");
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
  });

  it("list and read only PUBLIC Operations and PRIVATE ones attached to one of their accounts", async () => {
    const { op, account, publicOp, attached, other } = await setting();
    const list = expectStatus(await callRoute(account, routes.listOperations), 200);
    expect(list.items.map((o) => o.id).sort()).toEqual([publicOp.id, attached.id].sort());

    expectStatus(await callRoute(account, routes.getOperation, { params: { operationId: publicOp.id } }), 200);
    const read = expectStatus(await callRoute(account, routes.getOperation, { params: { operationId: attached.id } }), 200);
    expect(read.id).toBe(attached.id);
    expectProblem(await callRoute(account, routes.getOperation, { params: { operationId: other.id } }), 404, "not_found");

    // Filters never widen what the key may see.
    const byIds = expectStatus(await callRoute(account, routes.listOperations, { query: { ids: `${other.id},${attached.id}` } }), 200);
    expect(byIds.items.map((o) => o.id)).toEqual([attached.id]);
    const byCode = expectStatus(await callRoute(account, routes.listOperations, { query: { ids: other.code, idType: "code" } }), 200);
    expect(byCode.items).toEqual([]);
    const privates = expectStatus(await callRoute(account, routes.listOperations, { query: { type: "PRIVATE", limit: 1 } }), 200);
    expect(privates.items.map((o) => o.id)).toEqual([attached.id]);
    expect(privates.nextToken).toBeNull();

    // The OPERATOR of the tenant sees all three.
    const all = expectStatus(await callRoute(op, routes.listOperations), 200);
    expect(all.items).toHaveLength(3);
  });

  it("sees a PRIVATE Operation only while one of its accounts is attached, and only through its own user", async () => {
    const op = await newTenant();
    const target = await createOperation(op, { type: "PRIVATE" });
    const userId = uniqueId("u");
    const account: Caller = await issueKey(op.tenantId, "ACCOUNT", userId);
    expectProblem(await callRoute(account, routes.getOperation, { params: { operationId: target.id } }), 404, "not_found");

    const { accountId } = await accountKeyAttachedTo(op.tenantId, [target.id], userId);
    expectStatus(await callRoute(account, routes.getOperation, { params: { operationId: target.id } }), 200);

    await (await tenantDb(op.tenantId)).prepare("delete from operation_accounts where operation_id = ? and account_id = ?").bind(target.id, accountId).run();
    expectProblem(await callRoute(account, routes.getOperation, { params: { operationId: target.id } }), 404, "not_found");
    expect(expectStatus(await callRoute(account, routes.listOperations), 200).items).toEqual([]);
  });

  it("see a PRIVATE Operation once it is attached through the accounts API, and no longer once detached", async () => {
    const op = await newTenant();
    const userId = uniqueId("u");
    const accountId = uniqueId("acc");
    const target = await createOperation(op, { type: "PRIVATE" });
    const account = await issueKey(op.tenantId, "ACCOUNT", userId);
    expectStatus(await callRoute(op, routes.putDirectory, { body: [{ accountId, name: "Shop", users: [{ userId, email: `${userId}@example.test` }] }] }), 200);
    expectProblem(await callRoute(account, routes.getOperation, { params: { operationId: target.id } }), 404, "not_found");
    expectStatus(await callRoute(op, routes.attachAccounts, { params: { operationId: target.id }, body: [accountId] }), 200);
    expect(expectStatus(await callRoute(account, routes.getOperation, { params: { operationId: target.id } }), 200).accountCount).toBe(1);
    expect(expectStatus(await callRoute(account, routes.listOperations), 200).items.map((o) => o.id)).toEqual([target.id]);
    expectStatus(await callRoute(op, routes.detachAccounts, { params: { operationId: target.id }, body: [accountId] }), 200);
    expectProblem(await callRoute(account, routes.getOperation, { params: { operationId: target.id } }), 404, "not_found");
  });

  it("never see another tenant's Operations, even with the same user id and account id", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const userId = uniqueId("u");
    const inA = await createOperation(a, { type: "PRIVATE" });
    const publicInA = await createOperation(a, { type: "PUBLIC" });
    await accountKeyAttachedTo(a.tenantId, [inA.id], userId);
    const accountInB = await issueKey(b.tenantId, "ACCOUNT", userId);
    expect(expectStatus(await callRoute(accountInB, routes.listOperations), 200).items).toEqual([]);
    expectProblem(await callRoute(accountInB, routes.getOperation, { params: { operationId: inA.id } }), 404, "not_found");
    expectProblem(await callRoute(accountInB, routes.getOperation, { params: { operationId: publicInA.id } }), 404, "not_found");
  });
});
