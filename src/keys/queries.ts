import { and, eq } from "drizzle-orm";
import type { Env } from "../platform/core/env";
import { openDb, type Db } from "../platform/data/database";
import { listPage, type ListContext } from "../platform/data/pagination";
import type { RequestTrace } from "../platform/data/trace";
import { apiKeys } from "../platform/data/tables";
import { keyList, type KeyRepresentation, type ListKeysQuery } from "./schemas";

export type KeyRow = typeof apiKeys.$inferSelect;

/**
 * The keys as a request managing them sees them: the control database's primary, so a key just
 * issued or revoked is always listed as it is (key management is rare; no replica lag to explain).
 */
export function keyStore(env: Env, trace: RequestTrace): Db {
  return openDb(env, "CONTROL", "first-primary", trace);
}

export function toKeyRepresentation(row: KeyRow): KeyRepresentation {
  return {
    id: row.id,
    role: row.role,
    userId: row.userId,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
  };
}

export async function findKey(db: Db, tenantId: string, keyId: string): Promise<KeyRow | undefined> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId)))
    .limit(1);
  return row;
}

export async function listKeys({ db, secret, principal }: ListContext, query: ListKeysQuery) {
  const { tenantId } = principal;
  return listPage({
    definition: keyList,
    secret,
    scope: { tenant: tenantId },
    query,
    filters: [
      eq(apiKeys.tenantId, tenantId),
      query.role !== undefined ? eq(apiKeys.role, query.role) : undefined,
      query.userId !== undefined ? eq(apiKeys.userId, query.userId) : undefined,
    ],
    run: ({ where, orderBy, limit, cursorColumns }) =>
      db
        .select({ row: apiKeys, ...cursorColumns })
        .from(apiKeys)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit),
  });
}
