import { and, eq, sql } from "drizzle-orm";
import { bookmarkOf, type Db } from "../platform/data/database";
import { jsonTextChunks, sqlText } from "../platform/data/sql";
import type { ShardName } from "../platform/core/shards";
import { listPage, type ListContext } from "../platform/data/pagination";
import { quotaRules } from "./tables";
import { tenants } from "../platform/data/tables";
import type { RuleHead, RuleSource } from "./rule-index-cache";
import { indexedRuleOf, levelKeysOf, probesOf, type IndexedRule, type QuotaEnforcement, type RuleSnapshot, type Scope } from "../common/rule-index";
import { type ListRulesQuery, ruleList, type RuleRepresentation } from "./schemas";

export type RuleRow = typeof quotaRules.$inferSelect;

export function toRuleRepresentation(row: RuleRow): RuleRepresentation {
  return {
    id: row.id,
    accountId: row.accountId,
    supplierId: row.supplierId,
    storeId: row.storeId,
    minimum: row.minimum,
    enforcement: row.enforcement,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function findRule(db: Db, tenantId: string, ruleId: string): Promise<RuleRow | undefined> {
  const [row] = await db
    .select()
    .from(quotaRules)
    .where(and(eq(quotaRules.tenantId, tenantId), eq(quotaRules.id, ruleId)))
    .limit(1);
  return row;
}

export async function listRules({ db, secret, principal }: ListContext, query: ListRulesQuery) {
  const { tenantId } = principal;
  const filters = query;
  return listPage({
    definition: ruleList,
    secret,
    scope: { tenant: tenantId },
    query,
    filters: [
      eq(quotaRules.tenantId, tenantId),
      filters.accountId !== undefined ? eq(quotaRules.accountId, filters.accountId) : undefined,
      filters.supplierId !== undefined ? eq(quotaRules.supplierId, filters.supplierId) : undefined,
      filters.storeId !== undefined ? eq(quotaRules.storeId, filters.storeId) : undefined,
    ],
    run: ({ where, orderBy, limit: take, cursorColumns }) =>
      db
        .select({ row: quotaRules, ...cursorColumns })
        .from(quotaRules)
        .where(where)
        .orderBy(...orderBy)
        .limit(take),
  });
}

export async function getQuotaDefault(db: Db, tenantId: string): Promise<{ minimum: number; enforcement: QuotaEnforcement }> {
  const [row] = await db
    .select({ minimum: tenants.quotaDefaultMinimum, enforcement: tenants.quotaDefaultEnforcement })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row ?? { minimum: 0, enforcement: "BLOCK" };
}

const byId = sql`${tenants.id} = ${sql.raw("?1")}`;
const HEAD_SQL = sqlText(
  sql`select ${tenants.rulesVersion} as version, ${tenants.quotaDefaultMinimum} as defaultMinimum, ${tenants.quotaDefaultEnforcement} as defaultEnforcement from ${tenants} where ${byId}`,
);

/**
 * Rules are read packed as JSON texts: far cheaper to carry and decode than one result row per rule
 * (about half the time for 10,000 rules). Grouping by rowid ranges keeps each text to at most 256
 * rules, so even rules with long keys stay under D1's 2 MB limit on one value.
 */
const r = quotaRules;
const packedRules = sql`json_group_array(json_array(${r.id}, ${r.accountId}, ${r.supplierId}, ${r.storeId}, ${r.minimum}, ${r.enforcement})) as rules`;
const byTenant = sql`${r.tenantId} = ${sql.raw("?1")}`;
/** The scope as the unique quota_rules_scope index holds it: equality on these uses the index. */
const scopeColumns = [sql`coalesce(${r.accountId}, '')`, sql`coalesce(${r.supplierId}, '')`, sql`coalesce(${r.storeId}, '')`];
const probeField = (n: number) => sql.raw(`coalesce(probe.value ->> ${n}, '')`);
/*
 * Each read below walks its JSON array (CROSS JOIN keeps it the outer loop, whatever the planner's
 * statistics) and looks each entry up by an index: its cost is the batch's, not the tenant's.
 * test/quotas/rule-reads-plan.test.ts holds their plans.
 */
/** Rules whose scope is one of the JSON array ?2 of [accountId, supplierId, storeId] (null: unset). */
const SCOPES_SQL = sqlText(
  sql`select ${packedRules} from json_each(${sql.raw("?2")}) as probe cross join ${r}
    on ${byTenant} and ${scopeColumns[0]} = ${probeField(0)} and ${scopeColumns[1]} = ${probeField(1)} and ${scopeColumns[2]} = ${probeField(2)}
    group by ${r}.rowid >> 8`,
);
/** Rules of every store whose (accountId, supplierId) is one of the JSON array ?2 of pairs. */
const LEVEL_KEYS_SQL = sqlText(
  sql`select ${packedRules} from json_each(${sql.raw("?2")}) as probe cross join ${r}
    on ${byTenant} and ${scopeColumns[0]} = ${probeField(0)} and ${scopeColumns[1]} = ${probeField(1)}
    group by ${r}.rowid >> 8`,
);
/** Rules whose id is one of the JSON array ?2. */
const IDS_SQL = sqlText(
  sql`select ${packedRules} from json_each(${sql.raw("?2")}) as probe cross join ${r} on ${r.id} = probe.value and ${byTenant} group by ${r}.rowid >> 8`,
);
/** The tenant's rules counted no further than ?2: an index-only count, however large the tenant. */
const rulesUpTo = sql`(select count(*) from (select 1 from ${r} where ${byTenant} limit ${sql.raw("?2")}))`;
const RULE_COUNT_SQL = sqlText(sql`select ${rulesUpTo} as count`);
/**
 * Every rule of the tenant when it has fewer than ?2, else none: a large tenant's rules are not read
 * only to find it is large (a LIMIT of 0 reads no row; a condition in WHERE would still scan them).
 */
const WHOLE_TENANT_SQL = sqlText(
  sql`select json_group_array(json_array(id, account_id, supplier_id, store_id, minimum, enforcement)) as rules
    from (select ${r}.rowid as rid, ${r.id} as id, ${r.accountId} as account_id, ${r.supplierId} as supplier_id, ${r.storeId} as store_id, ${r.minimum} as minimum,
        ${r.enforcement} as enforcement
      from ${r} where ${byTenant} limit case when ${rulesUpTo} < ${sql.raw("?2")} then ${sql.raw("?2")} else 0 end)
    group by rid >> 8`,
);

/** The statements reading the tenant whole if it has at most `wholeUpTo` rules (wholeTenantOf reads their results). */
function wholeTenantReads(database: D1Database | D1DatabaseSession, tenantId: string, wholeUpTo: number): D1PreparedStatement[] {
  return [database.prepare(RULE_COUNT_SQL).bind(tenantId, wholeUpTo + 1), database.prepare(WHOLE_TENANT_SQL).bind(tenantId, wholeUpTo + 1)];
}

/** Every rule of the tenant from wholeTenantReads' results; null when it has more than `wholeUpTo`. */
function wholeTenantOf([count, ...rules]: D1Result[], wholeUpTo: number): IndexedRule[] | null {
  return (count.results as { count: number }[])[0].count <= wholeUpTo ? unpackRules(rules) : null;
}

type PackedRule = [id: string, accountId: string | null, supplierId: string | null, storeId: string | null, minimum: number, enforcement: QuotaEnforcement];

function unpackRules(results: D1Result[]): IndexedRule[] {
  const rules: IndexedRule[] = [];
  for (const result of results) {
    for (const chunk of result.results as { rules: string }[]) {
      for (const [id, accountId, supplierId, storeId, minimum, enforcement] of JSON.parse(chunk.rules) as PackedRule[]) {
        rules.push(indexedRuleOf({ id, accountId, supplierId, storeId, minimum, enforcement }));
      }
    }
  }
  return rules;
}

function headOf(result: D1Result): RuleHead {
  const head = (result.results as RuleHead[])[0];
  return { version: head?.version ?? -1, defaultMinimum: head?.defaultMinimum ?? 0, defaultEnforcement: head?.defaultEnforcement ?? "BLOCK" };
}

function uniqueJson(values: readonly unknown[]): string[] {
  return jsonTextChunks([...new Set(values.map((value) => JSON.stringify(value)))]);
}

/**
 * Reads, as one batch (one transaction, one round trip): the tenant's head, then `statements`'
 * rules (each bound to the tenant and one JSON chunk of `values`). The head matches the rules read.
 */
async function readWithHead(
  database: D1Database | D1DatabaseSession,
  tenantId: string,
  statements: { text: string; values: readonly unknown[] }[],
  extra: D1PreparedStatement[] = [],
) {
  const prepared = [database.prepare(HEAD_SQL).bind(tenantId), ...extra];
  const counts: number[] = [];
  for (const { text, values } of statements) {
    const chunks = values.length ? uniqueJson(values) : [];
    counts.push(chunks.length);
    for (const chunk of chunks) prepared.push(database.prepare(text).bind(tenantId, chunk));
  }
  const results = await database.batch(prepared);
  let at = 1 + extra.length;
  const rules = counts.map((count) => {
    const start = at;
    at += count;
    return unpackRules(results.slice(start, at));
  });
  return { head: headOf(results[0]), extra: results.slice(1, 1 + extra.length), rules };
}

/** The tenant's rules of the scopes sent, with the version they were read at: what a bulk upsert plans against. */
export async function readRulesByScope(db: Db, tenantId: string, scopes: readonly Scope[]) {
  const { head, rules } = await readWithHead(db.$client, tenantId, [{ text: SCOPES_SQL, values: scopes }]);
  return { version: head.version, rules: rules[0] };
}

/** The tenant's rules among `ids`, with the version they were read at: what a bulk delete plans against. */
export async function readRulesById(db: Db, tenantId: string, ids: readonly string[]) {
  const { head, rules } = await readWithHead(db.$client, tenantId, [{ text: IDS_SQL, values: ids }]);
  return { version: head.version, rules: rules[0] };
}

/**
 * What an impact replay plans against, as one batch (one consistent read): the tenant's head, the
 * rules named by id (replaced or deleted) and at the scopes named (created or replaced onto), and
 * the whole tenant when it has at most `wholeUpTo` rules (null: it has more).
 */
export async function readRulesForChanges(db: Db, tenantId: string, named: { ids: readonly string[]; scopes: readonly Scope[]; wholeUpTo: number }) {
  const database = db.$client;
  const { head, extra, rules } = await readWithHead(
    database,
    tenantId,
    [
      { text: IDS_SQL, values: named.ids },
      { text: SCOPES_SQL, values: named.scopes },
    ],
    wholeTenantReads(database, tenantId, named.wholeUpTo),
  );
  return { head, whole: wholeTenantOf(extra, named.wholeUpTo), byId: rules[0], atScopes: rules[1] };
}

/**
 * The rule cache's reads, as raw statements on the session: the version check is the only read a
 * warm evaluation may make; a load reads the rules an order can match by the scope index (and a
 * small tenant whole). Each carries the bookmark it was read at.
 */
export function d1RuleSource(db: Db, shard: ShardName): RuleSource {
  const database = db.$client;
  return {
    origin: shard,
    async currentHead(tenantId) {
      return headOf(await database.prepare(HEAD_SQL).bind(tenantId).run());
    },
    async load(tenantId, { targets, wholeUpTo }) {
      const whole = wholeUpTo === null ? [] : wholeTenantReads(database, tenantId, wholeUpTo);
      const { head, extra, rules } = await readWithHead(database, tenantId, [{ text: SCOPES_SQL, values: targets.flatMap(probesOf) }], whole);
      return { ...head, whole: wholeUpTo === null ? null : wholeTenantOf(extra, wholeUpTo), matching: rules[0], bookmark: bookmarkOf(db), origin: shard };
    },
    async loadGroups(tenantId, targets): Promise<RuleSnapshot> {
      const { head, rules } = await readWithHead(database, tenantId, [{ text: LEVEL_KEYS_SQL, values: targets.flatMap(levelKeysOf) }]);
      return { ...head, rules: rules[0], bookmark: bookmarkOf(db), origin: shard };
    },
  };
}
