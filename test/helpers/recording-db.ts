import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import type { Principal, Role } from "../../src/platform/core/principal";
import { guardD1Limits, type Db } from "../../src/platform/data/database";
import { shardNames, type ShardName } from "../../src/platform/core/shards";
import { shardOf } from "./shards";

export interface RecordedStatement {
  sql: string;
  params: unknown[];
  /** The shard the statement ran on (absent for a hand-written statement: any shard, they are built alike). */
  shard?: ShardName;
}

/**
 * A drizzle Db over a test shard (behind the production-limits guard) that records every statement
 * with its bound values, so a test can EXPLAIN exactly what the code ran. `shard` is the shard of
 * the tenant the code reads (its principal's shard).
 */
export function recordingDb(shard: ShardName): { db: Db; statements: RecordedStatement[] } {
  const statements: RecordedStatement[] = [];
  const guarded = guardD1Limits(env[shard]);
  const d1 = new Proxy(guarded, {
    get(target, prop, receiver) {
      if (prop === "prepare") {
        return (query: string) => {
          const entry: RecordedStatement = { sql: query, params: [], shard };
          statements.push(entry);
          const statement = target.prepare(query);
          return new Proxy(statement, {
            get(inner, innerProp, innerReceiver) {
              if (innerProp === "bind") {
                return (...values: unknown[]) => {
                  entry.params = values;
                  return inner.bind(...values);
                };
              }
              const value = Reflect.get(inner, innerProp, innerReceiver);
              return typeof value === "function" ? value.bind(inner) : value;
            },
          });
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: drizzle(d1) as Db, statements };
}

export interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

/** The plan of the statement on the shard it ran on (a hand-written one: on the first shard). */
export async function queryPlan(statement: RecordedStatement): Promise<PlanRow[]> {
  const shard = statement.shard ?? shardNames(env)[0];
  const { results } = await env[shard]
    .prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
    .bind(...statement.params)
    .all<PlanRow>();
  return results;
}

/** The principal a test hands to the src functions it calls directly (no key behind it), on the tenant's shard. */
export async function testPrincipal(tenantId: string, role: Role = "OPERATOR", userId: string | null = null): Promise<Principal> {
  return { tenantId, role, userId, keyId: "k", tenantDefaultLocale: "en", shard: await shardOf(tenantId) };
}
