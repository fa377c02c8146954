import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import type { Principal, Role } from "../../src/platform/principal";
import { guardD1Limits, type Db } from "../../src/platform/db";

export interface RecordedStatement {
  sql: string;
  params: unknown[];
}

/**
 * A drizzle Db over the test D1 (behind the production-limits guard) that records every statement
 * with its bound values, so a test can EXPLAIN exactly what the code ran.
 */
export function recordingDb(): { db: Db; statements: RecordedStatement[] } {
  const statements: RecordedStatement[] = [];
  const guarded = guardD1Limits(env.DB);
  const d1 = new Proxy(guarded, {
    get(target, prop, receiver) {
      if (prop === "prepare") {
        return (query: string) => {
          const entry: RecordedStatement = { sql: query, params: [] };
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

export async function queryPlan(statement: RecordedStatement): Promise<PlanRow[]> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
    .bind(...statement.params)
    .all<PlanRow>();
  return results;
}

/** The principal a test hands to the src functions it calls directly (no key behind it). */
export function testPrincipal(tenantId: string, role: Role = "OPERATOR", userId: string | null = null): Principal {
  return { tenantId, role, userId, keyId: "k", tenantDefaultLocale: "en" };
}
