import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { AppBindings } from "./app";
import type { Principal, Role } from "./principal";
import { timingSafeEqual, sha256Hex } from "./crypto";
import type { Db } from "./db";
import { ApiError } from "./errors";
import { BoundedCache } from "./bounded-cache";
import { apiKeys, tenants } from "./tables";

const ROLES: readonly Role[] = ["OPERATOR", "ACCOUNT"];

// Key lookups are cached briefly so hot paths (quota evaluation) issue no D1 query per request;
// a revoked key therefore stops working within KEY_CACHE_TTL_MS on every isolate.
export const KEY_CACHE_TTL_MS = 10_000;
const principalCache = new BoundedCache<string, Principal | null>(10_000, KEY_CACHE_TTL_MS);

async function findPrincipal(db: Db, keyHash: string): Promise<Principal | null> {
  const cached = principalCache.get(keyHash);
  if (cached !== undefined) return cached;
  const rows = await db
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      tenantId: apiKeys.tenantId,
      role: apiKeys.role,
      userId: apiKeys.userId,
      revokedAt: apiKeys.revokedAt,
      tenantDefaultLocale: tenants.defaultLocale,
    })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  const row = rows[0];
  const principal =
    row && !row.revokedAt && timingSafeEqual(row.keyHash, keyHash)
      ? { tenantId: row.tenantId, role: row.role, userId: row.userId, keyId: row.keyId, tenantDefaultLocale: row.tenantDefaultLocale }
      : null;
  principalCache.set(keyHash, principal);
  return principal;
}

/** svc-client + svc-api-key → the principal; locale and store headers → the request scope. */
export const authenticate = createMiddleware<AppBindings>(async (c, next) => {
  const client = c.req.header("svc-client");
  if (!client || !ROLES.includes(client as Role)) {
    throw new ApiError("unauthorized", "svc-client must be OPERATOR or ACCOUNT.");
  }
  const key = c.req.header("svc-api-key");
  if (!key) throw new ApiError("unauthorized", "svc-api-key is missing.");
  const principal = await findPrincipal(c.var.db, await sha256Hex(key));
  if (!principal) throw new ApiError("unauthorized", "svc-api-key is not a valid key.");
  if (principal.role !== client) {
    throw new ApiError("client_mismatch", `svc-client is ${client} but the key's role is ${principal.role}.`);
  }
  c.set("principal", principal);
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
