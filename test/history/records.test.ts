import { afterEach, describe, expect, it, vi } from "vitest";
import { travelTo } from "../helpers/schedule";
import {
  call,
  callRoute,
  collectPages,
  createOperation,
  expectProblem,
  expectStatus,
  issueKey,
  newTenant,
  readOperation,
  uniqueId,
  type Caller,
} from "../helpers/client";
import { routes } from "../helpers/routes";
import { ownLineFields, putAccounts, setUpOperation } from "../helpers/setup";
import { tenantDb } from "../helpers/shards";

type Change = { field: string; previous?: unknown; next?: unknown };
interface HistoryItem {
  id: string;
  resourceType: string;
  resourceId: string;
  operationId?: string;
  version?: number;
  action: string;
  changes: Change[];
  actor: string;
  actorKeyId?: string;
  requestId?: string;
  reason?: string;
  at: string;
}

async function historyOf(op: Caller, query: Record<string, string> = {}): Promise<HistoryItem[]> {
  return (await collectPages(op, routes.listHistory, { query })).items as HistoryItem[];
}

async function operationHistory(op: Caller, operationId: string, query: Record<string, string> = {}): Promise<HistoryItem[]> {
  return (await collectPages(op, routes.listOperationHistory, { params: { operationId }, query })).items as HistoryItem[];
}

/** Every change record row of the tenant, straight from its shard. */
async function storedRecordCount(op: Caller): Promise<number> {
  const db = await tenantDb(op.tenantId);
  const row = await db
    .prepare("select count(*) as n from change_records r join change_sets s on s.id = r.set_id where s.tenant_id = ?")
    .bind(op.tenantId)
    .first<{ n: number }>();
  return row!.n;
}

const lineBody = (variantExternalId: string, extra: Record<string, unknown> = {}) => ({
  variantExternalId,
  variantName: { en: variantExternalId },
  minQuantity: 1,
  maxQuantity: 50,
  ...extra,
});
const byField = (changes: Change[]) => Object.fromEntries(changes.map(({ field, ...rest }) => [field, rest]));

