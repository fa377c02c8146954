import { createExecutionContext, env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import localWorker from "../../local/worker/index";
import { OPERATOR_TOKEN_HEADER } from "../../local/worker/operator-token.mjs";
import { call, createOperation, newTenant } from "../helpers/client";
import { servedDocument } from "../helpers/openapi";

/*
 * The operator commands' routes of a local server (local/worker/operator-routes.ts): `npm run key`
 * and the others run the Worker's own code inside the server that holds the databases. Only the
 * local entry has them, and only for its token.
 */
const TOKEN = "local-operator-token-for-tests";
const localEnv = { ...env, LOCAL_OPERATOR_TOKEN: TOKEN };

async function local(method: string, path: string, body?: unknown, token: string | null = TOKEN) {
  const headers: Record<string, string> = {
    ...(token !== null && { [OPERATOR_TOKEN_HEADER]: token }),
    ...(body !== undefined && { "content-type": "application/json" }),
  };
  const request = new Request(`http://local.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const response = await localWorker.fetch(request as Request<unknown, IncomingRequestCfProperties>, localEnv, createExecutionContext());
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { code?: string } };
}

async function apiWithKey(key: string, path: string) {
  const request = new Request(`http://local.test${path}`, { headers: { "svc-client": "OPERATOR", "svc-api-key": key } });
  const response = await localWorker.fetch(request as Request<unknown, IncomingRequestCfProperties>, localEnv, createExecutionContext());
  return { status: response.status, body: (await response.json()) as { items: Record<string, unknown>[] } };
}

describe("a local server's operator routes", () => {
  it("are not in the bundle `wrangler deploy` uploads, nor served by it, nor in its OpenAPI document", async () => {
    expect(env.PRODUCTION_BUNDLE).not.toContain("/__local/");
    expect(env.PRODUCTION_BUNDLE).not.toContain("mountOperatorRoutes");
    expect(env.PRODUCTION_BUNDLE).not.toContain("ringArmedAlarm");
    const response = await SELF.fetch("http://api.test/__local/keys", {
      method: "POST",
      headers: { "content-type": "application/json", [OPERATOR_TOKEN_HEADER]: TOKEN },
      body: JSON.stringify({ tenant: "t-deployed", key: { role: "OPERATOR" } }),
    });
    expect(response.status).toBe(404);
    const document = await servedDocument(await newTenant());
    expect(Object.keys(document.paths).some((path) => path.includes("__local"))).toBe(false);
  });

  it("answer 404 without the server's token, or with another", async () => {
    for (const token of [null, "", "not-the-token"]) {
      const answer = await local("POST", "/__local/keys", { tenant: `t-no-token-${token}`, key: { role: "OPERATOR" } }, token);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe("not_found");
    }
    expect((await local("GET", "/__local/keys?tenant=t-no-token-null")).body.items).toEqual([]);
    expect((await local("POST", "/__local/sql", { database: "CONTROL", sql: "select 1 as one" }, null)).status).toBe(404);
    const operation = await createOperation(await newTenant());
    expect((await local("POST", `/__local/operations/${operation.id}/alarm`, undefined, null)).status).toBe(404);
  });

  it("ring only an Operation's alarm: a malformed id is a 404, never an object made for it", async () => {
    for (const id of ["op_x", "not-an-id", "qr_01J0000000000000000000000A"]) {
      const answer = await local("POST", `/__local/operations/${id}/alarm`);
      expect([answer.status, answer.body.code], id).toEqual([404, "not_found"]);
    }
  });

  it("issue the first key of a new tenant (named, as the command line does), list it, revoke it: the API sees each step", async () => {
    const tenant = `t-local-${crypto.randomUUID()}`;
    const issued = await local("POST", "/__local/keys", { tenant, key: { role: "OPERATOR", name: "Demo operator" }, defaultLocale: "fr", shard: "SHARD_2" });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ shard: "SHARD_2", tenantCreated: true, tenantDefaultLocale: "fr" });
    const key = issued.body.key as string;
    const served = await apiWithKey(key, "/v1/keys");
    expect(served.status).toBe(200);
    expect(served.body.items).toEqual([expect.objectContaining({ id: issued.body.keyId, name: "Demo operator", role: "OPERATOR" })]);
    const events = await apiWithKey(key, "/v1/events?types=key.created");
    expect(events.body.items).toEqual([expect.objectContaining({ type: "key.created", actor: "cli" })]);

    const again = await local("POST", "/__local/keys", {
      tenant,
      key: { role: "ACCOUNT", userId: "u_alice", name: "Alice (Maison Dupont)" },
      shard: "SHARD_1",
    });
    expect(again.body).toMatchObject({ shard: "SHARD_2", tenantCreated: false, tenantDefaultLocale: "fr" });
    expect((await local("GET", `/__local/keys?tenant=${tenant}`)).body.items).toHaveLength(2);

    const revoked = await local("POST", `/__local/keys/${issued.body.keyId}/revoke`);
    expect(revoked.body).toMatchObject({ alreadyRevoked: false, key: { id: issued.body.keyId } });
    expect((await apiWithKey(key, "/v1/operations")).status).toBe(401);
    expect((await local("POST", `/__local/keys/${issued.body.keyId}/revoke`)).body.alreadyRevoked).toBe(true);
  });

  it("refuse what the command line would: a tenant it must not create, a bad body, an unknown key or shard, with a problem", async () => {
    expect((await local("POST", "/__local/keys", { tenant: "t-nowhere", key: { role: "OPERATOR" }, existingOnly: true })).status).toBe(404);
    const noUser = await local("POST", "/__local/keys", { tenant: "t-bad", key: { role: "ACCOUNT" } });
    expect(noUser.status).toBe(400);
    expect(noUser.body.code).toBe("validation_failed");
    const shard = await local("POST", "/__local/keys", { tenant: "t-bad-shard", key: { role: "OPERATOR" }, shard: "SHARD_9" });
    expect(shard.status).toBe(400);
    expect(shard.body.detail).toMatch(/SHARD_9 is not a shard/);
    expect((await local("POST", "/__local/keys/key_unknown/revoke")).status).toBe(404);
  });

  it("delete a tenant inside the server: its keys answer 401 at once, a second deletion is a 404", async () => {
    const op = await newTenant();
    expect((await call(op, "GET", "/v1/operations")).status).toBe(200);
    const deleted = await local("POST", `/__local/tenants/${op.tenantId}/delete`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ tenantId: op.tenantId, keys: 1 });
    expect((await apiWithKey(op.key, "/v1/operations")).status).toBe(401);
    expect((await local("POST", `/__local/tenants/${op.tenantId}/delete`)).status).toBe(404);
  });

  it("run one statement, with its parameters, on the database named: a row written there is the API's", async () => {
    const op = await newTenant();
    const placed = await local("POST", "/__local/sql", {
      database: "CONTROL",
      sql: "select shard from tenant_directory where tenant_id = ?",
      params: [op.tenantId],
    });
    expect(placed.status).toBe(200);
    const [{ shard }] = placed.body.rows as { shard: string }[];
    const id = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
    const written = await local("POST", "/__local/sql", {
      database: shard,
      sql: "insert into events (id, tenant_id, type, operation_id, actor, at) values (?, ?, 'operation.created', null, 'test', ?) returning id",
      params: [id, op.tenantId, new Date().toISOString()],
    });
    expect(written.body.rows).toEqual([{ id }]);
    expect((await apiWithKey(op.key, "/v1/events?types=operation.created")).body.items).toEqual([expect.objectContaining({ id, actor: "test" })]);
    // A ";" inside a string or a comment, or ending the statement, leaves it one.
    const quoted = await local("POST", "/__local/sql", { database: shard, sql: 'select \'a;b\' as s, "x;" as "x;" /* ; */ -- ;\n;' });
    expect(quoted.body.rows).toEqual([{ s: "a;b", "x;": "x;" }]);
  });

  it("refuse a database the server has not, a bad body, a statement D1 refuses, with a problem: never a 500", async () => {
    for (const body of [
      { database: "SHARD_9", sql: "select 1" },
      { database: "shard_1", sql: "select 1" },
      { database: "PAGINATION_SECRET", sql: "select 1" },
      { database: "CONTROL" },
      { database: "CONTROL", sql: "" },
      { database: "CONTROL", sql: "select ?", params: "1" },
      { database: "CONTROL", sql: "select ?", params: [{}] },
      { database: "CONTROL", sql: "select 1", more: true },
      { database: "CONTROL", sql: "select * from no_such_table" },
      { database: "CONTROL", sql: "select 1 as a; select 2 as b" },
      { database: "CONTROL", sql: "select ?", params: [1, 2] },
    ]) {
      const answer = await local("POST", "/__local/sql", body);
      expect([answer.status, answer.body.code], JSON.stringify(body)).toEqual([400, "validation_failed"]);
    }
  });
});
