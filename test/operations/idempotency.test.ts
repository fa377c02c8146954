import { describe, expect, it, vi } from "vitest";
import { captureLog } from "../helpers/request-log";
import { call, callRoute, createOperation, eventsOf, expectProblem, expectStatus, newTenant, operationBody, uniqueId } from "../helpers/client";
import { addLineDirectly, snapshotTenant } from "../helpers/direct";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";
import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { queryPlan } from "../helpers/recording-db";
import { markClaimCommitted } from "../../src/platform/data/claims";
import { idPrefixes, newId } from "../../src/platform/core/ids";
import { accountWithKey, cartBody, line, setUpOperation } from "../helpers/setup";

const withKey = (key: string, extra: Record<string, string> = {}) => ({ "Idempotency-Key": key, ...extra });

describe("Idempotency-Key", () => {
  it("replays a create: same status, body and headers, one Operation and one event", async () => {
    const op = await newTenant();
    const key = uniqueId("idem");
    const body = operationBody();
    const first = await callRoute(op, routes.createOperation, { body, headers: withKey(key) });
    expectStatus(first, 201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const afterFirst = await snapshotTenant(op.tenantId);

    const replay = await callRoute(op, routes.createOperation, { body, headers: withKey(key) });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("location")).toBe(first.headers.get("location"));
    expect(replay.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(replay.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(replay.headers.get("x-request-id")).toBeTruthy();
    expect(replay.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));

    expect(await snapshotTenant(op.tenantId)).toEqual(afterFirst);
    expect(afterFirst.operations).toHaveLength(1);
    expect((await eventsOf(op)).filter((e) => e.type === "operation.created")).toHaveLength(1);
  });

  it("answers 422 idempotency_key_reused for the same key with another body, path or method", async () => {
    const op = await newTenant();
    const key = uniqueId("idem");
    const body = operationBody();
    const created = expectStatus(await callRoute(op, routes.createOperation, { body, headers: withKey(key) }), 201);
    const before = await snapshotTenant(op.tenantId);
    expectProblem(await callRoute(op, routes.createOperation, { body: { ...body, code: "OTHER" }, headers: withKey(key) }), 422, "idempotency_key_reused");
    // The same JSON with other whitespace is another body.
    expectProblem(await call(op, "POST", "/v1/operations", { rawBody: JSON.stringify(body, null, 2), headers: withKey(key) }), 422, "idempotency_key_reused");
    expectProblem(
      await callRoute(op, routes.patchOperation, { params: { operationId: created.id }, body: { code: "X" }, headers: withKey(key) }),
      422,
      "idempotency_key_reused",
    );
    expectProblem(await callRoute(op, routes.deleteOperation, { params: { operationId: created.id }, headers: withKey(key) }), 422, "idempotency_key_reused");
    expectProblem(await callRoute(op, routes.createOperation, { query: { x: "1" }, body, headers: withKey(key) }), 422, "idempotency_key_reused");
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
  });

  it("scopes keys to the tenant", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const key = uniqueId("idem");
    const body = operationBody();
    const inA = expectStatus(await callRoute(a, routes.createOperation, { body, headers: withKey(key) }), 201);
    const inBResponse = await callRoute(b, routes.createOperation, { body, headers: withKey(key) });
    const inB = expectStatus(inBResponse, 201);
    expect(inBResponse.headers.get("idempotent-replayed")).toBeNull();
    expect(inB.id).not.toBe(inA.id);
    expect((await snapshotTenant(b.tenantId)).operations).toHaveLength(1);
    // Another body under the same key in B is B's own conflict, not A's.
    expectProblem(await callRoute(b, routes.createOperation, { body: operationBody(), headers: withKey(key) }), 422, "idempotency_key_reused");
  });

  it("replays PATCH, status and DELETE without applying them twice", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    await addLineDirectly(op.tenantId, target.id);

    const patchKey = uniqueId("idem");
    const patched = await callRoute(op, routes.patchOperation, {
      params: { operationId: target.id },
      body: { name: { it: "Primavera" } },
      headers: withKey(patchKey),
    });
    expect(expectStatus(patched, 200).version).toBe(2);
    const patchReplay = await callRoute(op, routes.patchOperation, {
      params: { operationId: target.id },
      body: { name: { it: "Primavera" } },
      headers: withKey(patchKey),
    });
    expect(patchReplay.status).toBe(200);
    expect(patchReplay.text).toBe(patched.text);
    expect(patchReplay.headers.get("etag")).toBe('"2"');
    expect(patchReplay.headers.get("idempotent-replayed")).toBe("true");

    const statusKey = uniqueId("idem");
    const activated = await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "ACTIVE" }, headers: withKey(statusKey) });
    expect(expectStatus(activated, 200).version).toBe(3);
    const statusReplay = await callRoute(op, routes.changeStatus, {
      params: { operationId: target.id },
      body: { status: "ACTIVE" },
      headers: withKey(statusKey),
    });
    // Not 409 invalid_transition: the first answer is replayed.
    expect(statusReplay.status).toBe(200);
    expect(statusReplay.text).toBe(activated.text);

    const dateKey = uniqueId("idem");
    const moved = await callRoute(op, routes.patchOperation, {
      params: { operationId: target.id },
      body: { endDate: "2027-12-31T00:00:00Z" },
      headers: withKey(dateKey),
    });
    expect(moved.headers.get("warning")).toMatch(/^199 /);
    const movedReplay = await callRoute(op, routes.patchOperation, {
      params: { operationId: target.id },
      body: { endDate: "2027-12-31T00:00:00Z" },
      headers: withKey(dateKey),
    });
    expect(movedReplay.headers.get("warning")).toBe(moved.headers.get("warning"));

    expectStatus(await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "INACTIVE" } }), 200);
    const deleteKey = uniqueId("idem");
    const deleted = await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: withKey(deleteKey) });
    expect(deleted.status).toBe(204);
    const deleteReplay = await callRoute(op, routes.deleteOperation, { params: { operationId: target.id }, headers: withKey(deleteKey) });
    expect(deleteReplay.status).toBe(204);
    expect(deleteReplay.text).toBe("");
    expect(deleteReplay.headers.get("idempotent-replayed")).toBe("true");

    const types = (await eventsOf(op)).map((e) => e.type);
    expect(types).toEqual([
      "operation.created",
      "operation.updated",
      "operation.status_changed",
      "operation.updated",
      "operation.status_changed",
      "operation.deleted",
    ]);
  });

  it("replays a refused request's answer too", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    const key = uniqueId("idem");
    const refused = await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "ACTIVE" }, headers: withKey(key) });
    expectProblem(refused, 409, "invalid_transition");
    await addLineDirectly(op.tenantId, target.id);
    const replay = await callRoute(op, routes.changeStatus, { params: { operationId: target.id }, body: { status: "ACTIVE" }, headers: withKey(key) });
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe("invalid_transition");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 200).status).toBe("DRAFT");
  });

  it("replays concurrent duplicates once: exactly one create runs", async () => {
    const op = await newTenant();
    const key = uniqueId("idem");
    const body = operationBody();
    const responses = await Promise.all(Array.from({ length: 5 }, () => callRoute(op, routes.createOperation, { body, headers: withKey(key) })));
    for (const res of responses) {
      // Either the answer (first or replayed) or "still running, retry".
      if (res.status !== 201) expectProblem(res, 409, "idempotency_in_progress");
    }
    expect(responses.some((r) => r.status === 201)).toBe(true);
    expect((await snapshotTenant(op.tenantId)).operations).toHaveLength(1);
  });

  it("refuses a malformed key and ignores keys on GET", async () => {
    const op = await newTenant();
    expectProblem(await callRoute(op, routes.createOperation, { body: operationBody(), headers: withKey("x".repeat(256)) }), 400, "validation_failed");
    expectProblem(await callRoute(op, routes.createOperation, { body: operationBody(), headers: withKey("with space") }), 400, "validation_failed");
    expect((await snapshotTenant(op.tenantId)).operations).toHaveLength(0);
    const key = uniqueId("idem");
    expectStatus(await callRoute(op, routes.listOperations, { headers: withKey(key) }), 200);
    // The key was not consumed by the GET.
    expectStatus(await callRoute(op, routes.createOperation, { body: operationBody(), headers: withKey(key) }), 201);
  });

  it("ignores keys on reads sent by POST (evaluate, compare): no claim, no stored answer, no D1 call for it", async () => {
    const op = await newTenant();
    const log = captureLog();
    const open = await setUpOperation(op, { type: "PUBLIC" });
    const evaluate = { orders: [{ accountId: "ACC-1", amount: 50 }] };
    expectStatus(await callRoute(op, routes.evaluateQuotas, { body: evaluate }), 200); // warms the tenant's rule index
    const key = uniqueId("idem");
    const warm = await callRoute(op, routes.evaluateQuotas, { body: evaluate, headers: withKey(key) });
    expectStatus(warm, 200);
    // A warm evaluation reads no database; a claimed key would have cost a write before and after.
    expect(log.lineOf(warm).map((line) => line.d1RoundTrips)).toEqual([0]);
    // The same key with another body runs too (a stored answer would make it 422 idempotency_key_reused).
    const other = await callRoute(op, routes.evaluateQuotas, { body: { orders: [{ accountId: "ACC-2", amount: 70 }] }, headers: withKey(key) });
    expectStatus(other, 200);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    const compare = (quantity: number) =>
      callRoute(op, routes.compare, { params: { operationId: open.id }, body: { lines: [{ variantExternalId: "SKU-A", quantity }] }, headers: withKey(key) });
    expectStatus(await compare(11), 200);
    expect((await compare(12)).headers.get("idempotent-replayed")).toBeNull();
    const db = await tenantDb(op.tenantId);
    expect((await db.prepare("select count(*) as n from idempotency_keys where tenant_id = ?").bind(op.tenantId).first<{ n: number }>())?.n).toBe(0);
    vi.restoreAllMocks();
  });

  it("scopes keys to the caller: another user resending a user's key and body runs its own request", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const alice = await accountWithKey(op);
    const bob = await accountWithKey(op);
    const key = uniqueId("idem");
    const body = cartBody(operation.id, alice.accountId, [line("SKU-A", 1)]);
    const cart = expectStatus(await callRoute(alice.caller, routes.createCart, { body, headers: withKey(key) }), 201);
    // Bob may not buy for Alice's account: with her key and body he still gets his own 403, never her cart.
    expectProblem(await callRoute(bob.caller, routes.createCart, { body, headers: withKey(key) }), 403, "account_not_permitted");
    // His retry replays his own answer.
    const retry = await callRoute(bob.caller, routes.createCart, { body, headers: withKey(key) });
    expect([retry.status, JSON.parse(retry.text).code]).toEqual([403, "account_not_permitted"]);
    expect(retry.text).not.toContain(cart.id);
    // Alice's own replay still gets her cart.
    const replay = await callRoute(alice.caller, routes.createCart, { body, headers: withKey(key) });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(expectStatus(replay, 201).id).toBe(cart.id);
  });

  it("takes over a claim whose request died without answering, after 60 s, and not before", async () => {
    const op = await newTenant();
    const body = operationBody();
    // The claim a request makes for this very POST, as if it had died right after making it.
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`POST /v1/operations\n${JSON.stringify(body)}`));
    const fingerprint = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    const db = await tenantDb(op.tenantId);
    const claim = async (key: string, ageMs: number) =>
      db
        .prepare(
          "insert into idempotency_keys (tenant_id, caller, idempotency_key, fingerprint, state, created_at) values (?, 'OPERATOR:', ?, ?, 'PENDING', ?)",
        )
        .bind(op.tenantId, key, fingerprint, new Date(Date.now() - ageMs).toISOString())
        .run();
    const recent = uniqueId("idem");
    await claim(recent, 10_000);
    expectProblem(await callRoute(op, routes.createOperation, { body, headers: withKey(recent) }), 409, "idempotency_in_progress");
    const abandoned = uniqueId("idem");
    await claim(abandoned, 61_000);
    const taken = await callRoute(op, routes.createOperation, { body, headers: withKey(abandoned) });
    const created = expectStatus(taken, 201);
    // The answer is stored for the caller's retries like any other.
    const replay = await callRoute(op, routes.createOperation, { body, headers: withKey(abandoned) });
    expect(expectStatus(replay, 201).id).toBe(created.id);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("marks the claim in the write's own batch: the change set a write records names the claim's request", async () => {
    const op = await newTenant();
    const key = uniqueId("idem");
    const created = await callRoute(op, routes.createRule, { body: { accountId: "ACC-IDEM", minimum: 5 }, headers: withKey(key) });
    expectStatus(created, 201);
    const requestId = created.headers.get("x-request-id");
    const db = await tenantDb(op.tenantId);
    const claim = await db
      .prepare("select request_id as requestId, committed_set as committedSet, state from idempotency_keys where tenant_id = ? and idempotency_key = ?")
      .bind(op.tenantId, key)
      .first<{ requestId: string; committedSet: string | null; state: string }>();
    const set = await db.prepare("select id from change_sets where tenant_id = ? and request_id = ?").bind(op.tenantId, requestId).first<{ id: string }>();
    expect(claim).toEqual({ requestId, committedSet: set!.id, state: "DONE" });
  });

  it("never runs again a request cut off after its write committed and before it stored its answer: 409 idempotency_answer_lost with its change set", async () => {
    const op = await newTenant();
    const body = { accountId: "ACC-LOST", minimum: 7 };
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`POST /v1/buying-policies/quotas/rules\n${JSON.stringify(body)}`));
    const fingerprint = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    const db = await tenantDb(op.tenantId);
    // What a request cut off after its commit leaves: its claim, PENDING, and the change set its write's batch
    // recorded (the trigger marks the claim as the set goes in).
    const leftBehind = async (key: string, ageMs: number) => {
      const requestId = crypto.randomUUID();
      const at = new Date(Date.now() - ageMs).toISOString();
      await db
        .prepare(
          "insert into idempotency_keys (tenant_id, caller, idempotency_key, fingerprint, state, created_at, request_id) values (?, 'OPERATOR:', ?, ?, 'PENDING', ?, ?)",
        )
        .bind(op.tenantId, key, fingerprint, at, requestId)
        .run();
      const setId = newId(idPrefixes.change);
      await db
        .prepare("insert into change_sets (id, tenant_id, actor, request_id, at) values (?, ?, 'key:k', ?, ?)")
        .bind(setId, op.tenantId, requestId, at)
        .run();
      return setId;
    };
    const recent = uniqueId("idem");
    await leftBehind(recent, 10_000);
    expectProblem(await callRoute(op, routes.createRule, { body, headers: withKey(recent) }), 409, "idempotency_in_progress");
    const lost = uniqueId("idem");
    const setId = await leftBehind(lost, 61_000);
    for (let attempt = 0; attempt < 2; attempt++) {
      const problem = expectProblem(await callRoute(op, routes.createRule, { body, headers: withKey(lost) }), 409, "idempotency_answer_lost");
      expect(problem.changeSetId).toBe(setId);
      expect(problem.detail).toContain(setId);
    }
    // Not run again: no rule was created by either replay.
    const rules = expectStatus(await callRoute(op, routes.listRules, { query: { limit: 50 } }), 200) as { items: unknown[] };
    expect(rules.items).toEqual([]);
  });
  it.each([
    ["cart", routes.createCart, "carts", "cartId"],
    ["order", routes.createOrder, "orders", "orderId"],
  ] as const)(
    "never creates a %s twice for a request cut off after its commit: its batch marks the claim with the new id (no change set to do it)",
    async (_, route, table, detail) => {
      const op = await newTenant();
      const operation = await setUpOperation(op, { type: "PUBLIC" });
      const buyer = await accountWithKey(op);
      const body = cartBody(operation.id, buyer.accountId, [line("SKU-A", 1)]);
      const key = uniqueId("idem");
      const created = expectStatus(await callRoute(op, route, { body, headers: withKey(key) }), 201);
      const db = await tenantDb(op.tenantId);
      const claim = () =>
        db
          .prepare("select committed_set as committedSet, state from idempotency_keys where tenant_id = ? and idempotency_key = ?")
          .bind(op.tenantId, key)
          .first<{ committedSet: string | null; state: string }>();
      expect(await claim()).toEqual({ committedSet: created.id, state: "DONE" });
      // What the request leaves when it is cut off between its commit and storing its answer, 61 s ago.
      await db
        .prepare(
          "update idempotency_keys set state = 'PENDING', response_status = null, response_headers = null, response_body = null, created_at = ? where tenant_id = ? and idempotency_key = ?",
        )
        .bind(new Date(Date.now() - 61_000).toISOString(), op.tenantId, key)
        .run();
      const problem = expectProblem(await callRoute(op, route, { body, headers: withKey(key) }), 409, "idempotency_answer_lost");
      expect(problem[detail]).toBe(created.id);
      expect(problem.detail).toContain(created.id);
      const count = await db.prepare(`select count(*) as n from ${table} where tenant_id = ?`).bind(op.tenantId).first<{ n: number }>();
      expect(count?.n).toBe(1);
    },
  );
  it("never records a second refusal for an order refused below its minimum and cut off after its commit: 409 naming its order.blocked event", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC" });
    const buyer = await accountWithKey(op);
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 1_000 } }), 200);
    const body = cartBody(operation.id, buyer.accountId, [line("SKU-A", 1, 10)]);
    const key = uniqueId("idem");
    expectProblem(await callRoute(op, routes.createOrder, { body, headers: withKey(key) }), 422, "quota_min_not_met");
    const db = await tenantDb(op.tenantId);
    const refusals = async () => (await eventsOf(op)).filter((event) => event.type === "order.blocked");
    const [refusal] = await refusals();
    const claim = await db
      .prepare("select committed_set as committedSet from idempotency_keys where tenant_id = ? and idempotency_key = ?")
      .bind(op.tenantId, key)
      .first<{ committedSet: string | null }>();
    expect(claim?.committedSet).toBe(refusal.id);
    await db
      .prepare(
        "update idempotency_keys set state = 'PENDING', response_status = null, response_headers = null, response_body = null, created_at = ? where tenant_id = ? and idempotency_key = ?",
      )
      .bind(new Date(Date.now() - 61_000).toISOString(), op.tenantId, key)
      .run();
    const problem = expectProblem(await callRoute(op, routes.createOrder, { body, headers: withKey(key) }), 409, "idempotency_answer_lost");
    expect(problem.eventId).toBe(refusal.id);
    expect(problem.detail).toContain(refusal.id);
    expect(await refusals()).toHaveLength(1);
  });
  it("finds the claim to mark by its request, never by walking the tenant's keys (the mark runs inside every write)", async () => {
    const uses = async (sql: string, params: unknown[]) => (await queryPlan({ sql, params })).map((row) => row.detail).join(" | ");
    // The mark a cart or order batch writes.
    const mark = markClaimCommitted(drizzle(env.SHARD_1), "t", "req", "cart_x").toSQL();
    expect(await uses(mark.sql, mark.params)).toMatch(/USING INDEX idempotency_keys_running \(request_id=\?\)/);
    // The mark the change set's trigger writes (its UPDATE, with NEW's values as parameters).
    const trigger = await env.SHARD_1.prepare("select sql from sqlite_master where type = 'trigger' and name = 'change_sets_commit_claim'").first<{
      sql: string;
    }>();
    const update = /UPDATE[\s\S]*?;/
      .exec(trigger!.sql)![0]
      .replace(/;$/, "")
      .replace(/NEW\.\w+/g, "?");
    expect(await uses(update, ["chg_x", "req", "t"])).toMatch(/USING INDEX idempotency_keys_running \(request_id=\?\)/);
  });
});