describe("change records of lines", () => {
  it("a line created records every field with no previous; a re-PUT that changes 3 of 200 lines records 3, with only the fields that changed", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const skus = Array.from({ length: 200 }, (_, i) => `SKU-${String(i).padStart(3, "0")}`);
    expectStatus(await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: skus.map((sku) => lineBody(sku)) }), 200);
    const created = (await operationHistory(op, operation.id, { resourceType: "line" })).filter((record) => record.action === "created");
    expect(created).toHaveLength(200);
    expect(byField(created.find((record) => record.resourceId === "SKU-007")!.changes)).toEqual({
      variantId: { next: null },
      variantName: { next: { en: "SKU-007" } },
      minQuantity: { next: 1 },
      maxQuantity: { next: 50 },
      recommendedQuantity: { next: null },
      quantityIncrement: { next: 1 },
    });

    const before = await storedRecordCount(op);
    const rePut = skus.map((sku) =>
      lineBody(
        sku,
        sku === "SKU-010"
          ? { maxQuantity: 5 }
          : sku === "SKU-020"
            ? { minQuantity: 2, recommendedQuantity: 3 }
            : sku === "SKU-030"
              ? { variantName: { en: "Renamed" } }
              : {},
      ),
    );
    const answer = await callRoute(op, routes.putLines, {
      params: { operationId: operation.id },
      body: rePut,
      headers: { "svc-change-reason": "Supplier allocation cut" },
    });
    expectStatus(answer, 200);
    expect((await storedRecordCount(op)) - before).toBe(3);
    const latest = (await operationHistory(op, operation.id)).slice(0, 3);
    expect(Object.fromEntries(latest.map((record) => [record.resourceId, byField(record.changes)]))).toEqual({
      "SKU-010": { maxQuantity: { previous: 50, next: 5 } },
      "SKU-020": { minQuantity: { previous: 1, next: 2 }, recommendedQuantity: { previous: null, next: 3 } },
      "SKU-030": { variantName: { previous: { en: "SKU-030" }, next: { en: "Renamed" } } },
    });
    const current = expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: operation.id } }), 200);
    for (const record of latest) {
      expect(record).toMatchObject({
        resourceType: "line",
        action: "updated",
        operationId: operation.id,
        version: current.version,
        reason: "Supplier allocation cut",
        requestId: answer.headers.get("x-request-id"),
      });
      expect(record.actor).toMatch(/^key:/);
    }
  });

  it("a dry run, a refused batch and a re-PUT of the same values record nothing", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.putLines, { params, body: [lineBody("A"), lineBody("B")] }), 200);
    const before = await storedRecordCount(op);
    expectStatus(await callRoute(op, routes.putLines, { params, query: { dryRun: "true" }, body: [lineBody("A", { maxQuantity: 9 }), lineBody("C")] }), 200);
    expectProblem(
      await callRoute(op, routes.putLines, { params, body: [lineBody("A", { maxQuantity: 9 }), lineBody("B", { minQuantity: 99 })] }),
      422,
      "line_bounds_invalid",
    );
    expectStatus(await callRoute(op, routes.putLines, { params, body: [lineBody("A"), lineBody("B")] }), 200);
    expectStatus(await callRoute(op, routes.deleteLines, { params, query: { dryRun: "true" }, body: ["A"] }), 200);
    expect(await storedRecordCount(op)).toBe(before);
  });

  it("a line removed records every field as it was, with no next", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(
      await callRoute(op, routes.putLines, {
        params,
        body: [lineBody("A", { recommendedQuantity: 4, quantityIncrement: 2, minQuantity: 2, maxQuantity: 10 })],
      }),
      200,
    );
    expectStatus(await callRoute(op, routes.deleteLines, { params, body: ["A", "NOT-A-LINE"] }), 200);
    const [removed] = await operationHistory(op, operation.id, { variantExternalId: "A" });
    expect(removed.action).toBe("deleted");
    expect(byField(removed.changes)).toEqual({
      variantId: { previous: null },
      variantName: { previous: { en: "A" } },
      minQuantity: { previous: 2 },
      maxQuantity: { previous: 10 },
      recommendedQuantity: { previous: 4 },
      quantityIncrement: { previous: 2 },
    });
    expect((await operationHistory(op, operation.id, { variantExternalId: "NOT-A-LINE" })).length).toBe(0);
  });
});

