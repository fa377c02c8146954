import { and, eq, sql } from "drizzle-orm";
import type { Context } from "hono";
import type { AppBindings } from "../platform/app";
import { bookmarkOf, openDb, sqlText, type Db } from "../platform/db";
import type { ShardName } from "../platform/shards";
import { newTrace, type RequestTrace } from "../platform/trace";
import { listPage, type ListContext } from "../platform/pagination";
import { quotaRules, tenants } from "../platform/tables";
import type { BackgroundRunner, RuleSource } from "./rule-index-cache";
import type { IndexedRule, RuleSnapshot } from "./rule-index";
import { type ListRulesQuery, ruleList, type RuleRepresentation } from "./schemas";

export type RuleRow = typeof quotaRules.$inferSelect;

/** Where an evaluation reads the rule index from, and how it may check it after answering. */
export interface RuleReading {
  source: RuleSource;
  trace: RequestTrace;
  inBackground?: BackgroundRunner;
}


export function toRuleRepresentation(row: RuleRow): RuleRepresentation {
  return {
    id: row.id,
    accountId: row.accountId,
    supplierId: row.supplierId,
    storeId: row.storeId,
    minimum: row.minimum,
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

export async function getDefaultMinimum(db: Db, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ minimum: tenants.quotaDefaultMinimum })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row?.minimum ?? 0;
}

const byId = sql`${tenants.id} = ${sql.raw("?")}`;
const VERSION_SQL = sqlText(sql`select ${tenants.rulesVersion} as version from ${tenants} where ${byId}`);
const DEFAULT_SQL = sqlText(sql`select ${tenants.rulesVersion} as version, ${tenants.quotaDefaultMinimum} as defaultMinimum from ${tenants} where ${byId}`);
/**
 * The rules packed as JSON texts: far cheaper to carry and decode than one result row per rule
 * (about half the time for 10,000 rules). Grouping by rowid ranges keeps each text to at most 256
 * rules, so even rules with 200-character keys stay under D1's 2 MB limit on one value.
 */
const r = quotaRules;
const RULES_SQL = sqlText(
  sql`select json_group_array(json_array(${r.id}, ${r.accountId}, ${r.supplierId}, ${r.storeId}, ${r.minimum})) as rules
    from ${r} where ${r.tenantId} = ${sql.raw("?")} group by ${r}.rowid >> 8`,
);

type PackedRule = [id: string, accountId: string | null, supplierId: string | null, storeId: string | null, minimum: number];

/**
 * The rule index's reads, as raw statements on the session: the version check is the only read an
 * evaluation may make, the snapshot reads a whole tenant at once; neither needs the ORM's row
 * mapping. A snapshot carries the bookmark it was read at.
 */
export function d1RuleSource(db: Db, shard: ShardName): RuleSource {
  const database = db.$client;
  return {
    origin: shard,
    async currentVersion(tenantId) {
      const row = await database.prepare(VERSION_SQL).bind(tenantId).first<{ version: number }>();
      return row?.version ?? -1;
    },
    async loadSnapshot(tenantId): Promise<RuleSnapshot> {
      // One batch is one transaction: the version read matches the rules read.
      const [tenant, packed] = await database.batch([
        database.prepare(DEFAULT_SQL).bind(tenantId),
        database.prepare(RULES_SQL).bind(tenantId),
      ]);
      const head = (tenant.results as { version: number; defaultMinimum: number }[])[0];
      const rules: IndexedRule[] = [];
      for (const chunk of packed.results as { rules: string }[]) {
        for (const [id, accountId, supplierId, storeId, minimum] of JSON.parse(chunk.rules) as PackedRule[]) {
          rules.push({ id, accountId, supplierId, storeId, minimum });
        }
      }
      return { version: head?.version ?? -1, defaultMinimum: head?.defaultMinimum ?? 0, rules, bookmark: bookmarkOf(db), origin: shard };
    },
  };
}

/** How a request reads the rule index: its own session, and checks after its answer on a session of their own. */
export function ruleReadingOf(c: Context<AppBindings>): RuleReading {
  const { db, trace } = c.var;
  const { shard } = c.var.principal;
  return {
    source: d1RuleSource(db, shard),
    trace,
    inBackground: (check) => {
      const background = newTrace();
      c.executionCtx.waitUntil(check(d1RuleSource(openDb(c.env, shard, "first-unconstrained", background), shard)));
    },
  };
}
