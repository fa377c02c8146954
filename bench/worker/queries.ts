import { sql } from "drizzle-orm";
import { sha256Hex } from "../../src/platform/core/crypto";
import type { Db } from "../../src/platform/data/database";
import { jsonChunks, runBatch } from "../../src/platform/data/sql";
import { idAtTime, idPrefixes, newId } from "../../src/platform/core/ids";
import { searchText, sortText } from "../../src/platform/core/locale";
import type { ShardName } from "../../src/platform/core/shards";
import { apiKeys, tenantDirectory } from "../../src/platform/data/tables";
import { nowIso } from "../../src/platform/core/time";

export interface RawLine {
  variantExternalId: string;
  minQuantity: number;
  maxQuantity: number;
  recommendedQuantity?: number | null;
  variantName?: Record<string, string>;
}

export async function tenantExists(control: Db, tenantId: string): Promise<boolean> {
  const rows = await control.select({ id: tenantDirectory.tenantId }).from(tenantDirectory).where(sql`${tenantDirectory.tenantId} = ${tenantId}`).limit(1);
  return rows.length > 0;
}

export async function shardOfTenant(control: Db, tenantId: string): Promise<ShardName | null> {
  const [row] = await control.select({ shard: tenantDirectory.shard }).from(tenantDirectory).where(sql`${tenantDirectory.tenantId} = ${tenantId}`).limit(1);
  return (row?.shard as ShardName | undefined) ?? null;
}

export async function insertBenchKey(db: Db, tenantId: string, role: "OPERATOR" | "ACCOUNT", userId: string | null, key: string) {
  await db.insert(apiKeys).values({
    id: newId(idPrefixes.key),
    tenantId,
    role,
    userId,
    keyHash: await sha256Hex(key),
    createdAt: nowIso(),
  });
}

/**
 * The floor for line upserts: one `insert … select … from json_each(?)` per chunk, no
 * reads, no validation, no counts, no events. Only lines of an Operation of `tenantId` are written.
 * Returns how many rows the statements touched.
 */
export async function rawUpsertLines(db: Db, tenantId: string, tenantDefaultLocale: string, operationId: string, lines: RawLine[]) {
  const now = nowIso();
  const prepared = lines.map((line) => {
    const name = line.variantName ?? {};
    return {
      v: line.variantExternalId,
      n: JSON.stringify(name),
      s: searchText(name),
      o: sortText(name, tenantDefaultLocale),
      min: line.minQuantity,
      max: line.maxQuantity,
      r: line.recommendedQuantity ?? null,
    };
  });
  const statements = jsonChunks(prepared).map(
    (chunk) => sql`insert into operation_lines (operation_id, variant_external_id, tenant_id, variant_name, variant_name_search,
        variant_name_sort, min_quantity, max_quantity, recommended_quantity, updated_at)
      select ${operationId}, json_extract(value, '$.v'), ${tenantId}, json_extract(value, '$.n'), json_extract(value, '$.s'),
        json_extract(value, '$.o'), json_extract(value, '$.min'), json_extract(value, '$.max'), json_extract(value, '$.r'), ${now}
      from json_each(${chunk})
      where exists (select 1 from operations where id = ${operationId} and tenant_id = ${tenantId})
      on conflict (operation_id, variant_external_id) do update set
        variant_name = excluded.variant_name, variant_name_search = excluded.variant_name_search,
        variant_name_sort = excluded.variant_name_sort, min_quantity = excluded.min_quantity,
        max_quantity = excluded.max_quantity, recommended_quantity = excluded.recommended_quantity,
        updated_at = excluded.updated_at`,
  );
  const results = await runBatch(db, statements);
  return results.reduce((sum, result) => sum + (result.meta?.changes ?? 0), 0);
}

/**
 * The floor of any 5000-row write: the request's JSON text bound as one parameter and upserted into a
 * table with only its key (no other index, no trigger), each row's JSON its one value. No parse in the
 * Worker, no read, nothing else in the batch. The table is the bench's own, made on first use.
 * Returns how many rows the statement touched.
 */
