// A move reads the tenant chunk by chunk while the tenant is served: each chunk must be one index
// range in copy order (a chunk that sorts every row of the tenant, or builds the list of all its change
// sets, gets slower as the tenant writes on during a long move, and every request behind it waits);
// its size follows its time; and the check of a table kept in commit order holds whatever rows of a
// chunk were changed meanwhile.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import {
  CHUNK_ROWS,
  compareChunk,
  LOG_ENTRIES_PER_DELETE,
  MOVE_PLANS,
  nextScope,
  pendingChanges,
  purgeChanges,
  readRows,
  readRowsStatement,
  stopCapture,
  type MovedRow,
  type PassCursor,
  type RowRange,
  type TablePlan,
} from "../../src/tenants/move";
import { callRoute, createOperation, expectStatus, newTenant } from "../helpers/client";
import type { ShardName } from "../../src/platform/core/shards";
import { holdMover, loadedPace, moveReaches, otherShard, patchStoredMove, startMove, stepMover, storedMove } from "../helpers/moves";
import { routes } from "../helpers/routes";
import { shardOf } from "../helpers/shards";
import type { CatchUp } from "../../src/tenants/move-catch-up";
import { clocksOf, MIN_CHUNK_ROWS, MOVE_PACE, nextChunkRows, restAfter } from "../../src/tenants/move-pace";
import { queryPlan, type PlanRow } from "../helpers/recording-db";

/** A scope of each kind, as nextScope gives them. */
function scopeOf(plan: TablePlan): string {
  if (plan.scope === "operation") return "op_plan";
  if (plan.scope === "change-set") return JSON.stringify(["t_plan", "chg_a", "chg_z"]);
  return "t_plan";
}

const cursor = (plan: TablePlan) => plan.order.map((column) => (column === "rowid" ? 1 : "x"));

const ranges = (plan: TablePlan): [string, RowRange][] => [
  ["first chunk", { after: null, limit: 250 }],
  ["next chunk", { after: cursor(plan), limit: 250 }],
  ["a check's stretch", { after: cursor(plan), upTo: cursor(plan) }],
];

/** What makes a chunk's cost grow with the tenant's size rather than the chunk's: a sort, a full scan (not of a subquery's own few rows), a list built by a subquery. */
const GROWS = /TEMP B-TREE|^SCAN (?!\(subquery-\d+\))|LIST SUBQUERY/;

async function planDetails(sql: string, values: unknown[]): Promise<string[]> {
  return (await queryPlan({ sql, params: values })).map((row: PlanRow) => row.detail.trim());
}

describe("EXPLAIN QUERY PLAN of a move's reads", () => {
  it("sees a sort and the list of every change set of a tenant", async () => {
    const sorted = await planDetails("select id from quota_rules where tenant_id = ? and id > ? order by id limit 250", ["t", "x"]);
    expect(sorted.filter((detail) => GROWS.test(detail))).toContainEqual(expect.stringMatching(/TEMP B-TREE/));
    const everySet = await planDetails(
      "select set_id from change_records where set_id in (select id from change_sets where tenant_id = ?) order by set_id, resource_type, action, resource_id limit 250",
      ["t"],
    );
    expect(everySet.join(" | ")).toMatch(/LIST SUBQUERY/);
    expect(everySet.join(" | ")).not.toMatch(/id>\? AND id<\?/);
  });

  it("reads every moved table one index range at a time: no sort, no scan, no list of all the tenant's change sets, no set read again from its start", async () => {
    const found: Record<string, string[]> = {};
    for (const plan of MOVE_PLANS) {
      for (const [name, range] of ranges(plan)) {
        const { sql, values } = readRowsStatement(plan, scopeOf(plan), range);
        const details = await planDetails(sql, values);
        const plain = details.join(" | ");
        let bad = details.filter((detail) => GROWS.test(detail));
        if (plan.scope === "change-set") {
          // A stretch of at most 250 sets, found by one range of the tenant's index, each set searched by its key…
          expect(plain).toMatch(/SEARCH change_sets USING COVERING INDEX change_sets_tenant \(tenant_id=\? AND id>\? AND id<\?\)/);
          if (range.after) {
            // …and the cursor's own set from the cursor on, not from its first record; the two parts merged (2 × limit rows at most).
            expect(plain).toMatch(/SEARCH change_records USING PRIMARY KEY \(set_id=\? AND \(resource_type,action,resource_id\)>\(\?,\?,\?\)\)/);
            expect(plain).toMatch(/COMPOUND QUERY/);
          }
          bad = bad.filter((detail) => !/LIST SUBQUERY/.test(detail) && !(range.after && detail === "USE TEMP B-TREE FOR ORDER BY"));
        }
        if (bad.length) found[`${plan.name} (${name})`] = bad;
      }
    }
    expect(found).toEqual({});
  });
});

