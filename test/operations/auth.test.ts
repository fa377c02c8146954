import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createOperation, expectProblem, expectStatus, issueKey, newTenant, operationBody, uniqueId, type Caller } from "../helpers/client";
import { accountKeyAttachedTo, snapshotTenant } from "../helpers/direct";

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
    await env.DB.prepare("update api_keys set revoked_at = ? where key_hash = ?")
      .bind(new Date().toISOString(), await sha256Hex(revoked.key))
      .run();
    expectProblem(await call(revoked, "GET", "/v1/operations"), 401, "unauthorized");
    expectProblem(await call(revoked, "POST", "/v1/operations", { body: operationBody() }), 401, "unauthorized");
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
    expectProblem(await call(account, "POST", "/v1/operations", { body: operationBody() }), 403, "forbidden");
    // Role is checked before the body shape.
    expectProblem(await call(account, "POST", "/v1/operations", { body: { nonsense: true } }), 403, "forbidden");
    expectProblem(await call(account, "POST", "/v1/operations", { rawBody: "{oops" }), 403, "forbidden");
    // ... and before the body's size or an Idempotency-Key are looked at.
    const big = JSON.stringify({ padding: "x".repeat(9 * 1024 * 1024) });
    expectProblem(await call(account, "POST", "/v1/operations", { rawBody: big }), 403, "forbidden");
    expectProblem(
      await call(account, "POST", "/v1/operations", { body: operationBody(), headers: { "Idempotency-Key": uniqueId("idem") } }),
      403,
      "forbidden",
    );
    for (const target of [attached, publicOp]) {
      expectProblem(await call(account, "PATCH", `/v1/operations/${target.id}`, { body: { code: "X" } }), 403, "forbidden");
      expectProblem(await call(account, "POST", `/v1/operations/${target.id}/status`, { body: { status: "INACTIVE" } }), 403, "forbidden");
      expectProblem(await call(account, "DELETE", `/v1/operations/${target.id}`), 403, "forbidden");
    }
    expectProblem(await call(account, "GET", "/v1/events"), 403, "forbidden");
    expectProblem(await call(account, "GET", "/v1/events", { query: { after: "evt_0" } }), 403, "forbidden");
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
  });

  it("list and read only PUBLIC Operations and PRIVATE ones attached to one of their accounts", async () => {
    const { op, account, publicOp, attached, other } = await setting();
    const list = expectStatus(await call(account, "GET", "/v1/operations"), 200);
    expect(list.items.map((o: any) => o.id).sort()).toEqual([publicOp.id, attached.id].sort());

    expectStatus(await call(account, "GET", `/v1/operations/${publicOp.id}`), 200);
    const read = expectStatus(await call(account, "GET", `/v1/operations/${attached.id}`), 200);
    expect(read.id).toBe(attached.id);
    expectProblem(await call(account, "GET", `/v1/operations/${other.id}`), 404, "not_found");

    // Filters never widen what the key may see.
    const byIds = expectStatus(await call(account, "GET", "/v1/operations", { query: { ids: `${other.id},${attached.id}` } }), 200);
    expect(byIds.items.map((o: any) => o.id)).toEqual([attached.id]);
    const byCode = expectStatus(await call(account, "GET", "/v1/operations", { query: { ids: other.code, idType: "code" } }), 200);
    expect(byCode.items).toEqual([]);
    const privates = expectStatus(await call(account, "GET", "/v1/operations", { query: { type: "PRIVATE", limit: 1 } }), 200);
    expect(privates.items.map((o: any) => o.id)).toEqual([attached.id]);
    expect(privates.nextToken).toBeNull();

    // The OPERATOR of the tenant sees all three.
    const all = expectStatus(await call(op, "GET", "/v1/operations"), 200);
    expect(all.items).toHaveLength(3);
  });

  it("sees a PRIVATE Operation only while one of its accounts is attached, and only through its own user", async () => {
    const op = await newTenant();
    const target = await createOperation(op, { type: "PRIVATE" });
    const userId = uniqueId("u");
    const account: Caller = await issueKey(op.tenantId, "ACCOUNT", userId);
    expectProblem(await call(account, "GET", `/v1/operations/${target.id}`), 404, "not_found");

    const { accountId } = await accountKeyAttachedTo(op.tenantId, [target.id], userId);
    expectStatus(await call(account, "GET", `/v1/operations/${target.id}`), 200);

    await env.DB.prepare("delete from operation_accounts where operation_id = ? and account_id = ?").bind(target.id, accountId).run();
    expectProblem(await call(account, "GET", `/v1/operations/${target.id}`), 404, "not_found");
    expect(expectStatus(await call(account, "GET", "/v1/operations"), 200).items).toEqual([]);
  });

  it("see a PRIVATE Operation once it is attached through the accounts API, and no longer once detached", async () => {
    const op = await newTenant();
    const userId = uniqueId("u");
    const accountId = uniqueId("acc");
    const target = await createOperation(op, { type: "PRIVATE" });
    const account = await issueKey(op.tenantId, "ACCOUNT", userId);
    expectStatus(await call(op, "PUT", "/v1/accounts", { body: [{ accountId, name: "Shop", users: [{ userId, email: `${userId}@example.test` }] }] }), 200);
    expectProblem(await call(account, "GET", `/v1/operations/${target.id}`), 404, "not_found");
    expectStatus(await call(op, "PUT", `/v1/operations/${target.id}/accounts`, { body: [accountId] }), 200);
    expect(expectStatus(await call(account, "GET", `/v1/operations/${target.id}`), 200).accountCount).toBe(1);
    expect(expectStatus(await call(account, "GET", "/v1/operations"), 200).items.map((o: any) => o.id)).toEqual([target.id]);
    expectStatus(await call(op, "DELETE", `/v1/operations/${target.id}/accounts`, { body: [accountId] }), 200);
    expectProblem(await call(account, "GET", `/v1/operations/${target.id}`), 404, "not_found");
  });

  it("never see another tenant's Operations, even with the same user id and account id", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const userId = uniqueId("u");
    const inA = await createOperation(a, { type: "PRIVATE" });
    const publicInA = await createOperation(a, { type: "PUBLIC" });
    await accountKeyAttachedTo(a.tenantId, [inA.id], userId);
    const accountInB = await issueKey(b.tenantId, "ACCOUNT", userId);
    expect(expectStatus(await call(accountInB, "GET", "/v1/operations"), 200).items).toEqual([]);
    expectProblem(await call(accountInB, "GET", `/v1/operations/${inA.id}`), 404, "not_found");
    expectProblem(await call(accountInB, "GET", `/v1/operations/${publicInA.id}`), 404, "not_found");
  });
});
