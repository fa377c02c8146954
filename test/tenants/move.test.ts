import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ShardName } from "../../src/platform/core/shards";
import { CHUNK_ROWS, countTenantRows, MOVE_PLANS } from "../../src/tenants/move";
import type { CatchUp } from "../../src/tenants/move-catch-up";
import { MOVE_PACE } from "../../src/tenants/move-pace";
import type { TenantMove } from "../../src/tenants/mover";
import { eventsOf, expectProblem, expectStatus, newTenant, type ApiResponse, type Caller, callRoute, uniqueId } from "../helpers/client";
import {
  dropOldCopy,
  holdMover,
  moveMarks,
  moveReaches,
  moveTenant,
  otherShard,
  patchStoredMove,
  readMove,
  startMove,
  stepMover,
  storedMove,
} from "../helpers/moves";
import { routes } from "../helpers/routes";
import { shardOf } from "../helpers/shards";
import { apiView, runJourney, type Journey } from "./journey";

/** Lines for three copy chunks (CHUNK_ROWS each), so the lines table moves in several. */
const LINES = 3 * CHUNK_ROWS;

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

/** A row of the copy changed behind the move's back (a trigger on the target alters it as it is written): what the check must catch. */
async function corruptingTarget(shard: ShardName, tenantId: string): Promise<() => Promise<void>> {
  const trigger = `test_corrupt_${uniqueId("t").replace(/[^A-Za-z0-9]/g, "_")}`;
  await env[shard]
    .prepare(
      `create trigger ${trigger} after insert on operation_lines when new.tenant_id = '${tenantId}' and new.variant_external_id = 'SKU-00600'
       begin update operation_lines set max_quantity = max_quantity + 1 where operation_id = new.operation_id and variant_external_id = new.variant_external_id; end`,
    )
    .run();
  return async () => {
    await env[shard].prepare(`drop trigger ${trigger}`).run();
  };
}

describe("what a move records of a tenant's writes (migrations/tenant/0019_move_capture.sql)", () => {
  it("every table a move copies records each insert, update and delete of a captured tenant by the key the move reads rows by", async () => {
    for (const shard of ["SHARD_1", "SHARD_2"] as const) {
      const { results } = await env[shard]
        .prepare("select name, sql from sqlite_master where type = 'trigger' and name like '%_capture_%'")
        .all<{ name: string; sql: string }>();
      const triggers = new Map(results.map((trigger) => [trigger.name, trigger.sql]));
      for (const plan of MOVE_PLANS) {
        for (const [event, row] of [
          ["insert", "NEW"],
          ["update", "NEW"],
          ["delete", "OLD"],
        ]) {
          const sql = triggers.get(`${plan.name}_capture_${event}`);
          expect(sql, `${shard}: ${plan.name}_capture_${event}`).toContain(`AFTER ${event.toUpperCase()} ON ${plan.name}`);
          expect(sql).toContain(`'${plan.name}', json_array(${plan.key.map((column) => `${row}.${column}`).join(", ")})`);
        }
      }
      expect(triggers.size).toBe(MOVE_PLANS.length * 3);
    }
  });
});

