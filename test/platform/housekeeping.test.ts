import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { callRoute, expectStatus, newTenant, operationBody } from "../helpers/client";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";
import { shardNames } from "../../src/platform/core/shards";

async function storedKeys(tenantId: string): Promise<string[]> {
  const db = await tenantDb(tenantId);
  const { results } = await db
    .prepare("select idempotency_key from idempotency_keys where tenant_id = ? order by idempotency_key")
    .bind(tenantId)
    .all<{ idempotency_key: string }>();
  return results.map((row) => row.idempotency_key);
}

describe("scheduled housekeeping", () => {
  it("purges Idempotency-Key answers older than 48 h and keeps recent ones, on every shard", async () => {
    // One tenant on each shard: the cron must sweep them all.
    const callers = await Promise.all(shardNames(env).map((shard) => newTenant({ shard })));
    const old = new Date(Date.now() - 49 * 3600_000).toISOString();
    for (const op of callers) {
      expectStatus(await callRoute(op, routes.createOperation, { body: operationBody(), headers: { "Idempotency-Key": "recent" } }), 201);
      await (await tenantDb(op.tenantId))
        .prepare(
          "insert into idempotency_keys (tenant_id, idempotency_key, fingerprint, state, response_status, response_body, created_at) values (?, 'old', 'f', 'DONE', 201, '{}', ?)",
        )
        .bind(op.tenantId, old)
        .run();
      expect(await storedKeys(op.tenantId)).toEqual(["old", "recent"]);
    }

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);

    for (const op of callers) expect(await storedKeys(op.tenantId)).toEqual(["recent"]);
  });

  it("leaves a tenant being moved alone (its fence refuses deletes) and still purges everyone else on that shard", async () => {
    const [moving, staying] = [await newTenant({ shard: "SHARD_1" }), await newTenant({ shard: "SHARD_1" })];
    const old = new Date(Date.now() - 49 * 3600_000).toISOString();
    for (const op of [moving, staying]) {
      await env.SHARD_1.prepare(
        "insert into idempotency_keys (tenant_id, idempotency_key, fingerprint, state, response_status, response_body, created_at) values (?, 'old', 'f', 'DONE', 201, '{}', ?)",
      )
        .bind(op.tenantId, old)
        .run();
    }
    await env.SHARD_1.prepare("insert into tenant_fences (tenant_id, state, since) values (?, 'MOVING', ?)")
      .bind(moving.tenantId, new Date().toISOString())
      .run();
    try {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "17 * * * *", scheduledTime: Date.now() }), env, ctx);
      await waitOnExecutionContext(ctx);
      expect(await storedKeys(moving.tenantId)).toEqual(["old"]);
      expect(await storedKeys(staying.tenantId)).toEqual([]);
    } finally {
      await env.SHARD_1.prepare("delete from tenant_fences where tenant_id = ?").bind(moving.tenantId).run();
    }
  });
});
