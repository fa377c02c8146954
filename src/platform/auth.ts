import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { AppBindings } from "./app";
import type { Principal, Role } from "./principal";
import { timingSafeEqual, sha256Hex } from "./crypto";
import { openDb, type Db } from "./db";
import { newTrace } from "./trace";
import { ApiError } from "./errors";
import { BoundedCache } from "./bounded-cache";
import { apiKeys, tenants } from "./tables";

const ROLES: readonly Role[] = ["OPERATOR", "ACCOUNT"];

// Key lookups are cached briefly so hot paths (quota evaluation) issue no D1 query per request;
// a revoked key stops working at once in the isolate that revoked it (forgetCachedKey) and
// within KEY_CACHE_TTL_MS on every other.
export const KEY_CACHE_TTL_MS = 10_000;
const principalCache = new BoundedCache<string, CachedKey | null>(10_000, KEY_CACHE_TTL_MS);

/**
 * A key in use is read again after the answer once its entry is this old, so under steady traffic
 * no request waits on the key's lookup; an idle key's entry still expires at KEY_CACHE_TTL_MS.
 */
const KEY_REFRESH_AFTER_MS = 5_000;

interface CachedKey {
  principal: Principal;
  /** Epoch ms from which the key answers 401; null: never. Checked on every request, cached or not. */
  expiresAtMs: number | null;
  readAt: number;
  /** A background read of this key is running (plain data: no request awaits it). */
  refreshing: boolean;
}

/** When keys were forgotten here: a read that started before must not put the key back. */
const forgottenAt = new BoundedCache<string, number>(1_000, KEY_CACHE_TTL_MS);

/** Drops a key from this isolate's cache: its next request reads the key (and its revocation) again. */
export function forgetCachedKey(keyHash: string): void {
  principalCache.delete(keyHash);
  forgottenAt.set(keyHash, Date.now());
}

type BackgroundRead = (read: (db: Db) => Promise<unknown>) => void;

async function findKey(db: Db, keyHash: string, inBackground: BackgroundRead): Promise<CachedKey | null> {
  const cached = principalCache.get(keyHash);
  if (cached === undefined) return readKey(db, keyHash);
  if (cached && !cached.refreshing && Date.now() - cached.readAt >= KEY_REFRESH_AFTER_MS) {
    cached.refreshing = true;
    inBackground((own) => readKey(own, keyHash).finally(() => (cached.refreshing = false)));
  }
  return cached;
}

async function readKey(db: Db, keyHash: string): Promise<CachedKey | null> {
  const startedAt = Date.now();
  const rows = await db
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      tenantId: apiKeys.tenantId,
      role: apiKeys.role,
      userId: apiKeys.userId,
      revokedAt: apiKeys.revokedAt,
      expiresAt: apiKeys.expiresAt,
      tenantDefaultLocale: tenants.defaultLocale,
    })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  const row = rows[0];
  const found =
    row && !row.revokedAt && timingSafeEqual(row.keyHash, keyHash)
      ? {
          principal: { tenantId: row.tenantId, role: row.role, userId: row.userId, keyId: row.keyId, tenantDefaultLocale: row.tenantDefaultLocale },
          expiresAtMs: row.expiresAt ? Date.parse(row.expiresAt) : null,
          readAt: startedAt,
          refreshing: false,
        }
      : null;
  const forgotten = forgottenAt.get(keyHash);
  if (forgotten === undefined || forgotten < startedAt) principalCache.set(keyHash, found);
  return found;
}

/** svc-client + svc-api-key → the principal; locale and store headers → the request scope. */
export const authenticate = createMiddleware<AppBindings>(async (c, next) => {
  const client = c.req.header("svc-client");
  if (!client || !ROLES.includes(client as Role)) {
    throw new ApiError("unauthorized", "svc-client must be OPERATOR or ACCOUNT.");
  }
  const key = c.req.header("svc-api-key");
  if (!key) throw new ApiError("unauthorized", "svc-api-key is missing.");
  const found = await findKey(c.var.db, await sha256Hex(key), (read) => c.executionCtx.waitUntil(read(openDb(c.env, "first-unconstrained", newTrace()))));
  if (!found || (found.expiresAtMs !== null && found.expiresAtMs <= Date.now())) {
    throw new ApiError("unauthorized", "svc-api-key is not a valid key (unknown, revoked or expired).");
  }
  const { principal } = found;
  if (principal.role !== client) {
    throw new ApiError("client_mismatch", `svc-client is ${client} but the key's role is ${principal.role}.`);
  }
  c.set("principal", principal);
  c.var.trace.tenantId = principal.tenantId;
  c.var.trace.keyId = principal.keyId;
  c.set("scope", {
    locale: c.req.header("locale")?.trim() || null,
    storeId: c.req.header("svc-store")?.trim() || null,
    storeView: c.req.header("svc-store-view")?.trim() || null,
  });
  await next();
});

export function requireRole(principal: Principal, ...roles: Role[]): void {
  if (!roles.includes(principal.role)) {
    throw new ApiError("forbidden", `This action needs a ${roles.join(" or ")} key.`);
  }
}