describe("a move's chunks sized by their time", () => {
  it("halves a chunk whose work took the pace's chunk time or longer, down to the fewest rows, and doubles it back under half of it, up to CHUNK_ROWS", () => {
    const slow = MOVE_PACE.chunkMs;
    const sizes = [CHUNK_ROWS];
    for (let i = 0; i < 6; i++) sizes.push(nextChunkRows(sizes.at(-1)!, slow * 3, slow));
    expect(sizes).toEqual([250, 125, 62, 31, MIN_CHUNK_ROWS, MIN_CHUNK_ROWS, MIN_CHUNK_ROWS]);
    // Between half the chunk time and the chunk time: it stays.
    expect(nextChunkRows(62, slow * 0.75, slow)).toBe(62);
    const back = [MIN_CHUNK_ROWS];
    for (let i = 0; i < 5; i++) back.push(nextChunkRows(back.at(-1)!, 1, slow));
    expect(back).toEqual([25, 50, 100, 200, 250, 250]);
  });

  it("halves from the deployment's MOVE_CHUNK_MS (10–10,000 ms), else from the shipped guard", () => {
    expect(clocksOf({}).chunkMs).toBe(MOVE_PACE.chunkMs);
    expect(clocksOf({ MOVE_CHUNK_MS: "1000" }).chunkMs).toBe(1000);
    for (const wrong of ["", "slow", "9", "10001", "NaN"]) expect(clocksOf({ MOVE_CHUNK_MS: wrong }).chunkMs).toBe(MOVE_PACE.chunkMs);
    expect(nextChunkRows(200, MOVE_PACE.chunkMs * 3, 1000)).toBe(250);
    expect(nextChunkRows(200, 1000, 1000)).toBe(100);
  });
});

describe("a move's rest after its work", () => {
  it("is the deployment's MOVE_REST_PER_WORK times the work (the default when unset or out of 0–10), never over a step", async () => {
    expect(clocksOf({}).restPerWork).toBe(MOVE_PACE.restPerWork);
    expect(clocksOf({ MOVE_REST_PER_WORK: "0.25" }).restPerWork).toBe(0.25);
    expect(clocksOf({ MOVE_REST_PER_WORK: "0" }).restPerWork).toBe(0);
    for (const wrong of ["", "fast", "-1", "11", "Infinity"]) expect(clocksOf({ MOVE_REST_PER_WORK: wrong }).restPerWork).toBe(MOVE_PACE.restPerWork);
    // The rest as the move's timer is asked for it: 40 ms of work, at 0.5 and at the default (a step at most).
    const waits: number[] = [];
    const timer = vi.spyOn(globalThis, "setTimeout").mockImplementation(((resolve: () => void, ms: number) => {
      waits.push(ms);
      resolve();
      return 0;
    }) as unknown as typeof setTimeout);
    try {
      const worked = (restPerWork: number) => ({ now: () => 0, pace: () => 40, restPerWork, chunkMs: MOVE_PACE.chunkMs });
      await restAfter(worked(0.5), 0);
      await restAfter(worked(MOVE_PACE.restPerWork), 0);
      await restAfter(worked(10), 0);
    } finally {
      timer.mockRestore();
    }
    expect(waits).toEqual([20, 40 * MOVE_PACE.restPerWork, MOVE_PACE.stepMs]);
  });
});

