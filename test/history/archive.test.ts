import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { archiveHistory, objectKey, type ArchiveOptions } from "../../src/history/archive/job";
import { ARCHIVE_FORMAT, archiveFormatOf, compressLines, sha256Hex } from "../../src/history/archive/objects";
import { idAtTime } from "../../src/platform/core/ids";
import worker from "../../src/index";
import type { ShardName } from "../../src/platform/core/shards";
import {
  call,
  callRoute,
  collectPages,
  createOperation,
  expectProblem,
  expectStatus,
  issueKey,
  newTenant,
  withoutRequestId,
  type Caller,
} from "../helpers/client";
import { moveTenant } from "../helpers/moves";
import { routes } from "../helpers/routes";
import { ownLineFields, putAccounts } from "../helpers/setup";
import { shardOf, tenantDb } from "../helpers/shards";

/*
 * The archive tier: change sets past the hot window leave the shard for R2 (the local bucket here),
 * and every history read answers across the boundary exactly as before. The job runs as the cron
 * would, on one tenant, with its clock (or its boundary) moved instead of waiting 90 days.
 */

const archive = (op: Caller, options: ArchiveOptions = {}) => archiveHistory(env, { tenantId: op.tenantId, archiveBefore: Date.now() + 1, ...options });
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

/** What the shard and the bucket hold of the tenant's history. */
async function stored(op: Caller) {
  const db = await tenantDb(op.tenantId);
  const count = async (query: string) => (await db.prepare(query).bind(op.tenantId).first<{ n: number }>())!.n;
  const listed = await env.HISTORY_ARCHIVE.list({ prefix: `history/${op.tenantId}/` });
  return {
    sets: await count("select count(*) as n from change_sets where tenant_id = ?"),
    records: await count("select count(*) as n from change_records where set_id in (select id from change_sets where tenant_id = ?)"),
    indexed: await count("select count(*) as n from history_archive where tenant_id = ?"),
    archivedRecords: await count("select coalesce(sum(records), 0) as n from history_archive where tenant_id = ?"),
    objects: listed.objects.map((object) => object.key).sort(),
  };
}

const answerOf = async (response: Promise<{ status: number; body: unknown; text: string }>) => {
  const { status, body } = await response;
  return { status, body: status < 300 ? body : withoutRequestId(body) };
};

/** Every history read of the tenant and of `operations` at each of their versions: what must not change when records move. */
async function historyAnswers(op: Caller, operations: { id: string; versions: number[] }[]) {
  const answers: Record<string, unknown> = {
    history: (await collectPages(op, routes.listHistory, { query: { limit: "3" } })).items,
    historyOldestFirst: (await collectPages(op, routes.listHistory, { query: { limit: "4", sort: "at" } })).items,
    lineMaximums: (await collectPages(op, routes.listHistory, { query: { resourceType: "line", field: "maxQuantity", limit: "2" } })).items,
    rules: (await collectPages(op, routes.listHistory, { query: { resourceType: "rule" } })).items,
    byKey: (await collectPages(op, routes.listHistory, { query: { actorKeyId: op.keyId! } })).items,
    csv: (await call(op, "GET", "/v1/history", { headers: { accept: "text/csv" } })).text,
  };
  for (const { id, versions } of operations) {
    const params = { operationId: id };
    answers[`${id} history`] = (await collectPages(op, routes.listOperationHistory, { params, query: { limit: "2" } })).items;
    answers[`${id} history of A`] = (await collectPages(op, routes.listOperationHistory, { params, query: { variantExternalId: "A" } })).items;
    for (const version of versions) {
      const asOf = String(version);
      answers[`${id} v${version}`] = await answerOf(call(op, "GET", `/v1/operations/${id}/versions/${version}`));
      answers[`${id} v${version} lines`] = await answerOf(callRoute(op, routes.listLines, { params, query: { asOf, limit: "2" } }));
      answers[`${id} v${version} accounts`] = await answerOf(callRoute(op, routes.listAttachments, { params, query: { asOf } }));
      // Sorts, filters and diffs at every other version and the last: on both sides of any boundary.
      if (version % 2 === 0 && version !== versions.at(-1)) continue;
      answers[`${id} v${version} lines page 2`] = await answerOf(callRoute(op, routes.listLines, { params, query: { asOf, limit: "200" } }));
      answers[`${id} v${version} lines by max`] = await answerOf(callRoute(op, routes.listLines, { params, query: { asOf, sort: "-maxQuantity" } }));
      answers[`${id} v${version} lines B, D`] = await answerOf(callRoute(op, routes.listLines, { params, query: { asOf, variantIds: "B,D" } }));
      answers[`${id} v${version} diff to last`] = await answerOf(
        callRoute(op, routes.diffOperationVersions, { params, query: { from: asOf, to: String(versions.at(-1)), limit: "2" } }),
      );
      answers[`${id} v1 diff to v${version}`] = await answerOf(
        callRoute(op, routes.diffOperationVersions, { params, query: { from: String(versions[0]), to: asOf, limit: "1000" } }),
      );
    }
  }
  return answers;
}

