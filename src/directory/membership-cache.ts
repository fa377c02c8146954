import { and, eq } from "drizzle-orm";
import { BoundedCache } from "../platform/core/bounded-cache";
import { RefreshingCache, type BackgroundRead } from "../platform/core/refreshing-cache";
import type { Db } from "../platform/data/database";
import { accountUsers } from "./tables";

/*
 * The accounts each ACCOUNT key's user belongs to, in isolate memory, as keys are (platform/http/auth.ts):
 * an evaluation on a warm isolate checks its accounts without a D1 read. A directory write forgets its
 * tenant's memberships at once in the isolate that made it; elsewhere they are read again within
 * MEMBERSHIP_TTL_MS, the bound a revoked key has too. Plain data only: no request awaits another's read.
 */

export const MEMBERSHIP_TTL_MS = 10_000;
/** A user of more accounts than this is not cached: its checks read the accounts they name. */
const MAX_CACHED_ACCOUNTS = 1_000;

/** When this isolate last saw each tenant's directory change: a part of every cached entry's key. */
const directoryChangedAt = new BoundedCache<string, number>(10_000, MEMBERSHIP_TTL_MS);
const cacheKey = (tenantId: string, userId: string) => `${tenantId}\u0000${directoryChangedAt.get(tenantId) ?? 0}\u0000${userId}`;

const memberships = new RefreshingCache<string, readonly string[] | null, Db>(
  { maxEntries: 10_000, ttlMs: MEMBERSHIP_TTL_MS, refreshAfterMs: MEMBERSHIP_TTL_MS / 2, keep: (accounts) => accounts !== null },
  async (db, key) => {
    const [tenantId, , userId] = key.split("\u0000");
    const rows = await db
      .select({ accountId: accountUsers.accountId })
      .from(accountUsers)
      .where(and(eq(accountUsers.tenantId, tenantId), eq(accountUsers.userId, userId)))
      .limit(MAX_CACHED_ACCOUNTS + 1);
    return rows.length > MAX_CACHED_ACCOUNTS ? null : rows.map((row) => row.accountId);
  },
);

/** Every account `userId` belongs to, from the cache or read once; null: too many to cache (ask per account). */
export async function cachedAccountsOfUser(db: Db, tenantId: string, userId: string, inBackground: BackgroundRead<Db>): Promise<ReadonlySet<string> | null> {
  const accounts = await memberships.get(db, cacheKey(tenantId, userId), inBackground);
  return accounts && new Set(accounts);
}

/** The tenant's directory changed: this isolate reads its users' accounts again. */
export function forgetMemberships(tenantId: string): void {
  directoryChangedAt.set(tenantId, Date.now());
}
