// A move while writers and readers keep going through the Worker, as an operator's traffic would:
// nothing acknowledged is lost, no answer is a 5xx but the fence's 503 tenant_moving, the fence holds
// writes ≤ 2 s, and a write retried with its Idempotency-Key takes effect once.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { countTenantRows } from "../../src/tenants/move";
import { MOVE_PACE } from "../../src/tenants/move-pace";
import type { MoveStatus, TenantMove } from "../../src/tenants/mover";
import {
  type ApiResponse,
  type Caller,
  callRoute,
  collectPages,
  eventsOf,
  expectStatus,
  issueKey,
  newTenant,
  problemCodeOf,
  uniqueId,
} from "../helpers/client";
import { holdMover, loadedPace, moverStub, otherShard, patchStoredMove, readMove, startMove, stepMover, storedMove } from "../helpers/moves";
import { routes } from "../helpers/routes";
import { setUpOperation } from "../helpers/setup";
import { shardOf } from "../helpers/shards";
import { runJourney, type Journey } from "./journey";

/** Lines each write of the lines writer puts (each one a log entry for the move to catch up). */
const LOAD_LINES = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One step of the move that does one chunk: its pace clock runs fast (0.8 of a step's time per reading), so its time is up after the first. */
const stepMoverOneChunk = (tenantId: string) => stepMover(tenantId, { pace: loadedPace(MOVE_PACE.stepMs * 0.8) });

/** A request made again, as it was, until it is answered otherwise than by the fence. */
interface Write {
  send: () => Promise<ApiResponse>;
  status: number;
}

interface Traffic {
  /** Per writer, the i of each write acknowledged, with when (ms) and its answer. */
  acknowledged: Map<string, { i: number; at: number; body: unknown; during: MoveStatus | null }[]>;
  /** When each 503 tenant_moving was answered (a write, then retried after 50 ms). */
  fenced: { writer: string; at: number }[];
  /** Any other answer than the expected one or the fence's: each is a failure of the test. */
  unexpected: string[];
  /** 500s retried with the same Idempotency-Key, when the test resets the runtime's objects (requests in flight then fail). */
  retriedAfterReset: string[];
  /** Whether a 500 is retried (the runtime is being reset) rather than counted unexpected. */
  resetting: boolean;
  reads: number;
  /** Requests answered 429 (the key's budget): writes sent again, reads after the wait. */
  rateLimited: number;
}

const newTraffic = (resetting = false): Traffic => ({
  acknowledged: new Map(),
  fenced: [],
  unexpected: [],
  retriedAfterReset: [],
  resetting,
  reads: 0,
  rateLimited: 0,
});

/** Keeps writing (one request at a time, each with its own Idempotency-Key, retried on the fence's 503) until `stop`. */
async function keepWriting(name: string, traffic: Traffic, stop: () => boolean, status: () => MoveStatus | null, make: (i: number) => Write) {
  const acknowledged: { i: number; at: number; body: unknown; during: MoveStatus | null }[] = [];
  traffic.acknowledged.set(name, acknowledged);
  for (let i = 0; !stop(); i++) {
    const write = make(i);
    for (;;) {
      const answer = await write.send();
      if (answer.status === write.status) {
        acknowledged.push({ i, at: Date.now(), body: answer.body, during: status() });
        break;
      }
      if (answer.status === 503 && problemCodeOf(answer) === "tenant_moving" && answer.headers.get("retry-after") === "1") {
        traffic.fenced.push({ writer: name, at: Date.now() });
        await sleep(50);
        continue;
      }
      if (answer.status === 429) {
        // The key's write budget (600 a minute) spent by a long move's traffic: a client waits as told, then sends the same request.
        traffic.rateLimited++;
        await sleep(Math.min(Number(answer.headers.get("retry-after") ?? 1), 5) * 1_000);
        continue;
      }
      if (answer.status === 500 && traffic.resetting) {
        traffic.retriedAfterReset.push(`${name} #${i}`);
        await sleep(50);
        continue;
      }
      traffic.unexpected.push(`${name} #${i}: ${answer.status} ${answer.text.slice(0, 300)}`);
      break;
    }
    // Each writer about 6 a second, five of them: traffic all through the move, not a flood that slows it.
    await sleep(150);
  }
}

async function keepReading(traffic: Traffic, stop: () => boolean, reads: (() => Promise<ApiResponse>)[]) {
  while (!stop()) {
    for (const read of reads) {
      const answer = await read();
      traffic.reads++;
      if (answer.status === 429) {
        // The key's read budget (1200 a minute) spent over a long move: a client waits as told.
        traffic.rateLimited++;
        await sleep(Math.min(Number(answer.headers.get("retry-after") ?? 1), 5) * 1_000);
      } else if (answer.status !== 200 && !(answer.status === 500 && traffic.resetting)) {
        traffic.unexpected.push(`read: ${answer.status} ${answer.text.slice(0, 300)}`);
      }
    }
    await sleep(120);
  }
}

/** The longest time writes were refused, as clients saw it: from a 503 to the next write acknowledged after it. */
function longestRefusal(traffic: Traffic): number {
  const acknowledgedAt = [...traffic.acknowledged.values()].flat().map((write) => write.at);
  let longest = 0;
  for (const { at } of traffic.fenced) {
    const fencedSince = Math.min(...traffic.fenced.filter((other) => other.at <= at && at - other.at < 5_000).map((other) => other.at));
    const resumed = Math.min(...acknowledgedAt.filter((ack) => ack > at));
    longest = Math.max(longest, resumed - fencedSince);
  }
  return longest;
}

interface Load {
  journey: Journey;
  writers: { operations: Caller; lines: Caller; rules: Caller; directory: Caller };
  reader: Caller;
  draftId: string;
}

/**
 * A tenant of over 3,000 rows, change records included (a DRAFT Operation of 1,000 lines beside the journey), and one key per
 * writer (each has its own write budget): a dozen chunks and more steps under traffic. Small, because the
 * traffic lasts as long as the move and shares the cores with it: on a loaded machine a bigger tenant made
 * each the longer (the moves bench takes the big tenants).
 */
async function loadedTenant(): Promise<Load> {
  const journey = await runJourney(await newTenant({ shard: "SHARD_1" }), { lineCount: 500 });
  const { operator } = journey;
  const draft = await setUpOperation(operator, { status: "DRAFT", lines: [] });
  const lines = Array.from({ length: 1000 }, (_, i) => ({ variantExternalId: `BULK-${String(i).padStart(5, "0")}`, minQuantity: 0, maxQuantity: 10 }));
  expectStatus(await callRoute(operator, routes.putLines, { params: { operationId: draft.id }, body: lines }), 200);
  const key = () => issueKey(operator.tenantId, "OPERATOR");
  // The readers' own key: their read budget spent, the test's own reads of the move (the journey's key) still answer.
  return {
    journey,
    writers: { operations: await key(), lines: await key(), rules: await key(), directory: await key() },
    reader: await key(),
    draftId: draft.id,
  };
}

/** Runs writers and readers on the tenant until `done` resolves (and a moment after, so writes land on the new shard too). */
async function underTraffic(load: Load, moveStatus: () => MoveStatus | null, done: Promise<unknown>, resetting = false): Promise<Traffic> {
  const { journey, writers, reader, draftId } = load;
  const traffic = newTraffic(resetting);
  let stopped = false;
  const stop = () => stopped;
  const keyed = (headers: Record<string, string> = {}) => ({ ...headers, "Idempotency-Key": uniqueId("load") });
  const running = Promise.all([
    keepWriting("operation name", traffic, stop, moveStatus, (i) => {
      const headers = keyed();
      return {
        send: () =>
          callRoute(writers.operations, routes.patchOperation, { params: { operationId: journey.operationId }, body: { name: { en: `name-${i}` } }, headers }),
        status: 200,
      };
    }),
    keepWriting("lines", traffic, stop, moveStatus, (i) => {
      const headers = keyed();
      const body = Array.from({ length: LOAD_LINES }, (_, n) => ({ variantExternalId: `LOAD-${n}`, minQuantity: 0, maxQuantity: 100 + i }));
      return { send: () => callRoute(writers.lines, routes.putLines, { params: { operationId: draftId }, body, headers }), status: 200 };
    }),
    keepWriting("rules", traffic, stop, moveStatus, (i) => {
      const headers = keyed();
      return { send: () => callRoute(writers.rules, routes.createRule, { body: { accountId: `ACC-LOAD-${i}`, minimum: i }, headers }), status: 201 };
    }),
    keepWriting("directory", traffic, stop, moveStatus, (i) => {
      const headers = keyed();
      return {
        send: () => callRoute(writers.directory, routes.putDirectory, { body: [{ accountId: `DIR-LOAD-${i}`, name: `Load ${i}` }], headers }),
        status: 200,
      };
    }),
    keepWriting("carts", traffic, stop, moveStatus, () => {
      const headers = keyed();
      const body = {
        operationId: journey.operationId,
        accountId: journey.accountIds[0],
        lines: [{ variantExternalId: "SKU-00001", quantity: 1, unitPrice: 100 }],
      };
      return { send: () => callRoute(journey.account, routes.createCart, { body, headers }), status: 201 };
    }),
    keepReading(traffic, stop, [
      () => callRoute(reader, routes.getOperation, { params: { operationId: journey.operationId } }),
      () => callRoute(reader, routes.listLines, { params: { operationId: draftId }, query: { limit: 200 } }),
      () => callRoute(reader, routes.listRules, { query: { limit: 50 } }),
      () =>
        callRoute(reader, routes.evaluateQuotas, {
          body: { orders: [{ accountId: journey.accountIds[0], supplierId: "SUP-1", storeId: null, amount: 500 }] },
        }),
    ]),
  ]);
  await done;
  await sleep(400);
  stopped = true;
  await running;
  return traffic;
}

/** Every acknowledged write is there, once: read back through the API (wherever the tenant now is). */
async function expectNothingLost(load: Load, traffic: Traffic) {
  const { journey, draftId } = load;
  const { operator } = journey;
  const acked = (writer: string) => traffic.acknowledged.get(writer)!;
  const last = (writer: string) => acked(writer)[acked(writer).length - 1].i;

  const operation = expectStatus(await callRoute(operator, routes.getOperation, { params: { operationId: journey.operationId } }), 200);
  expect(operation.name.en).toBe(`name-${last("operation name")}`);
  const lines = await collectPages(operator, routes.listLines, { params: { operationId: draftId }, query: { limit: 1000 } });
  expect(lines.items.filter((line) => line.variantExternalId.startsWith("LOAD-")).map((line) => line.maxQuantity)).toEqual(
    Array.from({ length: LOAD_LINES }, () => 100 + last("lines")),
  );
  const rules = (await collectPages(operator, routes.listRules, { query: { limit: 500 } })).items;
  const ruleIds = new Set(rules.map((rule) => rule.id));
  for (const { body } of acked("rules")) expect(ruleIds.has((body as { id: string }).id)).toBe(true);
  const accounts = new Set((await collectPages(operator, routes.listDirectory, { query: { limit: 500 } })).items.map((account) => account.accountId));
  for (const { i } of acked("directory")) expect(accounts.has(`DIR-LOAD-${i}`)).toBe(true);
  for (const { body } of acked("carts"))
    expectStatus(await callRoute(journey.account, routes.getCart, { params: { cartId: (body as { id: string }).id } }), 200);
  // Exactly once, retries included: one event per acknowledged write, in commit order.
  const events = await eventsOf(operator);
  expect(
    events.filter((event) => event.type === "rule.created" && acked("rules").some(({ body }) => (body as { id: string }).id === event.ruleId)),
  ).toHaveLength(acked("rules").length);
  expect(events.filter((event) => event.type === "cart.created")).toHaveLength(acked("carts").length + 1);
}

// A move paces itself (MOVE_PACE: it rests as long as it works): under traffic on a busy machine it takes a minute or more.
describe("a move under concurrent writers and readers, through the Worker", { timeout: 300_000 }, () => {
  it("copies while serving, fences writes ≤ 2 s at the switch, answers no 5xx but the fence's 503, and loses nothing acknowledged", async () => {
    const load = await loadedTenant();
    const { operator } = load.journey;
    const rowsAtStart = Object.values(await countTenantRows(env, "SHARD_1", operator.tenantId)).reduce((sum, rows) => sum + rows, 0);
    expect(rowsAtStart).toBeGreaterThan(3_000);
    let status: MoveStatus | null = null;
    const started = await startMove(operator, otherShard("SHARD_1"));
    const switched = (async () => {
      for (;;) {
        const move = await readMove(operator, started.id);
        status = move.status;
        if (["SWITCHED", "FAILED", "ABORTED"].includes(move.status)) return move;
        await sleep(200);
      }
    })();
    const traffic = await underTraffic(load, () => status, switched);
    const move = await switched;

    expect(traffic.unexpected).toEqual([]);
    expect(move.status, move.error ?? "").toBe("SWITCHED");
    expect(await shardOf(operator.tenantId)).toBe("SHARD_2");
    // Writes were acknowledged while the rows were being copied and checked, not only before and after.
    const during = new Set([...traffic.acknowledged.values()].flat().map((write) => write.during));
    expect(during).toContain("COPYING");
    expect(move.progress.changesApplied).toBeGreaterThan(0);
    expect(traffic.reads).toBeGreaterThan(20);
    // The fence: measured by the move, and as the clients saw it (a 503, then their next write acknowledged 50 ms after a retry).
    expect(move.fence.longestMs).toBeLessThanOrEqual(2_000);
    expect(longestRefusal(traffic)).toBeLessThanOrEqual(2_000 + 250);
    await expectNothingLost(load, traffic);
  });

  it("a restart in the middle of the copy (every Durable Object reset, the last steps' saves lost) does not stop the move: it resumes from where it last saved and ends whole", async () => {
    const load = await loadedTenant();
    const { operator } = load.journey;
    const started = await startMove(operator, otherShard("SHARD_1"));
    let status: MoveStatus | null = "PREPARING";
    let copiedAtRestart = 0;
    let copiedOnTargetAtRestart = 0;
    const done = (async (): Promise<TenantMove> => {
      await holdMover(operator.tenantId);
      // A few chunks in: the copy is partway through the lines.
      let saved = await storedMove(operator.tenantId);
      while ((saved!.status as MoveStatus) !== "COPYING" || (saved!.progress as TenantMove["progress"]).rowsCopied < 1_000) {
        await stepMoverOneChunk(operator.tenantId);
        saved = await storedMove(operator.tenantId);
      }
      // Two more chunks are written to the target, then the Worker dies before their steps' saves land.
      await stepMoverOneChunk(operator.tenantId);
      await stepMoverOneChunk(operator.tenantId);
      copiedOnTargetAtRestart = Object.values(await countTenantRows(env, "SHARD_2", operator.tenantId)).reduce((sum, rows) => sum + rows, 0);
      await patchStoredMove(operator.tenantId, saved!);
      copiedAtRestart = (saved!.progress as TenantMove["progress"]).rowsCopied;
      await runInDurableObject(moverStub(operator.tenantId), (_instance, state) => state.storage.setAlarm(Date.now()));
      await abortAllDurableObjects();
      for (;;) {
        const move = await readMove(operator, started.id);
        status = move.status;
        if (["SWITCHED", "FAILED", "ABORTED"].includes(move.status)) return move;
        await sleep(200);
      }
    })();
    const traffic = await underTraffic(load, () => status, done, true);
    const move = await done;

    expect(copiedAtRestart).toBeGreaterThan(0);
    expect(copiedOnTargetAtRestart).toBeGreaterThan(copiedAtRestart);
    expect(move.status, move.error ?? "").toBe("SWITCHED");
    // The chunks copied after the last save were copied again (the rows already there left as they were, then checked).
    expect(move.progress.rowsCopied).toBeGreaterThan(move.progress.rowsEstimated);
    // Requests in flight in an Operation's object when it was reset failed (500), and their clients retried them with the same key.
    expect(traffic.unexpected).toEqual([]);
    expect(await shardOf(operator.tenantId)).toBe("SHARD_2");
    await expectNothingLost(load, traffic);
    expect(move.tables.find((table) => table.table === "operation_lines")!.rows).toBeGreaterThanOrEqual(1_500);
  });
});
