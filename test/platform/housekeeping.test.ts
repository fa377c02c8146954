import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { callRoute, expectStatus, newTenant, operationBody } from "../helpers/client";
import { routes } from "../helpers/routes";

async function storedKeys(tenantId: string): Promise<string[]> {
  const { results } = await env.DB.prepare("select idempotency_key from idempotency_keys where tenant_id = ? order by idempotency_key")
    .bind(tenantId)
    .all<{ idempotency_key: string }>();
  return results.map((row) => row.idempotency_key);
}

describe("scheduled housekeeping", () => {
  it("purges Idempotency-Key answers older than 48 h and keeps recent ones", async () => {
    const op = await newTenant();
    expectStatus(await callRoute(op, routes.createOperation, { body: operationBody(), headers: { "Idempotency-Key": "recent" } }), 201);
    const old = new Date(Date.now() - 49 * 3600_000).toISOString();
    await env.DB.prepare(
      "insert into idempotency_keys (tenant_id, idempotency_key, fingerprint, state, response_status, response_body, created_at) values (?, 'old', 'f', 'DONE', 201, '{}', ?)",
    )
      .bind(op.tenantId, old)
      .run();
    expect(await storedKeys(op.tenantId)).toEqual(["old", "recent"]);

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);

    expect(await storedKeys(op.tenantId)).toEqual(["recent"]);
  });
});
