// A move while the tenant keeps writing, driven one alarm step at a time with the tenant's writes in
// between: the move's calendar clock moves by a step's time at each step (so writes between steps are a
// rate), and its pace clock shows a loaded database (every statement seems to take 60 ms: a step does
// little, as when the tenant's requests queue beside it). The catch-up converges under the writes a busy
// tenant makes, holding them briefly in the fence when it must; under writes it cannot keep up with,
// it fails within its bound and says why; and the move's status shows counters that move all along.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ShardName } from "../../src/platform/core/shards";
import { countTenantRows } from "../../src/tenants/move";
import { MOVE_PACE } from "../../src/tenants/move-pace";
import type { TenantMove } from "../../src/tenants/mover";
import { type Caller, callRoute, collectPages, expectStatus, issueKey, newTenant } from "../helpers/client";
import { loadedPace, moveMarks, readMove, startHeldMove, stepMover } from "../helpers/moves";
import { routes } from "../helpers/routes";
import { setUpOperation } from "../helpers/setup";
import { shardOf } from "../helpers/shards";

/** A step's time on the move's calendar: its work, then the pause before the next. */
const STEP_MS = MOVE_PACE.stepMs + MOVE_PACE.pauseMs;

/**
 * The cutover of the converging moves below, a fifth of the shipped one (MOVE_PACE.cutoverBelow), with
 * tenants and bulk writes a fifth as big: the same catch-up in fewer steps (the shipped figures: 18 s).
 */
const CUTOVER = MOVE_PACE.cutoverBelow / 5;

/** A tenant on SHARD_1 with a DRAFT Operation of `lines` lines and `rules` rules, and a key per writer (each has its own write budget). */
async function busyTenant(lines: number, rules: number) {
  const operator = await newTenant({ shard: "SHARD_1" });
  const draft = await setUpOperation(operator, { status: "DRAFT", lines: linesOf(lines, 0) });
  if (rules) {
    const body = Array.from({ length: rules }, (_, i) => ({ accountId: `ACC-${i}`, minimum: i }));
    expectStatus(await callRoute(operator, routes.upsertRules, { body }), 200);
  }
  return { operator, draftId: draft.id, lineWriter: await issueKey(operator.tenantId, "OPERATOR"), ruleWriter: await issueKey(operator.tenantId, "OPERATOR") };
}
type BusyTenant = Awaited<ReturnType<typeof busyTenant>>;

const linesOf = (count: number, version: number) =>
  Array.from({ length: count }, (_, i) => ({ variantExternalId: `SKU-${String(i).padStart(5, "0")}`, minQuantity: 0, maxQuantity: 100 + version }));

/** The tenant's writes between two steps: `puts` PUTs changing every one of `lines` lines, and `rules` rules created. */
function writer(tenant: BusyTenant, { puts, lines, rules }: { puts: number; lines: number; rules: number }) {
  let version = 0;
  const createdRules: string[] = [];
  return {
    createdRules,
    version: () => version,
    async write() {
      for (let i = 0; i < Math.max(puts, rules); i++) {
        if (i < puts) {
          version++;
          const body = linesOf(lines, version);
          expectStatus(await callRoute(tenant.lineWriter, routes.putLines, { params: { operationId: tenant.draftId }, body }), 200);
        }
        if (i < rules) {
          const body = { accountId: `ACC-STEADY-${createdRules.length}`, minimum: createdRules.length };
          createdRules.push(expectStatus(await callRoute(tenant.ruleWriter, routes.createRule, { body }), 201).id);
        }
      }
    },
  };
}

/**
 * How the test runs each step: the writes before it, the time it moves the calendar on, the pace clock it
 * runs on (none: the real one), the cutover (none: the shipped one).
 */
interface Steps {
  write: (move: TenantMove) => Promise<void>;
  calendarMs: number;
  pace?: () => () => number;
  cutoverBelow?: number;
}

/** The move's calendar as the test moves it: it starts now, and each step moves it on. */
const newCalendar = () => ({ at: Date.now() });

/** Runs the move one step at a time until `until`; answers the move as the API showed it before the first step and after each. */
async function drive(op: Caller, moveId: string, calendar: { at: number }, steps: Steps, until: (move: TenantMove) => boolean, most = 400) {
  let move = await readMove(op, moveId);
  const seen = [move];
  for (let step = 0; !until(move); step++) {
    expect(step, `${move.status} ${move.error ?? ""} ${JSON.stringify(move.catchUp)}`).toBeLessThan(most);
    await steps.write(move);
    calendar.at += steps.calendarMs;
    const at = calendar.at;
    await stepMover(op.tenantId, { now: () => at, ...(steps.pace && { pace: steps.pace() }), ...(steps.cutoverBelow && { cutoverBelow: steps.cutoverBelow }) });
    move = await readMove(op, moveId);
    seen.push(move);
  }
  return seen;
}

const ended = (move: TenantMove) => ["SWITCHED", "ABORTING", "ABORTED", "FAILED"].includes(move.status);
const writeNothing = async () => {};