describe("the check of a table kept in commit order (events)", () => {
  it("holds when every row of a chunk was changed since the last catch-up, and the next catch-up brings them back", async () => {
    const { from, to, plan, scope, keys } = await switchedEventsOnTwoShards();
    const limit = 25;
    // The first chunk's rows all changed after the last catch-up; by the next chunk a catch-up has applied them.
    let looks = 0;
    const pending = async () => (looks++ === 0 ? new Set(keys.slice(0, limit)) : new Set<string>());
    // Every row checked, once and in order: the first chunk's with the next, once the catch-up had brought them back.
    expect(await comparedInChunks(from, to, plan, scope, limit, pending)).toEqual(keys);
    expect(keys.length).toBeGreaterThan(2 * limit);
  });

  it("holds when the last rows of a chunk were changed since the last catch-up, applied before the next chunk: both sides' stretches end at the last row compared", async () => {
    const { from, to, plan, scope, keys } = await switchedEventsOnTwoShards();
    const limit = 25;
    // The first chunk's last two rows changed after the last catch-up; a catch-up applies them before the next chunk.
    let looks = 0;
    const pending = async () => (looks++ === 0 ? new Set(keys.slice(limit - 2, limit)) : new Set<string>());
    // Every row checked once and in order: the two left out of the first chunk with the next.
    expect(await comparedInChunks(from, to, plan, scope, limit, pending)).toEqual(keys);
  });
});

/** Checks a scope chunk by chunk, as a pass does; answers the keys of the rows compared, in the order compared. */
async function comparedInChunks(from: ShardName, to: ShardName, plan: TablePlan, scope: string, limit: number, pending: () => Promise<Set<string>>) {
  let cursor: PassCursor = { after: null, targetAfter: null };
  const compared: string[] = [];
  for (let chunks = 0; chunks < 100; chunks++) {
    const chunk = await compareChunk(env[from], env[to], plan, scope, cursor, limit, pending);
    compared.push(...chunk.compared.map((row) => row.key));
    cursor = chunk.cursor;
    if (chunk.done) return compared;
  }
  throw new Error("the pass did not end");
}

/** A tenant with events in commit order on two shards (a switched move keeps its old copy): the events plan, its scope, and the keys in order. */
async function switchedEventsOnTwoShards() {
  const op = await newTenant();
  for (let i = 0; i < 60; i++) expectStatus(await callRoute(op, routes.createRule, { body: { accountId: `ACC-${i}`, minimum: i } }), 201);
  const from = await shardOf(op.tenantId);
  const move = await startMove(op, otherShard(from));
  await moveReaches(op, move.id, ["SWITCHED"]);
  const plan = MOVE_PLANS.find((table) => table.name === "events")!;
  const scope = (await nextScope(env[from], plan, op.tenantId, null))!;
  const { results } = await env[from]
    .prepare("select json_array(id) as key from events where tenant_id = ? order by rowid")
    .bind(op.tenantId)
    .all<{ key: string }>();
  return { from, to: move.to, plan, scope, keys: results.map((row) => row.key) };
}

describe("the change records' read, chunk by chunk", () => {
  it("reads every record of the tenant once, in key order, whatever the chunk's size and wherever a chunk ends (inside a set or at its end)", async () => {
    const op = await newTenant();
    for (let n = 0; n < 3; n++) {
      const operation = await createOperation(op);
      const lines = Array.from({ length: 40 + n }, (_, i) => ({ variantExternalId: `SKU-${i}`, minQuantity: 0, maxQuantity: 5 }));
      expectStatus(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: lines }), 200);
      expectStatus(await callRoute(op, routes.createRule, { body: { accountId: `ACC-${n}`, minimum: n } }), 201);
    }
    const db = env[await shardOf(op.tenantId)];
    const plan = MOVE_PLANS.find((table) => table.scope === "change-set")!;
    const all = (
      await db
        .prepare(
          "select json_array(set_id, resource_type, action, resource_id) as key from change_records where set_id in (select id from change_sets where tenant_id = ?) order by set_id, resource_type, action, resource_id",
        )
        .bind(op.tenantId)
        .all<{ key: string }>()
    ).results.map((row) => row.key);
    expect(all.length).toBeGreaterThan(120);
    for (const limit of [7, 40, 250]) {
      const read: MovedRow[] = [];
      for (let scope = await nextScope(db, plan, op.tenantId, null); scope !== null; scope = await nextScope(db, plan, op.tenantId, scope)) {
        let after: unknown[] | null = null;
        for (;;) {
          const rows = await readRows(db, plan, scope, { after, limit });
          read.push(...rows);
          if (rows.length < limit) break;
          after = JSON.parse(rows[rows.length - 1].cursor) as unknown[];
          // A check's stretch: the rows after a cursor up to another, as the copy read them.
          const upTo = rows[Math.floor(rows.length / 2)];
          const stretch = await readRows(db, plan, scope, { after: JSON.parse(rows[0].cursor) as unknown[], upTo: JSON.parse(upTo.cursor) as unknown[] });
          expect(stretch.map((row) => row.key)).toEqual(rows.slice(1, Math.floor(rows.length / 2) + 1).map((row) => row.key));
        }
      }
      expect(read.map((row) => row.key)).toEqual(all);
    }
    // A set written after the last stretch (fewer than 250 sets) is left to the move's change log: a
    // pass that followed each new set would chase the tenant's writes for as long as they go on.
    let lastStretch: string | null = null;
    for (let scope = await nextScope(db, plan, op.tenantId, null); scope !== null; scope = await nextScope(db, plan, op.tenantId, scope)) lastStretch = scope;
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "ACC-AFTER", minimum: 1 } }), 201);
    expect(await nextScope(db, plan, op.tenantId, lastStretch)).toBeNull();
  });
});