describe("change records of an Operation", () => {
  it("create, PATCH, status and delete: its fields from what to what, each with the version it made; its history outlives it", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.patchOperation, { params, body: { name: { de: "Frühling" }, externalId: "ERP-1" } }), 200);
    expectStatus(await callRoute(op, routes.changeStatus, { params, body: { status: "INACTIVE" } }), 200);
    const before = (await operationHistory(op, operation.id, { resourceType: "operation" })).reverse();
    expect(before.map((record) => [record.action, record.version])).toEqual([
      ["created", 1],
      ["updated", before[1].version],
      ["updated", before[2].version],
    ]);
    expect(byField(before[0].changes).code).toEqual({ next: operation.code });
    expect(byField(before[1].changes)).toEqual({
      externalId: { previous: null, next: "ERP-1" },
      name: { previous: operation.name, next: { ...operation.name, de: "Frühling" } },
    });
    expect(byField(before[2].changes)).toEqual({ status: { previous: "DRAFT", next: "INACTIVE" } });

    const current = expectStatus(await callRoute(op, routes.getOperation, { params }), 200);
    const lines = (await collectPages(op, routes.listLines, { params })).items;
    expectStatus(await callRoute(op, routes.deleteOperation, { params }), 204);
    const after = await operationHistory(op, operation.id);
    const deletion = after.filter((record) => record.version === current.version + 1);
    expect(deletion.find((record) => record.resourceType === "operation")).toMatchObject({ action: "deleted" });
    // Its lines went with it, each recorded as it was.
    const lineRecords = deletion.filter((record) => record.resourceType === "line");
    expect(lineRecords.map((record) => record.resourceId).sort()).toEqual(lines.map((line) => line.variantExternalId).sort());
    for (const line of lines) {
      const record = lineRecords.find((candidate) => candidate.resourceId === line.variantExternalId)!;
      expect(record.action).toBe("deleted");
      expect(byField(record.changes)).toEqual({
        variantId: { previous: line.variantId ?? null },
        variantName: { previous: line.variantName },
        minQuantity: { previous: line.minQuantity },
        maxQuantity: { previous: line.maxQuantity },
        recommendedQuantity: { previous: line.recommendedQuantity ?? null },
        quantityIncrement: { previous: line.quantityIncrement },
      });
    }
    expect(lineRecords.length).toBe(current.lineCount);
    expect(lines.length).toBeGreaterThan(0);
    // Its last version stays readable, lines included (a page at a time, and filtered); the deletion made no version to read.
    const then = expectStatus(await call(op, "GET", `/v1/operations/${operation.id}/versions/${current.version}`), 200) as typeof current;
    expect({ ...then, updatedAt: undefined }).toEqual({ ...current, updatedAt: undefined });
    const pastLines = async (query: Record<string, string>) =>
      (await collectPages(op, routes.listLines, { params, query: { asOf: String(current.version), ...query } })).items;
    expect(await pastLines({ limit: "1" })).toEqual(lines.map((line) => ({ ...ownLineFields(line), updatedAt: then.updatedAt })));
    expect((await pastLines({ sort: "-variantExternalId", limit: "1" })).map((line) => line.variantExternalId)).toEqual(
      lines.map((line) => line.variantExternalId).reverse(),
    );
    expect((await pastLines({ minQuantity: String(lines[0].minQuantity) })).map((line) => line.variantExternalId)).toEqual(
      lines.filter((line) => line.minQuantity === lines[0].minQuantity).map((line) => line.variantExternalId),
    );
    expectProblem(await call(op, "GET", `/v1/operations/${operation.id}/versions/${current.version + 1}`), 404, "version_not_found");
  });

  it("an unknown Operation's history is 404; an ACCOUNT key may not read history", async () => {
    const op = await newTenant();
    expectProblem(await callRoute(op, routes.listOperationHistory, { params: { operationId: "op_00000000000000000000000000" } }), 404, "not_found");
  });
});

