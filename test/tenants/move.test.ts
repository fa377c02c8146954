import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ShardName } from "../../src/platform/core/shards";
import { countTenantRows, moveTenant, MoveRefused, type MoveOptions } from "../../src/tenants/move";
import { expectProblem, expectStatus, newTenant, problemCodeOf, type ApiResponse, type Caller, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";
import { shardOf } from "../helpers/shards";
import { apiView, runJourney, type Journey } from "./journey";

/** More lines than one copy chunk (1000 rows), so the lines table moves in several. */
const LINES = 2500;

async function seeded(shard: ShardName, lineCount = LINES): Promise<Journey> {
  const journey = await runJourney(await newTenant({ shard }), { lineCount });
  // One stored Idempotency-Key answer, so that table moves too.
  const replayed = await callRoute(journey.operator, routes.putQuotaDefault, { body: { minimum: 10 }, headers: { "Idempotency-Key": "move-1" } });
  expectStatus(replayed, 200);
  return journey;
}

const noRows = (counts: Record<string, number>) => Object.values(counts).every((rows) => rows === 0);

async function directoryEntry(tenantId: string) {
  return env.CONTROL.prepare("select shard, state, moving_to as movingTo from tenant_directory where tenant_id = ?")
    .bind(tenantId)
    .first<{ shard: string; state: string; movingTo: string | null }>();
}

/** The write and read calls the move tests make while a tenant is fenced. */
function writesOf(journey: Journey): (() => Promise<ApiResponse>)[] {
  const { operator, account, operationId, accountIds } = journey;
  return [
    () => callRoute(operator, routes.patchOperation, { params: { operationId }, body: { name: { en: "Renamed while moving" } } }),
    () => callRoute(operator, routes.createRule, { body: { supplierId: "SUP-MOVE", minimum: 1 } }),
    () => callRoute(operator, routes.putDirectory, { body: [{ accountId: accountIds[1], name: "Renamed" }] }),
    () => callRoute(operator, routes.createKey, { body: { role: "OPERATOR" } }),
    () =>
      callRoute(account, routes.createCart, {
        body: { operationId, accountId: accountIds[0], lines: [{ variantExternalId: "SKU-00001", quantity: 1, unitPrice: 100 }] },
      }),
  ];
}

describe("npm run tenant:move (moveTenant)", () => {
  it("moves a tenant whole: same answers on every read, its rows only on the new shard, neighbours untouched", async () => {
    const mover = await seeded("SHARD_1");
    const neighbourHere = await seeded("SHARD_1", 20);
    const neighbourThere = await seeded("SHARD_2", 20);
    const before = await apiView(mover);
    const lastBookmark = (await callRoute(mover.operator, routes.getOperation, { params: { operationId: mover.operationId } })).headers.get("x-d1-bookmark")!;
    expect(lastBookmark.startsWith("SHARD_1:")).toBe(true);
    const rowsBefore = await countTenantRows(env, "SHARD_1", mover.operator.tenantId);
    const neighbours = [
      await countTenantRows(env, "SHARD_1", neighbourHere.operator.tenantId),
      await countTenantRows(env, "SHARD_2", neighbourThere.operator.tenantId),
    ];

    const report = await moveTenant(env, mover.operator.tenantId, "SHARD_2", { drainMs: 0 });

    expect(report).toMatchObject({ from: "SHARD_1", to: "SHARD_2" });
    expect(Object.fromEntries(report.tables.map((table) => [table.table, table.rows]))).toEqual(rowsBefore);
    expect(rowsBefore.operation_lines).toBe(LINES);
    expect(report.deletedFromSource).toBe(Object.values(rowsBefore).reduce((sum, rows) => sum + rows, 0));
    expect(await directoryEntry(mover.operator.tenantId)).toEqual({ shard: "SHARD_2", state: "ACTIVE", movingTo: null });
    expect(await countTenantRows(env, "SHARD_2", mover.operator.tenantId)).toEqual(rowsBefore);
    expect(noRows(await countTenantRows(env, "SHARD_1", mover.operator.tenantId))).toBe(true);
    expect(await apiView(mover)).toEqual(before);
    // The client's last bookmark is the old shard's: still honoured (read on the new shard's primary).
    const afterMove = await callRoute(mover.operator, routes.getOperation, {
      params: { operationId: mover.operationId },
      headers: { "x-d1-bookmark": lastBookmark },
    });
    expect(afterMove.body).toEqual(before.operation);
    expect(afterMove.headers.get("x-d1-bookmark")!.startsWith("SHARD_2:")).toBe(true);
    expect([
      await countTenantRows(env, "SHARD_1", neighbourHere.operator.tenantId),
      await countTenantRows(env, "SHARD_2", neighbourThere.operator.tenantId),
    ]).toEqual(neighbours);

    // Writable again on its new shard; new events follow the moved ones in commit order.
    expectStatus(await writesOf(mover)[0](), 200);
    const events = (await apiView(mover)).events;
    expect(events.slice(0, before.events.length)).toEqual(before.events);
    expect(events).toHaveLength(before.events.length + 1);
    // The Idempotency-Key answer moved with it: a replay answers from the store, not again.
    const replay = await callRoute(mover.operator, routes.putQuotaDefault, { body: { minimum: 10 }, headers: { "Idempotency-Key": "move-1" } });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("while it moves, writes answer 503 tenant_moving with Retry-After and change nothing; reads keep answering", async () => {
    const mover = await seeded("SHARD_2", 1200);
    const before = await apiView(mover);
    const during: { status: number; code?: string; retryAfter: string | null }[] = [];
    let readsDuring: Awaited<ReturnType<typeof apiView>> | undefined;
    let fenceError = "";
    const afterChunk: MoveOptions["afterChunk"] = async (table) => {
      if (table !== "operation_lines" || readsDuring) return;
      readsDuring = await apiView(mover);
      for (const write of writesOf(mover)) {
        const answer = await write();
        during.push({ status: answer.status, code: problemCodeOf(answer), retryAfter: answer.headers.get("retry-after") });
      }
      const evaluated = await callRoute(mover.operator, routes.evaluateQuotas, {
        body: { orders: [{ accountId: mover.accountIds[0], supplierId: "SUP-1", storeId: null, amount: 500 }] },
      });
      expect(evaluated.status).toBe(200);
      // A write that reaches the old shard any other way is refused by the shard itself.
      try {
        await env.SHARD_2.prepare("update operations set code = 'HIJACKED' where tenant_id = ?").bind(mover.operator.tenantId).run();
      } catch (error) {
        fenceError = String(error);
      }
    };
    await moveTenant(env, mover.operator.tenantId, "SHARD_1", { drainMs: 0, afterChunk });

    expect(readsDuring).toEqual(before);
    expect(during).toEqual(writesOf(mover).map(() => ({ status: 503, code: "tenant_moving", retryAfter: "5" })));
    expect(fenceError).toContain("tenant_moving");
    expect(await apiView(mover)).toEqual(before);
  });

  it("a write routed by a stale placement to the old shard answers 503 tenant_moving (the shard's fence), through the Worker and the Durable Object", async () => {
    const tenant = await seeded("SHARD_1", 5);
    const spareKey = expectStatus(await callRoute(tenant.operator, routes.createKey, { body: { role: "OPERATOR" } }), 201);
    const before = await apiView(tenant);
    // What a Worker instance that has not yet read MOVING sees: the directory says ACTIVE, the shard is fenced.
    await env.SHARD_1.prepare("insert into tenant_fences (tenant_id, state, since) values (?, 'MOVING', ?)")
      .bind(tenant.operator.tenantId, new Date().toISOString())
      .run();
    try {
      // Keys live in the control database: a refused key change is taken back there too.
      const revoke = () => callRoute(tenant.operator, routes.revokeKey, { params: { keyId: spareKey.id } });
      for (const write of [...writesOf(tenant), revoke]) {
        const problem = expectProblem(await write(), 503, "tenant_moving");
        expect(problem.retryAfter).toBe(5);
      }
      expect(await apiView(tenant)).toEqual(before);
    } finally {
      await env.SHARD_1.prepare("delete from tenant_fences where tenant_id = ?").bind(tenant.operator.tenantId).run();
    }
    expectStatus(await writesOf(tenant)[0](), 200);
  });

  it("a move that fails half-way leaves the tenant on its old shard, whole and writable; running it again finishes it", async () => {
    const mover = await seeded("SHARD_1");
    const before = await apiView(mover);
    const rowsBefore = await countTenantRows(env, "SHARD_1", mover.operator.tenantId);
    const failing = moveTenant(env, mover.operator.tenantId, "SHARD_2", {
      drainMs: 0,
      afterChunk: (table, copied) => {
        if (table === "operation_lines" && copied >= 2000) throw new Error("injected: the copy stops here");
      },
    });
    await expect(failing).rejects.toThrow("injected");

    expect(await directoryEntry(mover.operator.tenantId)).toEqual({ shard: "SHARD_1", state: "ACTIVE", movingTo: null });
    expect(await countTenantRows(env, "SHARD_1", mover.operator.tenantId)).toEqual(rowsBefore);
    expect(noRows(await countTenantRows(env, "SHARD_2", mover.operator.tenantId))).toBe(true);
    expect(await apiView(mover)).toEqual(before);
    const fences = await env.SHARD_1.prepare("select count(*) as n from tenant_fences where tenant_id = ?")
      .bind(mover.operator.tenantId)
      .first<{ n: number }>();
    expect(fences!.n).toBe(0);

    await moveTenant(env, mover.operator.tenantId, "SHARD_2", { drainMs: 0 });
    expect(await shardOf(mover.operator.tenantId)).toBe("SHARD_2");
    expect(await apiView(mover)).toEqual(before);
  });

  it("moves a tenant back to a shard it left (the old fence there is lifted)", async () => {
    const mover = await seeded("SHARD_1", 30);
    const before = await apiView(mover);
    await moveTenant(env, mover.operator.tenantId, "SHARD_2", { drainMs: 0 });
    await moveTenant(env, mover.operator.tenantId, "SHARD_1", { drainMs: 0 });
    expect(await shardOf(mover.operator.tenantId)).toBe("SHARD_1");
    expect(await apiView(mover)).toEqual(before);
    expectStatus(await writesOf(mover)[1](), 201);
    // The fence left behind on SHARD_2 keeps refusing writes routed there by a stale placement.
    const left = await env.SHARD_2.prepare("select state from tenant_fences where tenant_id = ?").bind(mover.operator.tenantId).first<{ state: string }>();
    expect(left!.state).toBe("LEFT");
  });

  it("refuses an unknown tenant, an unknown shard, the shard it is on, and a second destination while a move is unfinished", async () => {
    const tenant: Caller = await newTenant({ shard: "SHARD_1" });
    await expect(moveTenant(env, "no-such-tenant", "SHARD_2")).rejects.toThrow(MoveRefused);
    await expect(moveTenant(env, tenant.tenantId, "SHARD_9" as ShardName)).rejects.toThrow(/not a shard/);
    await expect(moveTenant(env, tenant.tenantId, "SHARD_1")).rejects.toThrow(/already on SHARD_1/);
    await env.CONTROL.prepare("update tenant_directory set state = 'MOVING', moving_to = 'SHARD_3' where tenant_id = ?").bind(tenant.tenantId).run();
    await expect(moveTenant(env, tenant.tenantId, "SHARD_2")).rejects.toThrow(/being moved to SHARD_3/);
  });
});