const rows = async (shard: ShardName, tenantId: string) => Object.values(await countTenantRows(env, shard, tenantId)).reduce((sum, n) => sum + n, 0);

/** Starts a held move and runs it at the real pace until its check of every row is done, with `rules` rules written in one go during the check. */
async function checkedWithABulkWrite(tenant: BusyTenant, rules: number, cutoverBelow?: number) {
  const started = await startHeldMove(tenant.operator, "SHARD_2");
  const calendar = newCalendar();
  let written = false;
  const bulkDuringTheCheck = async (move: TenantMove) => {
    if (move.status !== "VERIFYING" || written) return;
    written = true;
    const body = Array.from({ length: rules }, (_, i) => ({ accountId: `ACC-BULK-${i}`, minimum: i }));
    expectStatus(await callRoute(tenant.ruleWriter, routes.upsertRules, { body }), 200);
  };
  const steps = { write: bulkDuringTheCheck, calendarMs: STEP_MS, cutoverBelow };
  await drive(tenant.operator, started.id, calendar, steps, (move) => written && move.status === "CATCHING_UP");
  return { moveId: started.id, calendar };
}

/** The views of the catch-up after the check of every row, each step's; every counter moved from one to the next. */
function catchUpAfterTheCheck(seen: TenantMove[]): TenantMove[] {
  const catchingUp = seen.filter((shown) => shown.status === "CATCHING_UP" && shown.progress.rowsVerified > 0 && shown.catchUp);
  expect(catchingUp.length).toBeGreaterThan(3);
  for (const [before, after] of catchingUp.slice(0, -1).map((shown, i) => [shown, catchingUp[i + 1]] as const)) {
    expect(after.catchUp!.elapsedMs).toBe(before.catchUp!.elapsedMs + STEP_MS);
    expect(after.progress.changesApplied).toBeGreaterThan(before.progress.changesApplied);
    expect(after.progress.changesChecked).toBeGreaterThan(before.progress.changesChecked);
  }
  expect(catchingUp.at(-1)!.catchUp).toMatchObject({ convergeWithinMs: MOVE_PACE.convergeMs, roundsAtMost: MOVE_PACE.recheckRounds });
  return catchingUp;
}

/** Switched within the bound and the fence's budget; every acknowledged write is on the new shard. */
async function expectSwitchedWhole(tenant: BusyTenant, seen: TenantMove[], writes: ReturnType<typeof writer>) {
  const move = seen.at(-1)!;
  expect(move.status, move.error ?? "").toBe("SWITCHED");
  expect(await shardOf(tenant.operator.tenantId)).toBe("SHARD_2");
  expect(move.fence.longestMs).toBeLessThanOrEqual(MOVE_PACE.fenceBudgetMs);
  expect(move.catchUp!.elapsedMs).toBeLessThan(MOVE_PACE.convergeMs);
  const stored = new Set((await collectPages(tenant.operator, routes.listRules, { query: { limit: 500 } })).items.map((rule) => rule.id));
  expect(writes.createdRules.filter((id) => !stored.has(id))).toEqual([]);
  const lines = await collectPages(tenant.operator, routes.listLines, { params: { operationId: tenant.draftId }, query: { limit: 1000 } });
  expect(lines.items.filter((line) => line.variantExternalId < "SKU-00010").map((line) => line.maxQuantity)).toEqual(
    Array.from({ length: 10 }, () => 100 + writes.version()),
  );
}

