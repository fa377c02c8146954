import { zValidator } from "@hono/zod-validator";
import type { Context, MiddlewareHandler } from "hono";
import * as z from "zod";
import type { App, AppBindings } from "../../src/platform/http/context";
import { openTenantDb } from "../../src/app";
import { authenticate, requireRole } from "../../src/platform/http/auth";
import type { Env } from "../../src/platform/core/env";
import { ApiError } from "../../src/platform/core/errors";
import { newId } from "../../src/platform/core/ids";
import { mintSignedKey } from "../../src/platform/core/key-format.mjs";
import { localeTag, localizedText } from "../../src/platform/core/locale";
import { externalKey, quantity } from "../../src/platform/schema/fields";
import { invalidJsonError, throwZodError } from "../../src/platform/schema/validation";
import { evaluateBody } from "../../src/quotas/schemas";
import { currentD1Delay, setD1Delay, type D1Delay } from "./d1-delay";
import { primaryDb } from "../../src/platform/data/database";
import { shardNames, type ShardName } from "../../src/platform/core/shards";
import { createTenant } from "../../src/tenants/placement";
import {
  changeRuleElsewhere,
  databaseBytes,
  insertBenchKey,
  bareUpsert,
  rawUpsertLines,
  rawUpsertRules,
  seedFacts,
  seedHistory,
  seedRules,
  shardOfTenant,
  tenantExists,
} from "./queries";
import { seedOrders, totalsInOneRead } from "./orders";
import { archiveHistory } from "../../src/history/archive/job";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";

/*
 * Baselines for `npm run bench`, mounted only by the bench's own Worker entry (bench/worker/index.ts);
 * the production entry never imports this file. Mounted directly, not through mountRoutes, so they
 * never appear in the OpenAPI document.
 */

const benchTenantBody = z.strictObject({
  defaultLocale: localeTag.optional(),
  shard: z
    .string()
    .regex(/^SHARD_[A-Z0-9_]+$/)
    .optional(),
});
const rawRulesBody = z
  .array(
    z.object({
      accountId: z.string().nullable().optional(),
      supplierId: z.string().nullable().optional(),
      storeId: z.string().nullable().optional(),
      minimum: z.number().int(),
    }),
  )
  .min(1)
  .max(5000);
const seedRulesBody = z.strictObject({ from: z.number().int().min(0), count: z.number().int().min(1).max(200_000) });
const seedFactsBody = z.strictObject({
  from: z.number().int().min(0),
  count: z.number().int().min(1).max(500_000),
  accounts: z.number().int().min(1).max(1_000_000),
  days: z.number().int().min(1).max(366),
});
const seedOrdersBody = z.strictObject({
  from: z.number().int().min(0),
  count: z.number().int().min(1).max(5000),
  accounts: z.number().int().min(1).max(1_000_000),
  days: z.number().int().min(1).max(366),
  linesPerOrder: z.number().int().min(1).max(100),
});
const benchKeyBody = z.strictObject({
  tenantId: z.string().min(1).max(100),
  role: z.enum(["OPERATOR", "ACCOUNT"]),
  userId: externalKey.optional(),
});
const rawLinesBody = z
  .array(
    z.object({
      variantExternalId: externalKey,
      minQuantity: quantity,
      maxQuantity: quantity,
      recommendedQuantity: quantity.nullable().optional(),
      variantName: localizedText.optional(),
    }),
  )
  .min(1)
  .max(5000);