export async function bareUpsert(database: D1Database, tenantId: string, rowsJson: string): Promise<number> {
  const [, upserted] = await database.batch([
    database.prepare(
      "create table if not exists bench_bare_rows (tenant_id text not null, row_key text not null, row text not null, primary key (tenant_id, row_key)) without rowid",
    ),
    database
      .prepare(
        `insert into bench_bare_rows (tenant_id, row_key, row) select ?1, value ->> 'variantExternalId', value from json_each(?2) where true
          on conflict (tenant_id, row_key) do update set row = excluded.row`,
      )
      .bind(tenantId, rowsJson),
  ]);
  return upserted.meta.changes;
}

/**
 * Changes a rule's minimum and bumps the tenant's rules version in one batch, with raw SQL on the
 * binding: what a write made in another isolate looks like to this one (its rule index is not told).
 * Returns the new version, or null when the tenant has no such rule.
 */
export async function changeRuleElsewhere(database: D1Database, tenantId: string, ruleId: string, minimum: number): Promise<number | null> {
  const [changed, bumped] = await database.batch([
    database.prepare("update quota_rules set minimum = ?, updated_at = ? where tenant_id = ? and id = ?").bind(minimum, nowIso(), tenantId, ruleId),
    database
      .prepare(
        "update tenants set rules_version = rules_version + 1 where id = ? and exists (select 1 from quota_rules where tenant_id = ? and id = ?) returning rules_version as version",
      )
      .bind(tenantId, tenantId, ruleId),
  ]);
  if (!changed.meta.changes) return null;
  return (bumped.results as { version: number }[])[0]?.version ?? null;
}

/**
 * The floor for a bulk rule upsert: one statement, the rules as one JSON parameter, conflicting on
 * the scope's unique index (new rules get ids made in SQL). Returns the rows it touched.
 */
export async function rawUpsertRules(
  db: Db,
  tenantId: string,
  rules: { accountId?: string | null; supplierId?: string | null; storeId?: string | null; minimum: number }[],
): Promise<number> {
  const now = nowIso();
  const rows = JSON.stringify(rules.map((rule) => [rule.accountId ?? null, rule.supplierId ?? null, rule.storeId ?? null, rule.minimum]));
  const result = await db.$client
    .prepare(
      `insert into quota_rules (id, tenant_id, account_id, supplier_id, store_id, minimum, created_at, updated_at)
       select 'qr_' || lower(hex(randomblob(13))), ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?, ? from json_each(?) where true
       on conflict (tenant_id, coalesce(account_id, ''), coalesce(supplier_id, ''), coalesce(store_id, ''))
       do update set minimum = excluded.minimum, updated_at = excluded.updated_at`,
    )
    .bind(tenantId, now, now, rows)
    .run();
  return result.meta.changes ?? 0;
}

/**
 * Bench-only fast seeding: rules `from` … `from + count - 1` of the bench's deterministic shape,
 * generated in SQL (no JSON, no API: a tenant of 10^6 rules in seconds), then one version bump.
 * Rule i < 1000: Supplier-only (500 for every store, 500 for one store each); past that, per
 * account A<n> (n = (i - 1000) / 4): Account-only, Account+Supplier, Account+Supplier for one store, Account for one store.
 */
export async function seedRules(database: D1Database, tenantId: string, from: number, count: number): Promise<number> {
  const now = nowIso();
  const [inserted] = await database.batch([
    database
      .prepare(
        `with recursive n(i) as (select ?2 union all select i + 1 from n where i + 1 < ?3)
         insert into quota_rules (id, tenant_id, account_id, supplier_id, store_id, minimum, created_at, updated_at)
         select 'qr_' || lower(hex(randomblob(13))), ?1,
           case when i < 1000 then null else 'A' || ((i - 1000) >> 2) end,
           case when i < 1000 then 'S' || (i % 500)
                when (i - 1000) & 3 = 1 then 'S' || (((i - 1000) >> 2) % 500)
                when (i - 1000) & 3 = 2 then 'S' || ((((i - 1000) >> 2) + 1) % 500)
                else null end,
           case when i < 1000 then (case when i < 500 then null else 'st' || (i % 20) end)
                when (i - 1000) & 3 >= 2 then 'st' || (((i - 1000) >> 2) % 20)
                else null end,
           100 * (1 + (i * 7919) % 500), ?4, ?4
         from n where true
         on conflict (tenant_id, coalesce(account_id, ''), coalesce(supplier_id, ''), coalesce(store_id, '')) do nothing`,
      )
      .bind(tenantId, from, from + count, now),
    database.prepare("update tenants set rules_version = rules_version + 1 where id = ?").bind(tenantId),
  ]);
  return inserted.meta.changes ?? 0;
}