const lineBody = (lines: [string, number][]) => lines.map(([variantExternalId, maxQuantity]) => ({ variantExternalId, minQuantity: 0, maxQuantity }));

/** A tenant with two Operations' histories (one deleted since) and rule records, half of them made before `split`. */
async function tenantWithHistory() {
  const op = await newTenant();
  await putAccounts(
    op,
    ["ACC-1", "ACC-2", "ACC-3"].map((accountId) => ({ accountId })),
  );
  const kept = await createOperation(op, { type: "PRIVATE" });
  const gone = await createOperation(op, { type: "PRIVATE" });
  const params = { operationId: kept.id };
  const edit = async (answer: Promise<{ status: number; text: string }>) => expect((await answer).status, (await answer).text).toBeLessThan(300);
  await edit(
    callRoute(op, routes.putLines, {
      params,
      body: lineBody([
        ["A", 10],
        ["B", 20],
        ["C", 30],
        ["D", 40],
      ]),
    }),
  );
  await edit(callRoute(op, routes.attachAccountsByPost, { params, body: ["ACC-1", "ACC-2"] }));
  await edit(callRoute(op, routes.putLines, { params: { operationId: gone.id }, body: lineBody([["A", 1]]) }));
  const rule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "ACC-1", minimum: 100 } }), 201);
  await edit(
    callRoute(op, routes.putLines, {
      params,
      body: lineBody([
        ["A", 5],
        ["E", 50],
      ]),
      headers: { "svc-change-reason": "Allocation cut" },
    }),
  );
  await pause();
  const split = Date.now();
  await pause();
  await edit(callRoute(op, routes.patchOperation, { params, body: { name: { en: "Renamed" } } }));
  await edit(callRoute(op, routes.deleteLines, { params, body: ["B"] }));
  await edit(callRoute(op, routes.detachAccounts, { params, body: ["ACC-1"] }));
  await edit(callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }));
  await edit(
    callRoute(op, routes.putLines, {
      params,
      body: lineBody([
        ["A", 7],
        ["F", 60],
      ]),
    }),
  );
  await edit(call(op, "DELETE", `/v1/operations/${gone.id}`));
  const last = expectStatus(await callRoute(op, routes.getOperation, { params }), 200).version;
  const versionsOf = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
  const operations = [
    { id: kept.id, versions: versionsOf(last) },
    { id: gone.id, versions: versionsOf(2) },
  ];
  return { op, kept, gone, rule, split, operations };
}

