import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { AppBindings } from "./app";
import type { Principal, Role } from "./principal";
import { timingSafeEqual, sha256Hex } from "./crypto";
import { openDb, type Db } from "./db";
import { newTrace, type RequestTrace } from "./trace";
import { ApiError } from "./errors";
import { RefreshingCache } from "./refreshing-cache";
import { apiKeys, tenantDirectory } from "./tables";
import { findPlacement, placementColumns, readCreatedRow, rememberPlacement, toPlacement, type ControlReads } from "./tenancy";

const ROLES: readonly Role[] = ["OPERATOR", "ACCOUNT"];

// Key lookups are cached briefly so hot paths (quota evaluation) issue no D1 query per request;
// a revoked key stops working at once in the isolate that revoked it (forgetCachedKey) and
// within KEY_CACHE_TTL_MS on every other. A key in steady use is read again after the answer
// once its entry is 5 s old, so no request waits on the lookup.
export const KEY_CACHE_TTL_MS = 10_000;

/** What a key grants: its tenant's placement is looked up (and cached) separately. */
interface KeyGrant {
  keyId: string;
  tenantId: string;
  role: Role;
  userId: string | null;
  /** Epoch ms from which the key answers 401; null: never. Checked on every request, cached or not. */
  expiresAtMs: number | null;
}

const keys = new RefreshingCache<string, KeyGrant | null, ControlReads>({ maxEntries: 10_000, ttlMs: KEY_CACHE_TTL_MS, refreshAfterMs: 5_000 }, readKey);

/** Drops a key from this isolate's cache: its next request reads the key (and its revocation) again. */
export function forgetCachedKey(keyHash: string): void {
  keys.forget(keyHash);
}

/** The key and its tenant's placement in one query of the control database. */
async function findKeyRow(control: Db, keyHash: string) {
  const [row] = await control
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      tenantId: apiKeys.tenantId,
      role: apiKeys.role,
      userId: apiKeys.userId,
      revokedAt: apiKeys.revokedAt,
      expiresAt: apiKeys.expiresAt,
      ...placementColumns,
    })
    .from(apiKeys)
    .innerJoin(tenantDirectory, eq(tenantDirectory.tenantId, apiKeys.tenantId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  return row;
}

/** A key's grant (its tenant's placement, read with it, is cached too). */
async function readKey(control: ControlReads, keyHash: string): Promise<KeyGrant | null> {
  const readAt = Date.now();
  const row = await readCreatedRow(control, (db) => findKeyRow(db, keyHash));
  if (!row || row.revokedAt || !timingSafeEqual(row.keyHash, keyHash)) return null;
  rememberPlacement(row.tenantId, toPlacement(row), readAt);
  return {
    keyId: row.keyId,
    tenantId: row.tenantId,
    role: row.role,
    userId: row.userId,
    expiresAtMs: row.expiresAt ? Date.parse(row.expiresAt) : null,
  };
}

/** svc-client + svc-api-key → the principal; locale and store headers → the request scope. */
export const authenticate = createMiddleware<AppBindings>(async (c, next) => {
  const client = c.req.header("svc-client");
  if (!client || !ROLES.includes(client as Role)) {
    throw new ApiError("unauthorized", "svc-client must be OPERATOR or ACCOUNT.");
  }
  const key = c.req.header("svc-api-key");
  if (!key) throw new ApiError("unauthorized", "svc-api-key is missing.");
  const controlReads = (nearest: Db, trace: RequestTrace): ControlReads => ({ nearest, primary: () => openDb(c.env, "CONTROL", "first-primary", trace) });
  const control = controlReads(c.var.control, c.var.trace);
  const inBackground = (read: (control: ControlReads) => Promise<unknown>) => {
    const trace = newTrace();
    c.executionCtx.waitUntil(read(controlReads(openDb(c.env, "CONTROL", "first-unconstrained", trace), trace)));
  };
  const grant = await keys.get(control, await sha256Hex(key), inBackground);
  if (!grant || (grant.expiresAtMs !== null && grant.expiresAtMs <= Date.now())) {
    throw new ApiError("unauthorized", "svc-api-key is not a valid key (unknown, revoked or expired).");
  }
  if (grant.role !== client) {
    throw new ApiError("client_mismatch", `svc-client is ${client} but the key's role is ${grant.role}.`);
  }
  const placement = await findPlacement(control, grant.tenantId, inBackground);
  // A key's tenant always has a directory entry (the key references it): none means it was removed.
  if (!placement) throw new ApiError("unauthorized", "svc-api-key is not a valid key (its tenant no longer exists).");
  const principal: Principal = {
    tenantId: grant.tenantId,
    role: grant.role,
    userId: grant.userId,
    keyId: grant.keyId,
    tenantDefaultLocale: placement.defaultLocale,
    shard: placement.shard,
  };
  c.set("principal", principal);
  c.set("placement", placement);
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