/** The shape of the bench's generated quota order facts (seedFacts). */
export interface FactSeed {
  /** Facts `from` … `from + count - 1`. */
  from: number;
  count: number;
  /** Accounts A0 … A<accounts - 1>, in turn. */
  accounts: number;
  /** The facts lie within the last `days` days before `now`. */
  days: number;
  now: string;
}

/**
 * Bench-only fast seeding of quota order facts, in the table's own format, generated in SQL (no
 * JSON, no API: a window of 10^6 orders in seconds). Fact i: account A<i mod accounts> in its store
 * st<account mod 20>, supplier S<(i / accounts) mod 5> (every 7th has none), an amount of 100–50,000
 * and a time spread over the window. The names are those of seedRules' rules, so they match them.
 */
export async function seedFacts(database: D1Database, tenantId: string, seed: FactSeed): Promise<number> {
  const seconds = seed.days * 86_400;
  const [inserted] = await database.batch([
    database
      .prepare(
        `with recursive n(i) as (select ?2 union all select i + 1 from n where i + 1 < ?3)
         insert into quota_order_facts (tenant_id, account_id, supplier_id, store_id, record_id, at, amount)
         select ?1, 'A' || (i % ?4), case when i % 7 = 0 then '' else 'S' || ((i / ?4) % 5) end, 'st' || ((i % ?4) % 20),
           'ord_bench_' || printf('%010d', i), strftime('%Y-%m-%dT%H:%M:%fZ', ?5, printf('-%d seconds', (i * 7919) % ?6)),
           100 * (1 + (i * 104729) % 500)
         from n where true`,
      )
      .bind(tenantId, seed.from, seed.from + seed.count, seed.accounts, seed.now, seconds),
  ]);
  return inserted.meta.changes ?? 0;
}

export interface HistorySeed {
  /** The Operation every set belongs to (one deleted since, as far as history cares: no row needed). */
  operationId: string;
  /** The first set's time (epoch ms) and version; each next set is `stepMs` later and one version on. */
  firstMs: number;
  stepMs: number;
  firstVersion: number;
  sets: number;
  /** Line records per set: one field updated each, as a re-PUT of the lines writes them. */
  recordsPerSet: number;
}

/** A set id at `ms`, unique by `n` (the bench makes many per millisecond): the shard's format. */
const seededSetId = (ms: number, n: number) => `${idAtTime(idPrefixes.change, ms)}${n.toString(32).toUpperCase().padStart(16, "0")}`;

/**
 * Seeds the tenant's change history in the shard's own format, in SQL: `sets` change sets of one
 * Operation, each of `recordsPerSet` line updates of one field (`{"maxQuantity":[p,n]}`): the bench's
 * tenant of millions of records, which the real archive job then moves.
 */
export async function seedHistory(database: D1Database, tenantId: string, seed: HistorySeed): Promise<number> {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < seed.sets; i++) {
    const ms = seed.firstMs + i * seed.stepMs;
    const setId = seededSetId(ms, seed.firstVersion + i);
    statements.push(
      database
        .prepare(
          "insert into change_sets (id, tenant_id, operation_id, version, actor, request_id, reason, at) values (?1, ?2, ?3, ?4, 'key:bench', ?5, null, ?6)",
        )
        .bind(setId, tenantId, seed.operationId, seed.firstVersion + i, `req-${setId.slice(-12)}`, new Date(ms).toISOString()),
      database
        .prepare(
          `with recursive n(i) as (select 0 union all select i + 1 from n where i + 1 < ?2)
           insert into change_records (set_id, resource_type, action, resource_id, ordinal, changes)
           select ?1, 'l', 'u', 'SKU-' || printf('%05d', i), i, '{"maxQuantity":[' || ((i * 7 + ?3) % 97) || ',' || ((i * 7 + ?3 + 1) % 97) || ']}'
           from n where true`,
        )
        .bind(setId, seed.recordsPerSet, seed.firstVersion + i),
    );
  }
  let records = 0;
  for (const result of await database.batch(statements)) records += result.meta.changes ?? 0;
  return records - seed.sets;
}

/** The shard's size as D1 reports it on every result. */
export async function databaseBytes(database: D1Database): Promise<number> {
  return (await database.prepare("select 1").run()).meta.size_after;
}