async function jsonBody<T extends z.ZodType>(c: Context<AppBindings>, schema: T, fallback?: unknown): Promise<z.output<T>> {
  const text = await c.req.text();
  let value: unknown = fallback;
  if (text.trim()) {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw invalidJsonError(error);
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throwZodError(parsed.error, "body");
  return parsed.data;
}

const seedHistoryBody = z.strictObject({
  operationId: z.string().min(1).max(100),
  firstMs: z.number().int().min(0),
  stepMs: z.number().int().min(0),
  firstVersion: z.number().int().min(1),
  sets: z.number().int().min(1).max(100),
  recordsPerSet: z.number().int().min(1).max(10_000),
});
const archiveRunBody = z.strictObject({
  now: z.number().int().optional(),
  archiveBefore: z.number().int().optional(),
  budgetMs: z.number().int().min(1).max(600_000).optional(),
});
const d1DelayBody = z.strictObject({ primaryMs: z.number().min(0).max(10_000).optional(), replicaMs: z.number().min(0).max(10_000).optional() });
const ruleChangeBody = z.strictObject({ tenantId: z.string().min(1).max(100), ruleId: z.string().min(1).max(100), minimum: z.number().int().min(0) });

/** The Operation's Durable Object with the bench entry's extra RPC methods (bench/worker/index.ts). */
interface BenchCoordinator extends Rpc.DurableObjectBranded {
  benchD1Delay(): D1Delay & { delayed: { primary: number; replica: number } };
  benchPing(): number;
  liveStats(): { connections: number; instanceSince: number };
}

function benchCoordinator(c: Context<AppBindings>, name: string) {
  const namespace = c.env.OPERATION_COORDINATOR as unknown as DurableObjectNamespace<BenchCoordinator>;
  return namespace.get(namespace.idFromName(name));
}

/** Layers of the /v1 stack, one at a time, for the edge suite's breakdown (each route adds one over the previous). */
const limitRead: MiddlewareHandler<AppBindings> = async (c, next) => {
  const { success } = await c.env.RATE_LIMIT_READ.limit({ key: c.var.principal.keyId });
  if (!success) throw new ApiError("rate_limited", "bench layer: read budget used");
  await next();
};
const openSession: MiddlewareHandler<AppBindings> = async (c, next) => {
  // What a request's first query would do first (openDb starts its session lazily); no query here.
  c.env[c.var.principal.shard].withSession("first-unconstrained");
  await next();
};
const validateEvaluateBody = zValidator("json", evaluateBody, (result) => {
  if (!result.success) throwZodError(result.error as z.ZodError, "body");
}) as unknown as MiddlewareHandler<AppBindings>;
const ok = (c: Context<AppBindings>) => c.json({ ok: true });

/** A key as the API issues them (signed with the Worker's KEY_SIGNING_SECRET). */
function newBenchKey(env: Env): Promise<string> {
  return mintSignedKey(env.KEY_SIGNING_SECRET);
}

export function mountBenchRoutes(app: App): void {
  app.post("/__bench/tenants", async (c) => {
    const body = await jsonBody(c, benchTenantBody, {});
    const tenantId = newId("tbench");
    const operatorKey = await newBenchKey(c.env);
    const placement = await createTenant(c.env, { tenantId, defaultLocale: body.defaultLocale ?? "en", shard: body.shard as ShardName | undefined });
    await insertBenchKey(primaryDb(c.env, "CONTROL"), tenantId, "OPERATOR", null, operatorKey);
    return c.json({ tenantId, operatorKey, shard: placement.shard }, 201);
  });

  app.post("/__bench/keys", async (c) => {
    const body = await jsonBody(c, benchKeyBody);
    if (body.role === "ACCOUNT" && !body.userId) {
      throw new ApiError("validation_failed", "ACCOUNT keys need a userId.", {
        errors: [{ field: "body.userId", code: "required", message: "required for ACCOUNT keys" }],
      });
    }
    const db = primaryDb(c.env, "CONTROL");
    if (!(await tenantExists(db, body.tenantId))) throw new ApiError("not_found", `Tenant ${body.tenantId} not found.`);
    const key = await newBenchKey(c.env);
    await insertBenchKey(db, body.tenantId, body.role, body.role === "ACCOUNT" ? body.userId! : null, key);
    return c.json({ key }, 201);
  });

  // Each database's size in bytes (D1 reports it on every result): the shards suite's capacity table.
  app.get("/__bench/database-sizes", async (c) => {
    const names = ["CONTROL", ...shardNames(c.env)] as const;
    const sizes = await Promise.all(names.map(async (name) => (await primaryDb(c.env, name).$client.prepare("select 1").run()).meta.size_after));
    return c.json(Object.fromEntries(names.map((name, i) => [name, sizes[i]])));
  });

  // The move fence's triggers on a shard, off and on again: what they cost every write (shards suite).
  // Off, a shard would let a moving tenant's writes through: the bench entry only, never deployed.
  const fenceTriggersBody = z.strictObject({ shard: z.string().regex(/^SHARD_[A-Z0-9_]+$/), enabled: z.boolean() });
  const droppedFenceTriggers = new Map<string, string[]>();
  app.post("/__bench/fence-triggers", async (c) => {
    const body = await jsonBody(c, fenceTriggersBody);
    const shard = body.shard as ShardName;
    if (!shardNames(c.env).includes(shard)) throw new ApiError("not_found", `No shard ${shard}.`);
    const database = primaryDb(c.env, shard).$client;
    if (!body.enabled && !droppedFenceTriggers.has(shard)) {
      const { results } = await database
        .prepare("select name, sql from sqlite_master where type = 'trigger' and name like '%_fence_%'")
        .all<{ name: string; sql: string }>();
      await database.batch(results.map((trigger) => database.prepare(`drop trigger ${trigger.name}`)));
      droppedFenceTriggers.set(
        shard,
        results.map((trigger) => trigger.sql),
      );
    } else if (body.enabled && droppedFenceTriggers.has(shard)) {
      await database.batch(droppedFenceTriggers.get(shard)!.map((create) => database.prepare(create)));
      droppedFenceTriggers.delete(shard);
    }
    const { results } = await database.prepare("select count(*) as n from sqlite_master where type = 'trigger' and name like '%_fence_%'").all<{ n: number }>();
    return c.json({ shard, fenceTriggers: results[0].n });
  });

  // Simulated distance to D1 (bench/worker/d1-delay.ts): set it, and read it as the Worker and an Operation's Durable Object see it.
  app.post("/__bench/d1-delay", async (c) => {
    setD1Delay(await jsonBody(c, d1DelayBody, {}));
    return c.json({ worker: currentD1Delay() });
  });
  app.get("/__bench/d1-delay", async (c) => {
    const name = c.req.query("operationId") ?? "bench-delay-probe";
    const durableObject = await benchCoordinator(c, name).benchD1Delay();
    return c.json({ worker: currentD1Delay(), durableObject });
  });

  // What the wrapper's sleep costs beyond its ms (timer granularity, waking the isolate): the suite calibrates with it.
  app.get("/__bench/sleep", async (c) => {
    const ms = Math.min(10_000, Math.max(0, Number(c.req.query("ms") ?? 0) || 0));
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    return c.json({ ms });
  });

  // A rule change made "elsewhere": raw SQL on the binding, so this isolate's rule index is not told.
  app.post("/__bench/rule-change", async (c) => {
    const body = await jsonBody(c, ruleChangeBody);
    const shard = await shardOfTenant(primaryDb(c.env, "CONTROL"), body.tenantId);
    const version = shard ? await changeRuleElsewhere(c.env[shard], body.tenantId, body.ruleId, body.minimum) : null;
    if (version === null) throw new ApiError("not_found", `Rule ${body.ruleId} of tenant ${body.tenantId} not found.`);
    return c.json({ version });
  });

  // The stack's layers, each route one more than the one before (GET …/app has only serve() and the app's own middleware).
  app.get("/__bench/layer/app", ok);
  app.get("/__bench/layer/auth", authenticate, ok);
  app.get("/__bench/layer/limit", authenticate, openTenantDb, limitRead, ok);
  app.get("/__bench/layer/session", authenticate, openTenantDb, limitRead, openSession, ok);
  app.post("/__bench/layer/zod", authenticate, openTenantDb, limitRead, openSession, validateEvaluateBody, ok);
  // Beside the chain: one trivial D1 read, and a no-op call to an Operation's Durable Object.
  app.get("/__bench/layer/query", authenticate, openTenantDb, limitRead, async (c) => {
    await c.var.db.$client.prepare("select 1 as one").first();
    return ok(c);
  });
  app.get("/__bench/layer/do-ping/:operationId", authenticate, openTenantDb, limitRead, async (c) => {
    await benchCoordinator(c, c.req.param("operationId")).benchPing();
    return ok(c);
  });

  // An Operation's live connections and when its object was last made: a later time after an idle
  // spell means the object was evicted (hibernated) while its connections stayed.
  app.get("/__bench/live-stats/:operationId", async (c) => c.json(await benchCoordinator(c, c.req.param("operationId")).liveStats()));

  // The floor of every /v1 request: request id, body limit, authentication, idempotency, JSON out.
  app.get("/v1/__bench/constant", (c) => c.json({ ok: true, tenantId: c.get("principal").tenantId }));

  // The floor for bulk rules: one bare statement upserting the posted rules by scope (no read, no
  // validation, no counts, no version bump, no event).
  app.put("/v1/__bench/raw-rules", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const rules = await jsonBody(c, rawRulesBody);
    const written = await rawUpsertRules(c.var.db, principal.tenantId, rules);
    return c.json({ written });
  });

  // Seeds the caller's tenant with generated rules in SQL (bench/worker/queries.ts seedRules): tenants of 10^6 rules.
  app.put("/v1/__bench/seed-rules", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const { from, count } = await jsonBody(c, seedRulesBody);
    return c.json({ written: await seedRules(c.var.db.$client, principal.tenantId, from, count) });
  });

  // Seeds the caller's tenant with generated quota order facts in SQL (bench/worker/queries.ts seedFacts): windows of 10^6 orders.
  app.put("/v1/__bench/seed-facts", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const seed = await jsonBody(c, seedFactsBody);
    return c.json({ written: await seedFacts(c.var.db.$client, principal.tenantId, { ...seed, now: new Date().toISOString() }) });
  });

  // Seeds an Operation of the caller's tenant with generated orders and their totals (bench/worker/orders.ts): Operations of 10^5 orders.
  app.put("/v1/__bench/seed-orders/:operationId", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const seed = await jsonBody(c, seedOrdersBody);
    const operationId = c.req.param("operationId");
    const seeded = await seedOrders(c.var.db.$client, principal.tenantId, operationId, { ...seed, now: Date.now() });
    if (seeded === null) throw new ApiError("not_found", `Operation ${operationId} has no lines to order.`);
    return c.json(seeded);
  });

  // GET …/totals' four reads as one statement (bench/worker/orders.ts): what its round trips cost.
  app.get("/v1/__bench/totals-one-read/:operationId", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const operationId = c.req.param("operationId");
    const totals = await totalsInOneRead(c.var.db.$client, principal.tenantId, operationId);
    if (totals === null) throw new ApiError("not_found", `Operation ${operationId} not found.`);
    return c.json(totals);
  });

  // This isolate's rule cache: what it holds (estimated bytes), its bound and its counters.
  app.get("/__bench/rule-cache", (c) =>
    c.json({
      bytes: ruleIndexCache.bytes,
      memoryBound: ruleIndexCache.memoryBound,
      maxBytes: ruleIndexCache.maxBytes,
      wholeTenantRules: ruleIndexCache.wholeTenantRules,
      cachedRules: ruleIndexCache.cachedRules,
      tenants: ruleIndexCache.size,
      stats: ruleIndexCache.stats,
    }),
  );

  // Seeds the caller's tenant with change sets and line records in the shard's format (bench/worker/queries.ts seedHistory): the archive suite's millions of records.
  app.put("/v1/__bench/seed-history", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const seed = await jsonBody(c, seedHistoryBody);
    return c.json({ written: await seedHistory(c.var.db.$client, principal.tenantId, seed) });
  });

  // One run of the real archive job on the caller's tenant (the hourly cron's code), its clock or boundary moved.
  app.post("/v1/__bench/archive", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const options = await jsonBody(c, archiveRunBody, {});
    const started = Date.now();
    const report = await archiveHistory(c.env, { ...options, tenantId: principal.tenantId });
    return c.json({ ...report, ms: Date.now() - started });
  });

  // What the caller's tenant holds: its shard's pages (all and in use), its sets and records there, and its archive (index and bucket).
  app.get("/v1/__bench/archive-sizes", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const database = c.var.db.$client;
    const tenantId = principal.tenantId;
    const counts = await database
      .prepare(
        `select (select count(*) from change_sets where tenant_id = ?1) as sets,
                (select count(*) from change_records where set_id in (select id from change_sets where tenant_id = ?1)) as records,
                (select count(*) from history_archive where tenant_id = ?1) as objects,
                (select coalesce(sum(records), 0) from history_archive where tenant_id = ?1) as archivedRecords,
                (select coalesce(sum(bytes), 0) from history_archive where tenant_id = ?1) as indexedBytes`,
      )
      .bind(tenantId)
      .first<Record<string, number>>();
    let bucketBytes = 0;
    let bucketObjects = 0;
    let cursor: string | undefined;
    do {
      const listed = await c.env.HISTORY_ARCHIVE.list({ prefix: `history/${tenantId}/`, cursor });
      for (const object of listed.objects) bucketBytes += object.size;
      bucketObjects += listed.objects.length;
      cursor = listed.truncated ? listed.cursor : undefined;
    } while (cursor);
    return c.json({ ...counts, bucketObjects, bucketBytes, shardBytes: await databaseBytes(database) });
  });

  app.put("/v1/__bench/bare-upsert", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    return c.json({ written: await bareUpsert(c.var.db.$client, principal.tenantId, await c.req.text()) });
  });

  app.put("/v1/__bench/raw-upsert/:operationId", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const lines = await jsonBody(c, rawLinesBody);
    const operationId = c.req.param("operationId");
    const written = await rawUpsertLines(c.var.db, principal.tenantId, principal.tenantDefaultLocale, operationId, lines);
    if (written === 0) throw new ApiError("not_found", `Operation ${operationId} not found.`);
    return c.json({ written });
  });
}