describe("change records of tenant resources", () => {
  it("rules (single and bulk), the default, directory accounts, keys and webhooks; secrets only as [redacted]", async () => {
    const op = await newTenant();
    const rule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A-1", minimum: 100 } }), 201);
    expectStatus(await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A-1", minimum: 150 } }), 200);
    expectStatus(
      await callRoute(op, routes.upsertRules, {
        body: [
          { accountId: "A-1", minimum: 150 },
          { accountId: "A-2", minimum: 70, enforcement: "WARN" },
        ],
      }),
      200,
    );
    expectStatus(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }), 204);
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 30 } }), 200);
    expectStatus(await callRoute(op, routes.putQuotaDefault, { body: { minimum: 30 } }), 200); // the same again: no record
    await putAccounts(op, [{ accountId: "ACC-1", name: "First" }]);
    await putAccounts(op, [{ accountId: "ACC-1", name: "Renamed" }]);
    const key = expectStatus(await callRoute(op, routes.createKey, { body: { role: "OPERATOR", name: "ci" } }), 201);
    expectStatus(await callRoute(op, routes.revokeKey, { params: { keyId: key.id } }), 204);
    const webhook = expectStatus(await callRoute(op, routes.createWebhook, { body: { url: "https://hooks.example.com/h", eventTypes: ["order.*"] } }), 201);
    expectStatus(await callRoute(op, routes.updateWebhook, { params: { webhookId: webhook.id }, body: { description: "ERP" } }), 200);
    expectStatus(await callRoute(op, routes.deleteWebhook, { params: { webhookId: webhook.id } }), 204);

    const records = (await historyOf(op)).reverse();
    const summary = records.map((record) => [record.resourceType, record.action, byField(record.changes)]);
    expect(summary.filter(([type]) => type === "rule")).toEqual([
      [
        "rule",
        "created",
        {
          accountId: { next: "A-1" },
          supplierId: { next: null },
          storeId: { next: null },
          minimum: { next: 100 },
          enforcement: { next: "BLOCK" },
          createdAt: { next: rule.createdAt },
        },
      ],
      ["rule", "updated", { minimum: { previous: 100, next: 150 } }],
      [
        "rule",
        "created",
        {
          accountId: { next: "A-2" },
          supplierId: { next: null },
          storeId: { next: null },
          minimum: { next: 70 },
          enforcement: { next: "WARN" },
          createdAt: { next: expect.any(String) },
        },
      ],
      [
        "rule",
        "deleted",
        {
          accountId: { previous: "A-1" },
          supplierId: { previous: null },
          storeId: { previous: null },
          minimum: { previous: 150 },
          enforcement: { previous: "BLOCK" },
          createdAt: { previous: rule.createdAt },
        },
      ],
    ]);
    expect(summary.filter(([type]) => type === "quota_default")).toEqual([["quota_default", "updated", { minimum: { previous: 0, next: 30 } }]]);
    expect(summary.filter(([type]) => type === "account")).toEqual([
      ["account", "created", { name: { next: "First" }, users: { next: expect.any(Array) } }],
      ["account", "updated", { name: { previous: "First", next: "Renamed" } }],
    ]);
    const keyRecords = records.filter((record) => record.resourceType === "key" && record.resourceId === key.id);
    expect(keyRecords.map((record) => record.action)).toEqual(["created", "updated"]);
    expect(byField(keyRecords[0].changes).keyHash).toEqual({ next: "[redacted]" });
    expect(Object.keys(byField(keyRecords[1].changes))).toEqual(["revokedAt"]);
    const webhookRecords = records.filter((record) => record.resourceType === "webhook");
    expect(webhookRecords.map((record) => [record.action, byField(record.changes).secret ?? null])).toEqual([
      ["created", { next: "[redacted]" }],
      ["updated", null],
      ["deleted", { previous: "[redacted]" }],
    ]);
    // No secret anywhere in the stored history.
    const stored = await (await tenantDb(op.tenantId))
      .prepare("select group_concat(changes, '') as text from change_records r join change_sets s on s.id = r.set_id where s.tenant_id = ?")
      .bind(op.tenantId)
      .first<{ text: string }>();
    expect(stored!.text).not.toContain(webhook.secret);
    expect(stored!.text).not.toContain(key.key);
  });
});

afterEach(() => vi.restoreAllMocks());

