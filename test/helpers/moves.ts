// Tenant moves as tests drive them: through the API, and the tenant's move object (its alarm, its storage).
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, vi } from "vitest";
import type { ShardName } from "../../src/platform/core/shards";
import { shardNames } from "../../src/platform/core/shards";
import { MOVE_PACE, type MoveClocks } from "../../src/tenants/move-pace";
import type { MoveStatus, TenantMove } from "../../src/tenants/mover";
import { callRoute, expectStatus, type Caller } from "./client";
import { routes } from "./routes";

export const moverStub = (tenantId: string) => env.TENANT_MOVER.get(env.TENANT_MOVER.idFromName(tenantId));

/** The shard that is not `shard` (tests bind two). */
export const otherShard = (shard: ShardName): ShardName => shardNames(env).find((name) => name !== shard)!;

export async function startMove(op: Caller, to: ShardName, body: { keepSourceMinutes?: number } = {}): Promise<TenantMove> {
  return expectStatus(await callRoute(op, routes.startTenantMove, { body: { to, ...body } }), 202) as TenantMove;
}

export async function readMove(op: Caller, moveId: string): Promise<TenantMove> {
  return expectStatus(await callRoute(op, routes.getTenantMove, { params: { moveId } }), 200) as TenantMove;
}

/** Polls the move until its status is one of `statuses` (its alarm rings on its own). */
export function moveReaches(op: Caller, moveId: string, statuses: MoveStatus[], timeout = 30_000): Promise<TenantMove> {
  return vi.waitFor(
    async () => {
      const move = await readMove(op, moveId);
      expect(statuses, `move ${moveId}: ${move.status} ${move.error ?? ""}`).toContain(move.status);
      return move;
    },
    { timeout, interval: 50 },
  );
}

/**
 * One step of the move, run now by the test, with the clocks given (the calendar at a time of the test's
 * choosing, a pace that shows a loaded database); the object's alarm is then cleared, so the move stands
 * still until the next.
 */
export function stepMover(tenantId: string, clocks: Partial<MoveClocks> = {}): Promise<TenantMove> {
  return runInDurableObject(moverStub(tenantId), async (instance, state) => {
    // The step arms no alarm (one set for 25 ms later could ring before it is cleared, on a busy machine).
    const mover = instance as unknown as { ctx: DurableObjectState; clocks: MoveClocks; held: boolean; alarm(): Promise<void> };
    const storage = mover.ctx.storage;
    const setAlarm = storage.setAlarm;
    const systemClocks = mover.clocks;
    const held = mover.held;
    storage.setAlarm = async () => {};
    // A test that shows a loaded database by its pace shows it against the shipped chunk guard.
    mover.clocks = { ...systemClocks, ...(clocks.pace && { chunkMs: MOVE_PACE.chunkMs }), ...clocks };
    mover.held = false;
    try {
      await mover.alarm();
    } finally {
      storage.setAlarm = setAlarm;
      mover.clocks = systemClocks;
      mover.held = held;
    }
    await state.storage.deleteAlarm();
    return (await state.storage.get<TenantMove>("move"))!;
  });
}

/**
 * A pace clock on which every reading is `ms` later than the one before: each statement of the move
 * seems to take that long, as on a loaded database (at MOVE_PACE.stepMs, a step does the least it may).
 */
export function loadedPace(ms: number): () => number {
  let now = performance.now();
  return () => (now += ms);
}

/**
 * Stops the move where it stands: the test runs its steps (stepMover). The object runs this between
 * steps (a step holds its input gate), and an alarm already handed to it does nothing once held.
 */
export async function holdMover(tenantId: string): Promise<void> {
  await runInDurableObject(moverStub(tenantId), async (instance, state) => {
    (instance as unknown as { held: boolean }).held = true;
    await state.storage.deleteAlarm();
  });
}

/** Drops the old copy of a SWITCHED move now, as its alarm would once `keepSourceUntil` has come (the clock is moved there, not waited for). */
export async function dropOldCopy(op: Caller, moveId: string): Promise<TenantMove> {
  const switched = await moveReaches(op, moveId, ["SWITCHED", "DROPPING", "COMPLETED"]);
  if (switched.keepSourceUntil) {
    const clock = vi.spyOn(Date, "now").mockReturnValue(Date.parse(switched.keepSourceUntil) + 1);
    try {
      // The steps set their alarms by the moved clock too: each is run here, until the copy is gone.
      for (let ring = 0; ring < 50 && (await runDurableObjectAlarm(moverStub(op.tenantId))); ring++);
    } finally {
      clock.mockRestore();
    }
  }
  return moveReaches(op, moveId, ["COMPLETED"]);
}

/** Moves the tenant to `to` through the API, and drops the old copy at once: the move whole. */
export async function moveTenant(op: Caller, to: ShardName): Promise<TenantMove> {
  const started = await startMove(op, to);
  return dropOldCopy(op, started.id);
}

/** The move object's record as it keeps it (cursors and all), read inside it. */
export const storedMove = (tenantId: string) =>
  runInDurableObject(moverStub(tenantId), async (_instance, state) => (await state.storage.get<Record<string, unknown>>("move")) ?? null);

/** Overwrites fields of the move object's record: what a step that died half-way leaves saved. */
export const patchStoredMove = (tenantId: string, fields: Record<string, unknown>) =>
  runInDurableObject(moverStub(tenantId), async (_instance, state) => {
    await state.storage.put("move", { ...(await state.storage.get<Record<string, unknown>>("move")), ...fields });
  });

/** The move's marks on a shard: its fence, whether it records the tenant's writes, and how many entries it logged. */
export async function moveMarks(shard: ShardName, tenantId: string) {
  const db = env[shard];
  const fence = await db.prepare("select state from tenant_fences where tenant_id = ?").bind(tenantId).first<{ state: string }>();
  const capture = await db.prepare("select count(*) as n from move_captures where tenant_id = ?").bind(tenantId).first<{ n: number }>();
  const log = await db.prepare("select count(*) as n from move_changes where tenant_id = ?").bind(tenantId).first<{ n: number }>();
  return { fence: fence?.state ?? null, capturing: capture!.n > 0, logged: log!.n };
}

/** Starts a move whose object never arms its own alarm: it stands still from its start, and the test runs every step (stepMover). */
export async function startHeldMove(op: Caller, to: ShardName): Promise<TenantMove> {
  await runInDurableObject(moverStub(op.tenantId), (instance: unknown) => {
    (instance as { ctx: DurableObjectState }).ctx.storage.setAlarm = async () => {};
  });
  const started = await startMove(op, to);
  // Should the object have been made again meanwhile (its own alarm then armed), held the usual way too.
  await holdMover(op.tenantId);
  return started;
}