describe("the history archive", () => {
  it("moves records out of the shard and every history read (lists, CSV, versions, asOf, diff) answers as before, split across the boundary and wholly archived", async () => {
    const { op, split, operations } = await tenantWithHistory();
    const before = await historyAnswers(op, operations);
    const inShard = await stored(op);
    expect(inShard.indexed).toBe(0);

    // Half the history archived: each Operation's older versions in the bucket, its newer ones in the shard.
    const first = await archive(op, { archiveBefore: split });
    expect(first.failed).toBe(0);
    expect(first.objects).toBeGreaterThanOrEqual(3); // both Operations' and the tenant's other records (the rule, the accounts)
    const half = await stored(op);
    expect(half.records + half.archivedRecords).toBe(inShard.records);
    expect(half.records).toBeGreaterThan(0);
    expect(half.objects).toHaveLength(half.indexed);
    expect(await historyAnswers(op, operations)).toEqual(before);

    // The rest, and a run with nothing left to do.
    await archive(op);
    expect(await archive(op)).toMatchObject({ objects: 0, failed: 0 });
    const all = await stored(op);
    expect(all).toMatchObject({ sets: 0, records: 0, archivedRecords: inShard.records });
    expect(all.objects).toHaveLength(all.indexed);
    expect(await historyAnswers(op, operations)).toEqual(before);
    expect((before.history as unknown[]).length).toBe(inShard.records);
  });

  it("reverts to an archived version, restores a rule whose deletion is archived, and newer writes read alongside the archive", async () => {
    const { op, kept, rule, operations } = await tenantWithHistory();
    const params = { operationId: kept.id };
    const [keptVersions] = operations;
    const before = await historyAnswers(op, operations);
    await archive(op);

    // A new write lands in the shard; the archived versions still read the same, and the list puts it first.
    const edited = expectStatus(await callRoute(op, routes.putLines, { params, body: lineBody([["A", 9]]) }), 200);
    expect(edited.updated).toBe(1);
    const after = await historyAnswers(op, [{ id: kept.id, versions: keptVersions.versions }]);
    for (const version of keptVersions.versions) expect(after[`${kept.id} v${version} lines`]).toEqual(before[`${kept.id} v${version} lines`]);
    expect((after.history as unknown[]).slice(1)).toEqual(before.history);
    expect((after.history as unknown[])[0]).toMatchObject({ resourceId: "A", changes: [{ field: "maxQuantity", previous: 7, next: 9 }] });

    // Version 3: lines A–D, ACC-1 and ACC-2 attached, all of it archived now.
    const target = 3;
    const then = before[`${kept.id} v${target} lines page 2`] as { body: { items: unknown[] } };
    const reverted = expectStatus(await callRoute(op, routes.revertOperation, { params, body: { toVersion: target } }), 200);
    expect(reverted.reverted).toMatchObject({ linesRemoved: 2, accountsAttached: 1 });
    const linesNow = (await collectPages(op, routes.listLines, { params })).items;
    const withoutTimes = ownLineFields;
    expect(linesNow.map(withoutTimes)).toEqual(then.body.items.map((line) => withoutTimes(line as { updatedAt?: unknown })));
    const diff = expectStatus(await callRoute(op, routes.diffOperationVersions, { params, query: { from: String(target) } }), 200);
    expect(diff.items).toEqual([]);
    expect(diff.accounts).toEqual([]);

    // The rule's deletion is archived: restoring it still finds its last values.
    const restored = expectStatus(await callRoute(op, routes.restoreRule, { params: { ruleId: rule.id } }), 201);
    expect(restored).toMatchObject({ id: rule.id, accountId: "ACC-1", minimum: 100 });
  });

  it("says its format in each object, and reads objects of every format written so far (1: no format named, no key in headers)", async () => {
    const { op, operations } = await tenantWithHistory();
    await archive(op);
    const before = await historyAnswers(op, operations);
    const { objects } = await stored(op);
    expect(objects.length).toBeGreaterThan(0);
    for (const key of objects) {
      const object = (await env.HISTORY_ARCHIVE.get(key))!;
      expect(object.customMetadata?.format).toBe(String(ARCHIVE_FORMAT));
      // The same object as format 1 wrote it: no format in its metadata, its headers without `k`.
      const text = await new Response(object.body.pipeThrough(new DecompressionStream("gzip"))).text();
      const lines = text.split("\n").map((line) => (line.startsWith("{") ? JSON.stringify({ ...JSON.parse(line), k: undefined }) : line));
      const bytes = await compressLines([lines.join("\n")]);
      const { format: _format, ...older } = object.customMetadata!;
      await env.HISTORY_ARCHIVE.put(key, bytes, { sha256: await sha256Hex(bytes), customMetadata: older });
      await (await tenantDb(op.tenantId))
        .prepare("update history_archive set sha256 = ? where object_key = ?")
        .bind(await sha256Hex(bytes), key)
        .run();
    }
    const withoutKeys = JSON.parse(JSON.stringify(before, (name, value) => (name === "actorKeyId" ? undefined : value)).replaceAll(`,${op.keyId}`, ","));
    expect(await historyAnswers(op, operations)).toEqual(withoutKeys);
    expect(() => archiveFormatOf({ format: "99" }, "history/x")).toThrow(/format 99/);
  });

  it("never loses or repeats a record when a run stops between writing an object and deleting its sets, nor when two runs race", async () => {
    const { op, operations } = await tenantWithHistory();
    const before = await historyAnswers(op, operations);
    const inShard = await stored(op);

    // The process dies after the first object is written and checked, before its sets leave D1.
    const crashed = await archive(op, {
      afterObjectVerified: () => {
        throw new Error("crash after the object was written");
      },
    });
    expect(crashed).toMatchObject({ objects: 0, failed: 1 });
    const orphaned = await stored(op);
    expect(orphaned).toMatchObject({ sets: inShard.sets, records: inShard.records, indexed: 0 });
    expect(orphaned.objects).toHaveLength(1); // written, named by no index row: no read sees it
    expect(await historyAnswers(op, operations)).toEqual(before);

    // Two runs at once: the second finishes every object while the first waits to delete its first; the first's batch then changes nothing.
    let raced = 0;
    const racing = await archive(op, {
      afterObjectVerified: async () => {
        if (raced++ === 0) expect(await archive(op)).toMatchObject({ failed: 0 });
      },
    });
    expect(racing.failed).toBe(1);
    const done = await stored(op);
    expect(done).toMatchObject({ sets: 0, records: 0, archivedRecords: inShard.records });
    expect(done.objects).toHaveLength(done.indexed);
    expect(done.objects).toContain(orphaned.objects[0]); // written again under the same key, with the same bytes
    expect(await historyAnswers(op, operations)).toEqual(before);
  });

  it("the hourly cron archives sets older than 90 days, and a tenant move carries the archive's index", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.putLines, { params, body: lineBody([["A", 3]]) }), 200);
    // Made 91 days ago, as far as the ids and times say (the cron runs on the real clock).
    const db = await tenantDb(op.tenantId);
    const old = Date.now() - 91 * 86_400_000;
    const { results } = await db.prepare("select id from change_sets where tenant_id = ? order by id").bind(op.tenantId).all<{ id: string }>();
    const aged = results.map(({ id }) => `${idAtTime("chg", old)}${id.slice(14)}`);
    for (const [i, { id }] of results.entries()) {
      await db.batch([
        db.prepare("update change_sets set id = ?, at = ? where id = ?").bind(aged[i], new Date(old).toISOString(), id),
        db.prepare("update change_records set set_id = ? where set_id = ?").bind(aged[i], id),
      ]);
    }
    const before = await historyAnswers(op, [{ id: operation.id, versions: [1, 2] }]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    const archived = await stored(op);
    expect(archived).toMatchObject({ sets: 0, records: 0, indexed: 1, objects: [objectKey(op.tenantId, operation.id, [...aged].sort()[0])] });
    expect(await historyAnswers(op, [{ id: operation.id, versions: [1, 2] }])).toEqual(before);

    const from = await shardOf(op.tenantId);
    const to = (from === "SHARD_1" ? "SHARD_2" : "SHARD_1") as ShardName;
    await moveTenant(op, to);
    expect(await stored(op)).toMatchObject({ indexed: 1, objects: archived.objects });
    expect(await historyAnswers(op, [{ id: operation.id, versions: [1, 2] }])).toEqual(before);
  });

  it("leaves a set whose id carries no time in D1 and archives the rest; one it cannot place fails that tenant's run instead of running on", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectStatus(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: lineBody([["A", 3]]) }), 200);
    const db = await tenantDb(op.tenantId);
    const writtenByHand = (id: string) =>
      db
        .prepare("insert into change_sets (id, tenant_id, actor, request_id, at) values (?, ?, 'key:k', ?, ?)")
        .bind(id, op.tenantId, crypto.randomUUID(), new Date().toISOString())
        .run();
    await writtenByHand("chg-written-by-hand");
    expect(await archive(op)).toMatchObject({ failed: 0, more: false });
    expect(await stored(op)).toMatchObject({ sets: 1, records: 0, indexed: 1 });
    // Among the ids a clock makes, but with no time to read: the tenant's run fails and says so (it ran on forever before).
    await writtenByHand("chg_000000000~unreadable");
    expect(await archive(op)).toMatchObject({ failed: 1 });
    expect(await stored(op)).toMatchObject({ sets: 2, indexed: 1 });
  });

  it("keeps records as long as the tenant's retention says (at least 3 years), then removes them; the setting is the OPERATOR's and recorded", async () => {
    const { op, kept, gone, operations } = await tenantWithHistory();
    const settings = {};
    expect(expectStatus(await callRoute(op, routes.getHistorySettings, settings), 200)).toEqual({ retentionYears: null, hotWindowDays: 90 });
    for (const retentionYears of [2, 0, 101, 3.5, "3"]) {
      const refused = expectProblem(await callRoute(op, routes.putHistorySettings, { body: { retentionYears } as never }), 400, "validation_failed");
      expect(JSON.stringify(refused)).toContain("retentionYears");
    }
    expectProblem(await callRoute(op, routes.putHistorySettings, { body: {} as never }), 400, "validation_failed");
    const account = await issueKey(op.tenantId, "ACCOUNT", "u-retention");
    expectProblem(await callRoute(account, routes.putHistorySettings, { body: { retentionYears: 3 } }), 403, "forbidden");
    expectProblem(await callRoute(account, routes.getHistorySettings, settings), 403, "forbidden");
    expect(expectStatus(await callRoute(op, routes.getHistorySettings, settings), 200).retentionYears).toBeNull();

    expect(expectStatus(await callRoute(op, routes.putHistorySettings, { body: { retentionYears: 3 } }), 200)).toEqual({
      retentionYears: 3,
      hotWindowDays: 90,
    });
    const [recorded] = (await collectPages(op, routes.listHistory, { query: { resourceType: "settings" } })).items;
    expect(recorded).toMatchObject({
      resourceType: "settings",
      resourceId: "history",
      action: "updated",
      changes: [{ field: "retentionYears", previous: null, next: 3 }],
    });
    // Setting it again changes nothing and records nothing.
    expectStatus(await callRoute(op, routes.putHistorySettings, { body: { retentionYears: 3 } }), 200);
    expect((await collectPages(op, routes.listHistory, { query: { resourceType: "settings" } })).items).toHaveLength(1);

    await archive(op);
    const archived = await stored(op);
    const answers = await historyAnswers(op, operations);
    const day = 86_400_000;
    const threeYears = new Date(Date.now());
    threeYears.setUTCFullYear(threeYears.getUTCFullYear() + 3);
    const onlyRetention = { archiveBefore: 0 };
    // A day short of three years: everything kept.
    expect(await archive(op, { now: threeYears.getTime() - day, ...onlyRetention })).toMatchObject({ expired: 0 });
    expect(await stored(op)).toEqual(archived);
    expect(await historyAnswers(op, operations)).toEqual(answers);
    // Three years and a day on: the archived days are gone, index rows and objects; what the shard holds stays.
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 300 } }), 200);
    expect(await archive(op, { now: threeYears.getTime() + day, ...onlyRetention })).toMatchObject({ expired: archived.indexed });
    expect(await stored(op)).toMatchObject({ indexed: 0, objects: [] });
    expect((await collectPages(op, routes.listHistory)).items.map((record) => record.resourceType)).toEqual(["quota_default"]);
    expectProblem(await call(op, "GET", `/v1/operations/${kept.id}/versions/1`), 404, "version_not_found");
    expectProblem(await call(op, "GET", `/v1/operations/${gone.id}/versions/1`), 404, "not_found");
  });
});