describe("a step of the check while the tenant writes", () => {
  it("checks at least one chunk even when catching up took the whole step", async () => {
    const op = await newTenant();
    for (let i = 0; i < 30; i++) expectStatus(await callRoute(op, routes.createRule, { body: { accountId: `ACC-${i}`, minimum: i } }), 201);
    const from = await shardOf(op.tenantId);
    await startMove(op, otherShard(from));
    await holdMover(op.tenantId);
    for (let steps = 0; (await storedMove(op.tenantId))!.status !== "VERIFYING"; steps++) {
      expect(steps).toBeLessThan(200);
      await stepMover(op.tenantId);
    }
    const before = (await storedMove(op.tenantId))!.progress as { rowsVerified: number };
    // A write since the last catch-up, and a clock that runs 80 ms at each reading: catching up fills the step.
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "ACC-LATE", minimum: 1 } }), 201);
    await stepMover(op.tenantId, { pace: loadedPace(MOVE_PACE.stepMs * 0.8) });
    const after = (await storedMove(op.tenantId))!.progress as { rowsVerified: number; changesApplied: number };
    expect(after.changesApplied).toBeGreaterThan(0);
    expect(after.rowsVerified).toBeGreaterThan(before.rowsVerified);
  });
});

describe("the recheck of the rows changed during the check", () => {
  /** A move held at the end of its check, with more rows changed during it than the fence may check. */
  async function atTheEndOfTheCheck() {
    const op = await newTenant();
    for (let i = 0; i < 10; i++) expectStatus(await callRoute(op, routes.createRule, { body: { accountId: `ACC-${i}`, minimum: i } }), 201);
    const from = await shardOf(op.tenantId);
    await startMove(op, otherShard(from));
    await holdMover(op.tenantId);
    const stored = async () => (await storedMove(op.tenantId)) as { status: string; verifiedSeq: number | null; catchUp: CatchUp | null; error?: string };
    for (let steps = 0; (await stored()).status !== "VERIFYING"; steps++) {
      expect(steps).toBeLessThan(200);
      await stepMover(op.tenantId);
    }
    // Written while the check runs: more changed rows than the fence may check.
    const body = Array.from({ length: 1_500 }, (_, i) => ({ accountId: `ACC-LATE-${i}`, minimum: i }));
    expectStatus(await callRoute(op, routes.upsertRules, { body }), 200);
    for (let steps = 0; (await stored()).status === "VERIFYING"; steps++) {
      expect(steps).toBeLessThan(400);
      await stepMover(op.tenantId);
    }
    return { op, from, stored };
  }

  it("goes a slice of the log a step (never all of them at once), then lets the fence in", async () => {
    const { op, from, stored } = await atTheEndOfTheCheck();
    const passEnded = await stored();
    // A pace clock that runs a whole step at each reading: the step does the least it may.
    await stepMover(op.tenantId, { pace: loadedPace(MOVE_PACE.stepMs) });
    const oneStep = await stored();
    expect(oneStep.status).toBe("CATCHING_UP");
    expect(oneStep.catchUp).toMatchObject({ rounds: 1 });
    expect(oneStep.catchUp!.roundUpTo).toBeGreaterThan(passEnded.verifiedSeq!);
    expect(oneStep.verifiedSeq).toBeGreaterThan(passEnded.verifiedSeq!);
    expect(oneStep.verifiedSeq).toBeLessThan(oneStep.catchUp!.roundUpTo!);
    for (let steps = 0; (await stored()).status !== "SWITCHED"; steps++) {
      expect(steps).toBeLessThan(400);
      await stepMover(op.tenantId);
    }
    const rules = await env[otherShard(from)].prepare("select count(*) as n from quota_rules where tenant_id = ?").bind(op.tenantId).first<{ n: number }>();
    expect(rules?.n).toBe(1_510);
  });
  it("fails the move, the tenant whole on its source, after the last round when the fence cannot take what waits", async () => {
    const { op, from, stored } = await atTheEndOfTheCheck();
    // Every round run, and a fence that took little before it ran out of time (an object far from its databases).
    const { catchUp } = await stored();
    await patchStoredMove(op.tenantId, { catchUp: { ...catchUp!, rounds: MOVE_PACE.recheckRounds, fenceEntries: 100 } });
    for (let steps = 0; !["FAILED", "ABORTED"].includes((await stored()).status); steps++) {
      expect(steps).toBeLessThan(50);
      await stepMover(op.tenantId);
    }
    expect(await stored()).toMatchObject({
      status: "FAILED",
      error: expect.stringMatching(
        /^10 rounds of rechecking .* did not catch up: [\d,]+ log entries wait \(0 to apply, [\d,]+ to check\) after 10 rounds.*a fence takes 100 at most$/,
      ),
    });
    expect(await shardOf(op.tenantId)).toBe(from);
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "ACC-AFTER", minimum: 1 } }), 201);
  });
});

