import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY_CACHE_TTL_MS } from "../../src/platform/http/auth";
import { mintSignedKey } from "../../src/platform/core/key-format.mjs";
import { callRoute, collectPages, eventsOf, expectProblem, expectStatus, newTenant, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";
import { accountWithKey } from "../helpers/setup";
import { tenantDb } from "../helpers/shards";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether one of `prefixes` is the start of another (two keys a reader could not tell apart by them). */
function nested(prefixes: string[]): string[] {
  return prefixes.flatMap((prefix, i) => prefixes.filter((other, j) => i !== j && other.startsWith(prefix)).map((other) => `${prefix} < ${other}`));
}

afterEach(() => vi.restoreAllMocks());

async function issue(operator: Caller, body: Record<string, unknown>) {
  const response = await callRoute(operator, routes.createKey, { body });
  const created = expectStatus(response, 201);
  const caller: Caller = { tenantId: operator.tenantId, role: created.role, key: created.key!, userId: created.userId ?? undefined };
  return { created, caller, response };
}

const canRead = async (caller: Caller) => (await callRoute(caller, routes.listFrontOperations)).status;

describe("API keys: issue", () => {
  it("issues a working key, shown once with its prefix, and records key.created without the secret", async () => {
    const op = await newTenant();
    const { created, caller, response } = await issue(op, { role: "OPERATOR", name: "CI deploys" });
    expect(created).toMatchObject({ role: "OPERATOR", userId: null, name: "CI deploys", expiresAt: null, revokedAt: null });
    expect(created.key).toMatch(/^sk3_[A-Za-z0-9_-]{62}$/);
    expect(created.prefix).toBe(created.key!.slice(0, 8));
    expect(response.headers.get("location")).toBe(`/v1/keys/${created.id}`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expectStatus(await callRoute(caller, routes.listOperations), 200);

    const { key, ...representation } = created;
    expect(expectStatus(await callRoute(op, routes.getKey, { params: { keyId: created.id } }), 200)).toEqual(representation);
    const events = await eventsOf(op, { types: "key.created" });
    expect(events.map((event) => event.data.key)).toEqual([representation]);
    expect(JSON.stringify(await eventsOf(op))).not.toContain(key);
  });

  it("issues an OPERATOR key with the user it belongs to, whom its events and change records name", async () => {
    const op = await newTenant();
    const { created, caller } = await issue(op, { role: "OPERATOR", userId: "u-olga", name: "Olga's laptop" });
    expect(created).toMatchObject({ role: "OPERATOR", userId: "u-olga" });
    expect((await collectPages(op, routes.listKeys, { query: { userId: "u-olga" } })).items.map((key) => key.id)).toEqual([created.id]);
    // Everything of an OPERATOR's, with its changes named by its user.
    const rule = expectStatus(await callRoute(caller, routes.createRule, { body: { accountId: "ACC-1", minimum: 10 } }), 201);
    expect((await eventsOf(op, { types: "rule.created" })).map((event) => event.actor)).toEqual(["user:u-olga"]);
    const records = (await collectPages(op, routes.listHistory, { query: { actorUserId: "u-olga" } })).items;
    expect(records.map((record) => record.resourceId)).toEqual([rule.id]);
  });

  it("never stores the secret: an Idempotency-Key replay answers the same key without it, with a Warning", async () => {
    const op = await newTenant();
    const request = { body: { role: "OPERATOR", name: "retried" }, headers: { "Idempotency-Key": "issue-once" } };
    const first = await callRoute(op, routes.createKey, request);
    const created = expectStatus(first, 201);
    const replay = await callRoute(op, routes.createKey, request);
    const { key, ...representation } = created;
    expect(expectStatus(replay, 201)).toEqual(representation);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("warning")).toContain(created.id);
    expect(replay.headers.get("cache-control")).toBe("no-store");
    const { items } = await collectPages(op, routes.listKeys, { query: { limit: 500 } });
    expect(items.filter((item) => item.name === "retried")).toHaveLength(1);
    const stored = await (await tenantDb(op.tenantId))
      .prepare("select response_headers, response_body from idempotency_keys where tenant_id = ?")
      .bind(op.tenantId)
      .all();
    expect(stored.results.length).toBe(1);
    expect(JSON.stringify(stored.results)).not.toContain(key!);
    expect(JSON.parse(String(stored.results[0].response_body))).toEqual(representation);
  });

  it("issues ACCOUNT keys that act for their user's accounts only", async () => {
    const op = await newTenant();
    const mine = await accountWithKey(op);
    const other = await accountWithKey(op);
    const { created, caller } = await issue(op, { role: "ACCOUNT", userId: mine.userId });
    expect(created).toMatchObject({ role: "ACCOUNT", userId: mine.userId });
    const evaluate = (accountId: string) => callRoute(caller, routes.evaluateQuotas, { body: { orders: [{ accountId, amount: 1 }] } });
    expectStatus(await evaluate(mine.accountId), 200);
    expectProblem(await evaluate(other.accountId), 403, "account_not_permitted");
    expectProblem(await callRoute(caller, routes.listKeys), 403, "forbidden");
  });

  it("refuses bodies that make no sense, issuing nothing", async () => {
    const op = await newTenant();
    const bodies = [
      {},
      { role: "ADMIN" },
      { role: "ACCOUNT" },
      { role: "OPERATOR", userId: "u\u0000" },
      { role: "OPERATOR", expiresAt: "2020-01-01T00:00:00Z" },
      { role: "OPERATOR", expiresAt: "tomorrow" },
      { role: "OPERATOR", name: "" },
      { role: "OPERATOR", name: "a\u0000b" },
      { role: "OPERATOR", key: "sk_my_own_choice" },
    ];
    for (const body of bodies) expectProblem(await callRoute(op, routes.createKey, { body }), 400, "validation_failed");
    const { items } = await collectPages(op, routes.listKeys);
    expect(items).toHaveLength(1); // the tenant's own first key
  });
});

describe("API keys: list and read", () => {
  it("lists every key of the tenant, revoked ones included, never a secret or a hash; filters by role and user", async () => {
    const op = await newTenant();
    const other = await newTenant();
    const a = await issue(op, { role: "ACCOUNT", userId: "u-a" });
    const b = await issue(op, { role: "ACCOUNT", userId: "u-b" });
    const c = await issue(op, { role: "OPERATOR" });
    await issue(other, { role: "OPERATOR" });
    expectStatus(await callRoute(op, routes.revokeKey, { params: { keyId: c.created.id } }), 204);

    const { items, pages } = await collectPages(op, routes.listKeys, { query: { limit: 1 } });
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(items.map((item) => item.id).slice(1)).toEqual([a.created.id, b.created.id, c.created.id]);
    expect(items[3].revokedAt).not.toBeNull();
    for (const item of items) expect(Object.keys(item).sort()).toEqual(["createdAt", "expiresAt", "id", "name", "prefix", "revokedAt", "role", "userId"]);

    const accounts = expectStatus(await callRoute(op, routes.listKeys, { query: { role: "ACCOUNT" } }), 200);
    expect(accounts.items.map((item) => item.id)).toEqual([a.created.id, b.created.id]);
    const ofB = expectStatus(await callRoute(op, routes.listKeys, { query: { userId: "u-b" } }), 200);
    expect(ofB.items.map((item) => item.id)).toEqual([b.created.id]);
    expectProblem(await callRoute(op, routes.listKeys, { query: { role: "ADMIN" } }), 400, "validation_failed");
  });

  it("answers 404 for another tenant's key and for unknown ids", async () => {
    const op = await newTenant();
    const other = await newTenant();
    const theirs = await issue(other, { role: "OPERATOR" });
    expectProblem(await callRoute(op, routes.getKey, { params: { keyId: theirs.created.id } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.revokeKey, { params: { keyId: theirs.created.id } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.getKey, { params: { keyId: "key_unknown" } }), 404, "not_found");
    expect(await canRead(theirs.caller)).toBe(200);
  });
});

describe("API keys: prefixes tell a tenant's keys apart", () => {
  it("50 keys issued at once in one tenant: 50 different prefixes, each its key's first 8 characters, listed as issued", async () => {
    const op = await newTenant();
    const issued: { id: string; prefix: string | null; key?: string }[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => issue(op, { role: "OPERATOR", name: `batch ${batch} key ${i}` })));
      issued.push(...answers.map(({ created }) => created));
    }
    for (const { key, prefix } of issued) expect(prefix).toBe(key!.slice(0, 8));
    const prefixes = issued.map(({ prefix }) => prefix!);
    expect(new Set(prefixes).size).toBe(50);
    expect(nested(prefixes)).toEqual([]);

    const { items } = await collectPages(op, routes.listKeys, { query: { limit: 500 } });
    const listed = new Map(items.map((item) => [item.id, item.prefix]));
    for (const { id, prefix } of issued) expect(listed.get(id)).toBe(prefix);
    expect(new Set(items.map((item) => item.prefix)).size).toBe(items.length);
  });

  it("never issues a key whose prefix another key of the tenant has: it mints another", async () => {
    const op = await newTenant();
    const first = await issue(op, { role: "OPERATOR" });
    // The next key's random part comes out as the first's did (so its first 8 characters too), once.
    const random = Uint8Array.from(atob(first.created.key!.slice(4, 36).replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const getRandomValues = crypto.getRandomValues.bind(crypto);
    let repeated = 0;
    vi.spyOn(crypto, "getRandomValues").mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      if (array instanceof Uint8Array && array.length === 24 && repeated === 0) {
        repeated++;
        array.set(random);
        return array;
      }
      return getRandomValues(array as never) as T;
    });
    const second = await issue(op, { role: "OPERATOR" });
    expect(repeated).toBe(1);
    expect(second.created.prefix).not.toBe(first.created.prefix);
    expect(second.created.prefix).toBe(second.created.key!.slice(0, 8));
    expect(await canRead(second.caller)).toBe(200);
    const { items } = await collectPages(op, routes.listKeys, { query: { limit: 500 } });
    expect(items).toHaveLength(3);
    expect(await eventsOf(op, { types: "key.created" })).toHaveLength(2);
  });

  it("keys of the sk2 format whose first characters other keys shared keep working, and record a distinct prefix when next used", async () => {
    const op = await newTenant();
    // As migration 0002 leaves them: issued within minutes of each other, so their first 8 characters are alike, recorded without a prefix.
    const issuedAt = Date.now() - 3_600_000;
    const keys = await Promise.all([0, 1, 60_000].map((offset) => mintSignedKey(env.KEY_SIGNING_SECRET, issuedAt + offset, "sk2")));
    expect(new Set(keys.map((key) => key.slice(0, 8))).size).toBe(1);
    const ids = keys.map((_, i) => `key_sk2_${i}_${op.tenantId}`);
    for (const [i, key] of keys.entries()) {
      await env.CONTROL.prepare("insert into api_keys (id, tenant_id, role, key_hash, created_at) values (?, ?, 'OPERATOR', ?, ?)")
        .bind(ids[i], op.tenantId, await sha256Hex(key), new Date(issuedAt).toISOString())
        .run();
    }
    const callers = keys.map((key): Caller => ({ ...op, key }));
    const prefixesOf = async () => {
      const { items } = await collectPages(op, routes.listKeys, { query: { limit: 500 } });
      return ids.map((id) => items.find((item) => item.id === id)!.prefix);
    };
    expect(await prefixesOf()).toEqual([null, null, null]);

    for (const caller of callers) expectStatus(await callRoute(caller, routes.listFrontOperations, { drain: true }), 200);
    const prefixes = await prefixesOf();
    prefixes.forEach((prefix, i) => {
      expect(prefix, ids[i]).not.toBeNull();
      expect(keys[i].startsWith(prefix!), `${prefix} starts ${keys[i]}`).toBe(true);
      // The whole issue time and two random characters at least: what keys issued around the same time do not share.
      expect(prefix!.length).toBeGreaterThanOrEqual(14);
    });
    expect(nested([...prefixes, op.key.slice(0, 8)] as string[])).toEqual([]);

    // Used again, a key keeps the prefix it recorded.
    for (const caller of callers) expectStatus(await callRoute(caller, routes.listFrontOperations, { drain: true }), 200);
    expect(await prefixesOf()).toEqual(prefixes);
  });
});

describe("API keys: revoke and expire", () => {
  it("revokes: 401 from the next request on, listed with revokedAt, one key.revoked event however often it is revoked", async () => {
    const op = await newTenant();
    const { created, caller } = await issue(op, { role: "OPERATOR" });
    expect(await canRead(caller)).toBe(200); // now in this instance's key cache
    expectStatus(await callRoute(op, routes.revokeKey, { params: { keyId: created.id } }), 204);
    expectProblem(await callRoute(caller, routes.listFrontOperations), 401, "unauthorized");
    const read = expectStatus(await callRoute(op, routes.getKey, { params: { keyId: created.id } }), 200);
    expect(read.revokedAt).not.toBeNull();

    const again = await Promise.all([1, 2, 3].map(() => callRoute(op, routes.revokeKey, { params: { keyId: created.id } })));
    expect(again.map((response) => response.status)).toEqual([204, 204, 204]);
    expect(expectStatus(await callRoute(op, routes.getKey, { params: { keyId: created.id } }), 200).revokedAt).toBe(read.revokedAt);
    const revoked = await eventsOf(op, { types: "key.revoked" });
    expect(revoked).toHaveLength(1);
    expect(revoked[0].data.key).toMatchObject({ id: created.id, revokedAt: read.revokedAt });
  });

  it("records one key.revoked when revocations race", async () => {
    const op = await newTenant();
    const { created } = await issue(op, { role: "OPERATOR" });
    const answers = await Promise.all([1, 2, 3, 4].map(() => callRoute(op, routes.revokeKey, { params: { keyId: created.id } })));
    expect(answers.map((response) => response.status)).toEqual([204, 204, 204, 204]);
    expect(await eventsOf(op, { types: "key.revoked" })).toHaveLength(1);
  });

  it("lets a key revoke itself", async () => {
    const op = await newTenant();
    const { created, caller } = await issue(op, { role: "OPERATOR" });
    expectStatus(await callRoute(caller, routes.revokeKey, { params: { keyId: created.id } }), 204);
    expectProblem(await callRoute(caller, routes.listKeys), 401, "unauthorized");
    expect(await canRead(op)).toBe(200);
  });

  it("answers 401 for an expired key, cached or not", async () => {
    const op = await newTenant();
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    const { created, caller } = await issue(op, { role: "OPERATOR", expiresAt });
    expect(created.expiresAt).toBe(`${expiresAt.slice(0, 19)}Z`);
    expect(await canRead(caller)).toBe(200);
    // The clock moved to the key's expiry, not waited for: a moment before it the cached key still works, at it not.
    const expiry = Date.parse(created.expiresAt!);
    vi.spyOn(Date, "now").mockReturnValue(expiry - 1);
    expect(await canRead(caller)).toBe(200);
    vi.spyOn(Date, "now").mockReturnValue(expiry);
    expectProblem(await callRoute(caller, routes.listFrontOperations), 401, "unauthorized");
  });

  it("stops a key revoked elsewhere (straight in the database) within the key cache's lifetime of 10 s", async () => {
    expect(KEY_CACHE_TTL_MS).toBeLessThanOrEqual(10_000);
    const op = await newTenant();
    const { created, caller } = await issue(op, { role: "OPERATOR" });
    expect(await canRead(caller)).toBe(200);
    await env.CONTROL.prepare("update api_keys set revoked_at = ? where id = ?").bind(new Date().toISOString(), created.id).run();
    const revokedAt = Date.now();
    // The clock moved past the cache's lifetime, not waited out: the next request must not be served from the cache.
    vi.spyOn(Date, "now").mockReturnValue(revokedAt + KEY_CACHE_TTL_MS + 1);
    expect(await canRead(caller)).toBe(401);
  });
});