describe("reading history", () => {
  it("filters by resource, field, actor and time, pages newest first, and exports CSV one row per field", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const params = { operationId: operation.id };
    expectStatus(await callRoute(op, routes.putLines, { params, body: [lineBody("A"), lineBody("B")] }), 200);
    // from and to are to the second: the next change comes in a later second than the first (the clock moved, not waited for).
    travelTo(new Date(Date.now() + 1000).toISOString());
    const middle = new Date(Date.now()).toISOString();
    expectStatus(await callRoute(op, routes.putLines, { params, body: [lineBody("A", { maxQuantity: 7 })] }), 200);
    const all = await historyOf(op);
    expect(all.map((record) => record.id)).toEqual([...all.map((record) => record.id)].sort((a, b) => (a < b ? 1 : -1)));
    expect((await historyOf(op, { resourceType: "line", resourceId: "A" })).map((record) => record.action)).toEqual(["updated", "created"]);
    expect((await historyOf(op, { field: "maxQuantity" })).map((record) => [record.resourceId, record.action])).toEqual([
      ["A", "updated"],
      ["B", "created"],
      ["A", "created"],
    ]);
    expect(await historyOf(op, { field: "recommendedQuantity", resourceType: "operation" })).toEqual([]);
    expect((await historyOf(op, { from: middle })).map((record) => record.resourceId)).toEqual(["A"]);
    const actor = all[0].actor.slice("key:".length);
    expect((await historyOf(op, { actorKeyId: actor })).length).toBe(all.length);
    expect((await historyOf(op, { actorKeyId: "key_00000000000000000000000000" })).length).toBe(0);
    // Pages of 1 walk the same records.
    expect((await collectPages(op, routes.listHistory, { query: { limit: "1" } })).items.length).toBe(all.length);

    const csv = await call(op, "GET", "/v1/history?resourceType=line&resourceId=A", { headers: { accept: "text/csv" } });
    expect(csv.status).toBe(200);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe("id,at,actor,actorKeyId,reason,resourceType,resourceId,operationId,version,action,field,previous,next");
    expect(lines.some((row) => row.includes(",A,") && row.endsWith(",maxQuantity,50,7"))).toBe(true);
  });

  it("keeps the key beside a user actor: a key issued with a user has its changes found by actorKeyId, and another key of that user's are not", async () => {
    const op = await newTenant();
    const [carol, carolsOtherKey] = [await issueKey(op.tenantId, "OPERATOR", "u-carol"), await issueKey(op.tenantId, "OPERATOR", "u-carol")];
    const operation = await createOperation(carol);
    expectStatus(await callRoute(carolsOtherKey, routes.putLines, { params: { operationId: operation.id }, body: [lineBody("A")] }), 200);
    const byFirst = await historyOf(op, { actorKeyId: carol.keyId! });
    expect(byFirst.map((record) => [record.resourceType, record.actor, record.actorKeyId])).toEqual([["operation", "user:u-carol", carol.keyId]]);
    expect((await historyOf(op, { actorKeyId: carolsOtherKey.keyId! })).map((record) => record.resourceId)).toEqual(["A"]);
    expect((await historyOf(op, { actorUserId: "u-carol" })).length).toBe(2);
    const csv = await call(op, "GET", `/v1/history?actorKeyId=${carol.keyId}`, { headers: { accept: "text/csv" } });
    expect(csv.text).toContain(`,user:u-carol,${carol.keyId},`);
  });

  it("svc-change-reason is kept; one longer than 500 characters or with a control character is 400 and nothing is written", async () => {
    const op = await newTenant();
    const before = await storedRecordCount(op);
    expectProblem(
      await callRoute(op, routes.createOperation, {
        body: { code: uniqueId("OP"), name: { en: "x" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" },
        headers: { "svc-change-reason": "x".repeat(501) },
      }),
      400,
      "validation_failed",
    );
    expectProblem(
      await callRoute(op, routes.createRule, { body: { accountId: "A-9", minimum: 1 }, headers: { "svc-change-reason": "line\u0007bell" } }),
      400,
      "validation_failed",
    );
    expect(await storedRecordCount(op)).toBe(before);
    expect((await collectPages(op, routes.listOperations)).items).toHaveLength(0);
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A-9", minimum: 1 }, headers: { "svc-change-reason": "Négociation Q3 ✓" } }), 201);
    expect((await historyOf(op))[0].reason).toBe("Négociation Q3 ✓");
  });

  it("counts text one way everywhere: characters of its NFC form (a decomposed é is one, an emoji is one)", async () => {
    const op = await newTenant();
    const decomposed = "e\u0301".repeat(500);
    const emoji = "\u{1F600}".repeat(500);
    for (const reason of [decomposed, emoji]) {
      expectStatus(await callRoute(op, routes.createRule, { body: { accountId: uniqueId("A"), minimum: 1 }, headers: { "svc-change-reason": reason } }), 201);
      expect(characters((await historyOf(op))[0].reason!)).toBe(500);
    }
    const tooLong = await callRoute(op, routes.createRule, { body: { accountId: "A-X", minimum: 1 }, headers: { "svc-change-reason": `${emoji}x` } });
    expect(expectProblem(tooLong, 400, "validation_failed").errors?.[0].message).toContain("500 characters");
    // An approval comment and a code are counted the same way.
    const operation = await readOperation(op, (await setUpOperation(op, { status: "DRAFT" })).id);
    const decide = (comment: string) =>
      callRoute(op, routes.decideOnOperation, { params: { operationId: operation.id }, body: { decision: "APPROVE", version: operation.version, comment } });
    expectStatus(await decide(emoji), 201);
    expectProblem(await decide(`${decomposed}e\u0301`), 400, "validation_failed");
    const code = "\u{1F600}".repeat(128);
    expect(expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: operation.id }, body: { code } }), 200).code).toBe(code);
  });
});