describe("the change log of a move", () => {
  /** Logs `count` entries for a tenant, as the capture triggers would; answers the first entry's seq. */
  async function logEntries(tenantId: string, count: number): Promise<number> {
    await env.SHARD_1.prepare(
      "with recursive n(i) as (select 1 union all select i + 1 from n where i < ?) insert into move_changes (tenant_id, table_name, row_key) select ?, 'rules', json_array(?, 'r' || i) from n",
    )
      .bind(count, tenantId, tenantId)
      .run();
    const first = await env.SHARD_1.prepare("select min(seq) as seq from move_changes where tenant_id = ?").bind(tenantId).first<{ seq: number }>();
    return first!.seq;
  }
  const left = async (tenantId: string) =>
    (await env.SHARD_1.prepare("select count(*) as n, min(seq) as first from move_changes where tenant_id = ?")
      .bind(tenantId)
      .first<{ n: number; first: number }>())!;

  it("is purged a short statement at a time, oldest first, never past what may go", async () => {
    const tenantId = `t_purge_${crypto.randomUUID()}`;
    const first = await logEntries(tenantId, 5_000);
    const upTo = first + 3_999;
    expect(await purgeChanges(env.SHARD_1, tenantId, upTo)).toBe(LOG_ENTRIES_PER_DELETE);
    expect(await left(tenantId)).toEqual({ n: 5_000 - LOG_ENTRIES_PER_DELETE, first: first + LOG_ENTRIES_PER_DELETE });
    expect(await purgeChanges(env.SHARD_1, tenantId, upTo)).toBe(4_000 - LOG_ENTRIES_PER_DELETE);
    expect(await purgeChanges(env.SHARD_1, tenantId, upTo)).toBe(0);
    expect(await left(tenantId)).toEqual({ n: 1_000, first: first + 4_000 });
    // Whether few enough wait is all the catch-up asks: the count stops there.
    expect(await pendingChanges(env.SHARD_1, tenantId, first, 300)).toBe(300);
    expect(await pendingChanges(env.SHARD_1, tenantId, first + 4_899, 300)).toBe(100);
    // Stopping the capture forgets the whole log, however long, in the same short statements.
    await logEntries(tenantId, 3 * LOG_ENTRIES_PER_DELETE);
    await stopCapture(env.SHARD_1, tenantId);
    expect((await left(tenantId)).n).toBe(0);
  });
});