describe("a move while the tenant writes steadily, one step at a time", { timeout: 300_000 }, () => {
  it("converges under 20 writes a second (10-line PUTs and rules) by catching up faster than they come: the fence takes the last few", async () => {
    const tenant = await busyTenant(400, 20);
    const writes = writer(tenant, { puts: 2, lines: 10, rules: 1 });
    const started = await startHeldMove(tenant.operator, "SHARD_2");
    // 3 writes between steps 150 ms apart: 20 a second, from the first step to the switch, on a database
    // loaded enough that each step does one piece of its work (every statement seems to take 40 ms).
    const steady = { write: () => writes.write(), calendarMs: STEP_MS, pace: () => loadedPace(40), cutoverBelow: CUTOVER };
    const seen = await drive(tenant.operator, started.id, newCalendar(), steady, ended);
    await expectSwitchedWhole(tenant, seen, writes);
    const catchingUp = catchUpAfterTheCheck(seen);
    const first = catchingUp[0].catchUp!;
    const last = catchingUp.at(-1)!.catchUp!;
    // More waited after the check than the fence takes at once; the rounds brought it under that, checking faster than the tenant wrote.
    expect(first.backlog.toApply + first.backlog.toCheck).toBeGreaterThanOrEqual(CUTOVER);
    expect(last.backlog.toApply + last.backlog.toCheck).toBeLessThan(CUTOVER);
    expect(last.rounds).toBeGreaterThanOrEqual(1);
    expect(last.perSecond!.written).toBeGreaterThan(100);
    expect(last.perSecond!.checked).toBeGreaterThan(last.perSecond!.written);
  });

  it("converges when the writes keep pace with the catch-up (a database so loaded that a step checks only what it applied): a round that does not halve what waits lets the fence take it", async () => {
    const tenant = await busyTenant(10, 20);
    const { moveId, calendar } = await checkedWithABulkWrite(tenant, 300, CUTOVER);
    const writes = writer(tenant, { puts: 2, lines: 10, rules: 1 });
    const loaded = { write: () => writes.write(), calendarMs: STEP_MS, pace: () => loadedPace(MOVE_PACE.chunkMs), cutoverBelow: CUTOVER };
    const seen = await drive(tenant.operator, moveId, calendar, loaded, ended);
    await expectSwitchedWhole(tenant, seen, writes);
    const last = catchUpAfterTheCheck(seen).at(-1)!;
    // The round kept pace with the writes and no more: the fence came with more waiting than it usually takes, once.
    expect(last.catchUp!.rounds).toBe(1);
    expect(last.catchUp!.backlog.toApply + last.catchUp!.backlog.toCheck).toBeGreaterThanOrEqual(CUTOVER);
    expect(last.catchUp!.perSecond!.checked).toBeGreaterThanOrEqual(last.catchUp!.perSecond!.written * 0.9);
    expect(seen.at(-1)!.fence.attempts).toBe(1);
  });

  it("fails within its bound, saying what waited and how fast each side went, under writes it cannot keep up with; the tenant stays whole on its shard", async () => {
    const tenant = await busyTenant(0, 30);
    const { operator } = tenant;
    const { moveId, calendar } = await checkedWithABulkWrite(tenant, 1_500);
    // Then a 5000-line PUT changing every line between steps 20 s apart (500 log entries a second), on a
    // database so loaded that a step applies one batch of log entries (2000) and checks as many.
    const writes = writer(tenant, { puts: 1, lines: 5_000, rules: 0 });
    const seen = await drive(
      operator,
      moveId,
      calendar,
      { write: () => writes.write(), calendarMs: 20_000, pace: () => loadedPace(MOVE_PACE.stepMs) },
      (move) => move.status !== "CATCHING_UP",
      20,
    );
    const failed = seen.at(-1)!;
    expect(failed.status).toBe("ABORTING");
    expect(failed.error).toMatch(
      /^the catch-up did not converge within 120 s: [\d,]+ log entries wait \([\d,]+ to apply, [\d,]+ to check\) after \d+ rounds; the tenant wrote [\d,]+ a second, the move applied [\d,]+ and checked [\d,]+ a second; a fence takes [\d,]+ at most$/,
    );
    // It failed at the first step past its bound, and said so as the last step before it showed.
    const catchingUp = seen.filter((shown) => shown.status === "CATCHING_UP");
    const lastShown = catchingUp.at(-1)!.catchUp!;
    expect(lastShown.elapsedMs).toBeLessThanOrEqual(MOVE_PACE.convergeMs);
    expect(lastShown.elapsedMs + 20_000).toBeGreaterThan(MOVE_PACE.convergeMs);
    expect(lastShown.rounds).toBeLessThan(MOVE_PACE.recheckRounds);
    expect(lastShown.perSecond!.written).toBeGreaterThan(lastShown.perSecond!.applied);
    expect(failed.error).toContain(`the tenant wrote ${lastShown.perSecond!.written.toLocaleString("en-US")} a second`);
    // What waited grew at every step, and the counters moved all along.
    for (const [before, after] of catchingUp.slice(0, -1).map((shown, i) => [shown, catchingUp[i + 1]] as const)) {
      const waiting = (move: TenantMove) => move.catchUp!.backlog.toApply + move.catchUp!.backlog.toCheck;
      expect(waiting(after)).toBeGreaterThan(waiting(before));
      expect(after.progress.changesApplied).toBeGreaterThan(before.progress.changesApplied);
      expect(after.catchUp!.elapsedMs).toBe(before.catchUp!.elapsedMs + 20_000);
    }

    // The abort: the tenant whole on SHARD_1, writable, its copy gone, nothing left recording.
    const aborted = (await drive(operator, moveId, calendar, { write: writeNothing, calendarMs: STEP_MS }, (move) => move.status !== "ABORTING")).at(-1)!;
    expect(aborted).toMatchObject({ status: "FAILED", error: failed.error });
    expect(await shardOf(operator.tenantId)).toBe("SHARD_1");
    expect(await rows("SHARD_2", operator.tenantId)).toBe(0);
    expect(await moveMarks("SHARD_1", operator.tenantId)).toEqual({ fence: null, capturing: false, logged: 0 });
    const lines = await collectPages(operator, routes.listLines, { params: { operationId: tenant.draftId }, query: { limit: 1000 } });
    expect(lines.items).toHaveLength(5_000);
    expect(new Set(lines.items.map((line) => line.maxQuantity))).toEqual(new Set([100 + writes.version()]));
    expectStatus(await callRoute(operator, routes.createRule, { body: { accountId: "ACC-AFTER", minimum: 1 } }), 201);
  });
});