const characters = (text: string) => [...text].length;

describe("restoring a deleted rule", () => {
  it("brings it back under its id with its last values (201, a created record); 409 rule_exists while it exists, 409 duplicate_scope when its scope was taken, 404 for an id never deleted", async () => {
    const op = await newTenant();
    const rule = expectStatus(
      await callRoute(op, routes.createRule, { body: { accountId: "A-1", supplierId: "S-1", minimum: 100, enforcement: "WARN" } }),
      201,
    );
    expectStatus(
      await callRoute(op, routes.updateRule, { params: { ruleId: rule.id }, body: { accountId: "A-1", supplierId: "S-1", minimum: 120, enforcement: "WARN" } }),
      200,
    );
    expectProblem(await callRoute(op, routes.restoreRule, { params: { ruleId: rule.id } }), 409, "rule_exists");
    expectStatus(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }), 204);
    const restored = expectStatus(await callRoute(op, routes.restoreRule, { params: { ruleId: rule.id } }), 201);
    expect(restored).toMatchObject({ id: rule.id, accountId: "A-1", supplierId: "S-1", storeId: null, minimum: 120, enforcement: "WARN" });
    // Its last values include when it was made: it keeps its place in the default order.
    expect(restored.createdAt).toBe(rule.createdAt);
    // A rule deleted in bulk comes back with its creation time too (from its creation record).
    expectStatus(await callRoute(op, routes.deleteRules, { body: [rule.id] }), 200);
    expect(expectStatus(await callRoute(op, routes.restoreRule, { params: { ruleId: rule.id } }), 201).createdAt).toBe(rule.createdAt);
    expect(expectStatus(await callRoute(op, routes.getRule, { params: { ruleId: rule.id } }), 200)).toMatchObject({ minimum: 120 });
    const evaluated = expectStatus(
      await callRoute(op, routes.evaluateQuotas, { body: { orders: [{ accountId: "A-1", supplierId: "S-1", amount: 50 }] } }),
      200,
    );
    expect(evaluated.results[0]).toMatchObject({ effectiveMinimum: 120, source: { ruleId: rule.id } });
    expect((await historyOf(op, { resourceId: rule.id }))[0]).toMatchObject({ resourceType: "rule", action: "created" });

    expectStatus(await callRoute(op, routes.deleteRule, { params: { ruleId: rule.id } }), 204);
    expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A-1", supplierId: "S-1", minimum: 5 } }), 201);
    expectProblem(await callRoute(op, routes.restoreRule, { params: { ruleId: rule.id } }), 409, "duplicate_scope");
    expectProblem(await callRoute(op, routes.restoreRule, { params: { ruleId: "qr_00000000000000000000000000" } }), 404, "not_found");
    const other = await newTenant();
    expectProblem(await callRoute(other, routes.restoreRule, { params: { ruleId: rule.id } }), 404, "not_found");
  });
});