describe("moving a tenant (POST /v1/tenant/moves)", () => {
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

    const started = await startMove(mover.operator, "SHARD_2");
    expect(started).toMatchObject({ from: "SHARD_1", to: "SHARD_2", status: "PREPARING", reverseOf: null });
    const switched = await moveReaches(mover.operator, started.id, ["SWITCHED"]);
    // Counted and checksummed on both shards, table by table: every row of every table.
    expect(Object.fromEntries(switched.tables.map((table) => [table.table, table.rows]))).toEqual(rowsBefore);
    expect(switched.tables.every((table) => table.rows === 0 || /^[0-9a-f]{64}$/.test(table.sha256))).toBe(true);
    expect(rowsBefore.operation_lines).toBe(LINES);
    expect(switched.progress).toMatchObject({ rowsCopied: switched.progress.rowsEstimated, rowsVerified: switched.progress.rowsEstimated });
    expect(switched.fence.longestMs).toBeLessThanOrEqual(2_000);
    expect(await directoryEntry(mover.operator.tenantId)).toEqual({ shard: "SHARD_2", state: "ACTIVE", movingTo: null });
    // Until it is dropped, the old copy stays whole on the old shard, fenced; the new shard records writes (for the way back).
    expect(await countTenantRows(env, "SHARD_1", mover.operator.tenantId)).toEqual(rowsBefore);
    expect(await moveMarks("SHARD_1", mover.operator.tenantId)).toEqual({ fence: "LEFT", capturing: false, logged: 0 });
    expect(await moveMarks("SHARD_2", mover.operator.tenantId)).toMatchObject({ fence: null, capturing: true });

    const completed = await dropOldCopy(mover.operator, started.id);
    expect(completed.status).toBe("COMPLETED");
    expect(await countTenantRows(env, "SHARD_2", mover.operator.tenantId)).toEqual(rowsBefore);
    expect(noRows(await countTenantRows(env, "SHARD_1", mover.operator.tenantId))).toBe(true);
    expect(await moveMarks("SHARD_1", mover.operator.tenantId)).toEqual({ fence: "LEFT", capturing: false, logged: 0 });
    expect(await moveMarks("SHARD_2", mover.operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
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
    expect((await readMove(mover.operator, started.id)).status).toBe("COMPLETED");
  });

  it("a write reaching a fenced shard answers 503 tenant_moving with Retry-After: 1 and changes nothing, through the Worker and the Durable Object; reads keep answering", async () => {
    const tenant = await seeded("SHARD_1", 5);
    const spareKey = expectStatus(await callRoute(tenant.operator, routes.createKey, { body: { role: "OPERATOR" } }), 201);
    const before = await apiView(tenant);
    // What a cutover does, and what a write routed by a stale placement to the old shard meets after it: the shard's fence.
    await env.SHARD_1.prepare("insert into tenant_fences (tenant_id, state, since) values (?, 'MOVING', ?)")
      .bind(tenant.operator.tenantId, new Date().toISOString())
      .run();
    try {
      // Keys live in the control database: a refused key change is taken back there too.
      const revoke = () => callRoute(tenant.operator, routes.revokeKey, { params: { keyId: spareKey.id } });
      for (const write of [...writesOf(tenant), revoke]) {
        const answer = await write();
        const problem = expectProblem(answer, 503, "tenant_moving");
        expect(problem.retryAfter).toBe(1);
        expect(answer.headers.get("retry-after")).toBe("1");
      }
      expect(await apiView(tenant)).toEqual(before);
      // A write that reaches the shard any other way is refused by the shard itself.
      await expect(env.SHARD_1.prepare("update operations set code = 'HIJACKED' where tenant_id = ?").bind(tenant.operator.tenantId).run()).rejects.toThrow(
        "tenant_moving",
      );
    } finally {
      await env.SHARD_1.prepare("delete from tenant_fences where tenant_id = ?").bind(tenant.operator.tenantId).run();
    }
    expectStatus(await writesOf(tenant)[0](), 200);
  });

  it("a copy that differs from its source fails the move before the switch: the tenant stays whole and writable on its old shard; the same move then succeeds", async () => {
    const mover = await seeded("SHARD_1");
    const before = await apiView(mover);
    const rowsBefore = await countTenantRows(env, "SHARD_1", mover.operator.tenantId);
    const stopCorrupting = await corruptingTarget("SHARD_2", mover.operator.tenantId);
    let failed: TenantMove;
    try {
      failed = await moveReaches(mover.operator, (await startMove(mover.operator, "SHARD_2")).id, ["FAILED"]);
    } finally {
      await stopCorrupting();
    }
    expect(failed.error).toMatch(/^operation_lines \[".*","SKU-00600"\]: different values on the copy/);
    expect(failed.switchedAt).toBeNull();

    expect(await directoryEntry(mover.operator.tenantId)).toEqual({ shard: "SHARD_1", state: "ACTIVE", movingTo: null });
    expect(await countTenantRows(env, "SHARD_1", mover.operator.tenantId)).toEqual(rowsBefore);
    expect(noRows(await countTenantRows(env, "SHARD_2", mover.operator.tenantId))).toBe(true);
    expect(await moveMarks("SHARD_1", mover.operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
    expect(await moveMarks("SHARD_2", mover.operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
    expect(await apiView(mover)).toEqual(before);
    expectStatus(await writesOf(mover)[1](), 201);
    const after = await apiView(mover);

    await moveTenant(mover.operator, "SHARD_2");
    expect(await shardOf(mover.operator.tenantId)).toBe("SHARD_2");
    expect(await apiView(mover)).toEqual(after);
  });

  it("an abort before the switch leaves the tenant whole on its old shard, the copy deleted and the fence gone", async () => {
    const mover = await seeded("SHARD_2");
    const rowsBefore = await countTenantRows(env, "SHARD_2", mover.operator.tenantId);
    const started = await startMove(mover.operator, "SHARD_1");
    const aborting = expectStatus(await callRoute(mover.operator, routes.abortTenantMove, { params: { moveId: started.id } }), 202);
    expect(aborting.status).toBe("ABORTING");
    const aborted = await moveReaches(mover.operator, started.id, ["ABORTED"]);
    expect(aborted).toMatchObject({ error: null, switchedAt: null });
    expect(await directoryEntry(mover.operator.tenantId)).toEqual({ shard: "SHARD_2", state: "ACTIVE", movingTo: null });
    expect(await countTenantRows(env, "SHARD_2", mover.operator.tenantId)).toEqual(rowsBefore);
    expect(noRows(await countTenantRows(env, "SHARD_1", mover.operator.tenantId))).toBe(true);
    expect(await moveMarks("SHARD_2", mover.operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
    expect(await moveMarks("SHARD_1", mover.operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
    expectStatus(await writesOf(mover)[0](), 200);
    // An ended move cannot be aborted again, nor reversed; an unknown id is 404.
    expectProblem(await callRoute(mover.operator, routes.abortTenantMove, { params: { moveId: started.id } }), 409, "invalid_transition");
    expectProblem(await callRoute(mover.operator, routes.reverseTenantMove, { params: { moveId: started.id } }), 409, "invalid_transition");
    expectProblem(await callRoute(mover.operator, routes.getTenantMove, { params: { moveId: "mov_01M8AQNEGM8PJSNQ8KZVZH21Z1" } }), 404, "not_found");
  });

  it("a switched move is reversed with one call while its old copy is kept: only the writes made since are copied back", async () => {
    // A few lines: whatever the tenant's size, the move back copies no row (moving it whole is the first test's).
    const mover = await seeded("SHARD_1", 30);
    const forward = await moveReaches(mover.operator, (await startMove(mover.operator, "SHARD_2")).id, ["SWITCHED"]);
    expect(forward.keepSourceUntil).not.toBeNull();
    expectStatus(await writesOf(mover)[0](), 200);
    expectStatus(await writesOf(mover)[1](), 201);
    const onNewShard = await apiView(mover);
    // Reversible while SWITCHED; another move meanwhile is refused: the old copy is still there.
    expectProblem(await callRoute(mover.operator, routes.startTenantMove, { body: { to: "SHARD_1" } }), 409, "move_in_progress");
    const back = expectStatus(await callRoute(mover.operator, routes.reverseTenantMove, { params: { moveId: forward.id } }), 202);
    expect(back).toMatchObject({ from: "SHARD_2", to: "SHARD_1", reverseOf: forward.id });
    const returned = await moveReaches(mover.operator, back.id, ["SWITCHED"]);
    expect(returned.progress.rowsCopied).toBe(0);
    expect(returned.progress.changesApplied).toBeGreaterThan(0);
    expect(returned.fence.longestMs).toBeLessThanOrEqual(2_000);
    expect((await readMove(mover.operator, forward.id)).status).toBe("REVERSED");
    expect(await directoryEntry(mover.operator.tenantId)).toEqual({ shard: "SHARD_1", state: "ACTIVE", movingTo: null });
    expect(await apiView(mover)).toEqual(onNewShard);

    await dropOldCopy(mover.operator, back.id);
    expect(noRows(await countTenantRows(env, "SHARD_2", mover.operator.tenantId))).toBe(true);
    expect(await moveMarks("SHARD_2", mover.operator.tenantId)).toEqual({ fence: "LEFT", capturing: false, logged: 0 });
    expect(await moveMarks("SHARD_1", mover.operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
    expect(await apiView(mover)).toEqual(onNewShard);
    // The latest is the move back; the one it reversed is still there to read.
    expect(await readMove(mover.operator, "latest")).toMatchObject({ id: back.id, status: "COMPLETED" });
    expect(await readMove(mover.operator, forward.id)).toMatchObject({ status: "REVERSED" });
    // Its old copy dropped, the move back cannot be reversed.
    expectProblem(await callRoute(mover.operator, routes.reverseTenantMove, { params: { moveId: back.id } }), 409, "invalid_transition");
  });

  it("moves a tenant back to a shard it left (the old fence there is lifted)", async () => {
    const mover = await seeded("SHARD_1", 30);
    const before = await apiView(mover);
    await moveTenant(mover.operator, "SHARD_2");
    await moveTenant(mover.operator, "SHARD_1");
    expect(await shardOf(mover.operator.tenantId)).toBe("SHARD_1");
    expect(await apiView(mover)).toEqual(before);
    expectStatus(await writesOf(mover)[1](), 201);
    // The fence left behind on SHARD_2 keeps refusing writes routed there by a stale placement.
    expect(await moveMarks("SHARD_2", mover.operator.tenantId)).toEqual({ fence: "LEFT", capturing: false, logged: 0 });
  });

  it("refuses a shard the deployment does not have, the shard the tenant is on, and a second move while one is unfinished", async () => {
    const tenant: Caller = await newTenant({ shard: "SHARD_1" });
    const unknown = expectProblem(await callRoute(tenant, routes.startTenantMove, { body: { to: "SHARD_9" } }), 400, "validation_failed");
    expect(unknown.errors).toEqual([expect.objectContaining({ field: "body.to", code: "unknown_shard" })]);
    const badName = expectProblem(
      await callRoute(tenant, routes.startTenantMove, { body: { to: "shard-2", keepSourceMinutes: -1 } }),
      400,
      "validation_failed",
    );
    expect(badName.errors?.map((error) => error.field).sort()).toEqual(["body.keepSourceMinutes", "body.to"]);
    expectProblem(await callRoute(tenant, routes.startTenantMove, { body: { to: "SHARD_1" } }), 409, "invalid_transition");
    const first = await startMove(tenant, "SHARD_2");
    const second = expectProblem(await callRoute(tenant, routes.startTenantMove, { body: { to: "SHARD_2" } }), 409, "move_in_progress");
    expect(second.moveId).toBe(first.id);
    await moveReaches(tenant, first.id, ["SWITCHED"]);
    expect(await readMove(tenant, "latest")).toMatchObject({ id: first.id, status: "SWITCHED" });
  });
});

describe("a move's steps, one at a time (its alarm held)", () => {
  it("a cutover that died after fencing (a restart) lifts its fence and tries again, and the move switches", async () => {
    const mover = await seeded("SHARD_1", 30);
    const started = await startMove(mover.operator, "SHARD_2");
    await holdMover(mover.operator.tenantId);
    let move = await readMove(mover.operator, started.id);
    while (move.status !== "CATCHING_UP" || (await storedMove(mover.operator.tenantId))!.verifiedSeq === null) move = await stepMover(mover.operator.tenantId);
    // What a Worker restart in the middle of the cutover leaves: the status saved, the source fenced, no switch.
    await patchStoredMove(mover.operator.tenantId, { status: "SWITCHING", fencedAt: Date.now() });
    await env.SHARD_1.prepare("insert into tenant_fences (tenant_id, state, since) values (?, 'MOVING', ?)")
      .bind(mover.operator.tenantId, new Date().toISOString())
      .run();
    expectProblem(await writesOf(mover)[1](), 503, "tenant_moving");
    expect((await readMove(mover.operator, started.id)).status).toBe("SWITCHING");

    move = await stepMover(mover.operator.tenantId);
    expect(move.status).toBe("CATCHING_UP");
    expect(await moveMarks("SHARD_1", mover.operator.tenantId)).toMatchObject({ fence: null, capturing: true });
    expectStatus(await writesOf(mover)[1](), 201);
    while (move.status !== "SWITCHED") move = await stepMover(mover.operator.tenantId);
    expect(await shardOf(mover.operator.tenantId)).toBe("SHARD_2");
    expect((await apiView(mover)).rules).toEqual(
      expect.objectContaining({ items: expect.arrayContaining([expect.objectContaining({ supplierId: "SUP-MOVE" })]) }),
    );
  });

  it("a keyed write claimed before the switch and refused after it releases its key on the new shard: the client's retry runs, once", async () => {
    const op = await newTenant({ shard: "SHARD_1" });
    await readyToSwitch(op);
    const request = { body: { minimum: 77 }, headers: { "Idempotency-Key": uniqueId("switch") } };
    // The request claims its key on SHARD_1; the switch happens before its write, which the old shard's fence then refuses.
    const refused = await callRoute(op, routes.putQuotaDefault, { ...request, env: { SHARD_1: switchingAround(env.SHARD_1, op.tenantId, "before") } });
    expectProblem(refused, 503, "tenant_moving");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await shardOf(op.tenantId)).toBe("SHARD_2");

    const retried = await callRoute(op, routes.putQuotaDefault, request);
    expect(expectStatus(retried, 200)).toMatchObject({ minimum: 77 });
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    const replayed = await callRoute(op, routes.putQuotaDefault, request);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect((await eventsOf(op)).filter((event) => event.type === "quota_default.updated")).toHaveLength(1);
  });

  it("a keyed write committed just before the switch records its answer on the new shard: a replay answers it, and does not run again", async () => {
    const op = await newTenant({ shard: "SHARD_1" });
    await readyToSwitch(op);
    const request = { body: { minimum: 88 }, headers: { "Idempotency-Key": uniqueId("switch") } };
    // The write commits on SHARD_1 and is copied by the cutover; the answer is then recorded after the switch.
    const answered = await callRoute(op, routes.putQuotaDefault, { ...request, env: { SHARD_1: switchingAround(env.SHARD_1, op.tenantId, "after") } });
    expect(expectStatus(answered, 200)).toMatchObject({ minimum: 88 });
    expect(await shardOf(op.tenantId)).toBe("SHARD_2");
    const replayed = await callRoute(op, routes.putQuotaDefault, request);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(answered.body);
    expect((await eventsOf(op)).filter((event) => event.type === "quota_default.updated")).toHaveLength(1);
  });

  it("a catch-up that does not converge within its bound fails the move and leaves the tenant whole, unfenced", async () => {
    const mover = await seeded("SHARD_2", 30);
    const rowsBefore = await countTenantRows(env, "SHARD_2", mover.operator.tenantId);
    const started = await startMove(mover.operator, "SHARD_1");
    await holdMover(mover.operator.tenantId);
    let move = await readMove(mover.operator, started.id);
    while (move.status !== "CATCHING_UP") move = await stepMover(mover.operator.tenantId);
    const { catchUp } = (await storedMove(mover.operator.tenantId)) as { catchUp: CatchUp };
    expect(Date.now() - catchUp.start.at).toBeLessThan(10_000);
    // The next catch-up step, two minutes on, fails it (a check under way, started by a step that ran as the move was held, ends first).
    const pastTheBound = { now: () => catchUp.start.at + MOVE_PACE.convergeMs + 1 };
    for (let steps = 0; steps < 5 && move.status !== "ABORTING"; steps++) move = await stepMover(mover.operator.tenantId, pastTheBound);
    expect(move.status).toBe("ABORTING");
    while (move.status === "ABORTING") move = await stepMover(mover.operator.tenantId);
    expect(move).toMatchObject({ status: "FAILED", error: expect.stringContaining("did not converge within 120 s") });
    expect(await countTenantRows(env, "SHARD_2", mover.operator.tenantId)).toEqual(rowsBefore);
    expect(noRows(await countTenantRows(env, "SHARD_1", mover.operator.tenantId))).toBe(true);
    expect(await moveMarks("SHARD_2", mover.operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
    expectStatus(await writesOf(mover)[0](), 200);
  });
});

/** Starts a move and runs it (its alarm held) until its next step is the cutover. */
async function readyToSwitch(op: Caller) {
  const started = await startMove(op, otherShard("SHARD_1"));
  await holdMover(op.tenantId);
  let move = await readMove(op, started.id);
  while (move.status !== "CATCHING_UP" || (await storedMove(op.tenantId))!.verifiedSeq === null) move = await stepMover(op.tenantId);
}

/**
 * A shard binding for one request whose first batch (the request's write) meets the move's cutover: run
 * just before it (the write then reaches the old shard after the switch) or just after it commits.
 */
function switchingAround(binding: D1Database, tenantId: string, when: "before" | "after"): D1Database {
  let switched = false;
  const cutover = async () => {
    if (switched) return;
    switched = true;
    const move = await stepMover(tenantId);
    expect(move.status).toBe("SWITCHED");
  };
  const session = (inner: D1DatabaseSession) =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            if (when === "before") await cutover();
            const results = await target.batch(statements);
            if (when === "after") await cutover();
            return results;
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(binding, {
    get(target, prop) {
      if (prop === "withSession") return (...args: Parameters<D1Database["withSession"]>) => session(target.withSession(...args));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
