import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppBindings } from "./context";
import { BoundedCache } from "../core/bounded-cache";
import type { Principal, Role } from "../core/principal";
import { timingSafeEqual, sha256Hex } from "../core/crypto";
import { openDb, type Db } from "../data/database";
import { newTrace, type RequestTrace } from "../data/trace";
import { ApiError } from "../core/errors";
import { violatesUnique } from "../data/constraint-errors";
import { distinctPrefix, inspectKey, isFreshlyIssued } from "../core/key-format.mjs";
import { authenticationFailure, clientAddress, refuseSpentAddress } from "./rate-limits";
import { RefreshingCache, type BackgroundRead } from "../core/refreshing-cache";
import { apiKeys, tenantDirectory } from "../data/tables";
import { findPlacement, placementColumns, readCreatedRow, rememberPlacement, toPlacement, type ControlReads } from "../data/tenancy";

const ROLES: readonly Role[] = ["OPERATOR", "ACCOUNT"];

// Key lookups are cached briefly so hot paths (quota evaluation) issue no D1 query per request;
// a revoked key stops working at once in the isolate that revoked it (forgetCachedKey) and
// within KEY_CACHE_TTL_MS on every other. A key in steady use is read again after the answer
// once its entry is 5 s old, so no request waits on the lookup.
export const KEY_CACHE_TTL_MS = 10_000;

/**
 * How long this isolate remembers a key no database had: a repeated bad key costs no query. Short,
 * and the memory is dropped whenever this isolate issues a key.
 */
export const UNKNOWN_KEY_TTL_MS = 5_000;

/** What a key grants: its tenant's placement is looked up (and cached) separately. */
interface KeyGrant {
  keyId: string;
  tenantId: string;
  role: Role;
  userId: string | null;
  /** Epoch ms from which the key answers 401; null: never. Checked on every request, cached or not. */
  expiresAtMs: number | null;
  /** The key has no prefix yet (recordDistinctPrefix): cleared once this isolate has asked for one. */
  prefixMissing: boolean;
}

// Only grants are kept here (a refresh that finds the key gone drops it); unknown keys apart.
const keys = new RefreshingCache<string, KeyGrant | null, ControlReads>(
  { maxEntries: 10_000, ttlMs: KEY_CACHE_TTL_MS, refreshAfterMs: 5_000, keep: (grant) => grant !== null },
  readKey,
);
const unknownKeys = new BoundedCache<string, true>(10_000, UNKNOWN_KEY_TTL_MS);

/** Drops a key from this isolate's cache: its next request reads the key (and its revocation) again. */
export function forgetCachedKey(keyHash: string): void {
  keys.forget(keyHash);
}

/** This isolate issued a key: it forgets every key it had found unknown. */
export function forgetUnknownKeys(): void {
  unknownKeys.clear();
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
      prefix: apiKeys.prefix,
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
  if (!row || row.revokedAt || !timingSafeEqual(row.keyHash, keyHash)) {
    unknownKeys.set(keyHash, true);
    return null;
  }
  rememberPlacement(row.tenantId, toPlacement(row), readAt);
  return {
    keyId: row.keyId,
    tenantId: row.tenantId,
    role: row.role,
    userId: row.userId,
    expiresAtMs: row.expiresAt ? Date.parse(row.expiresAt) : null,
    prefixMissing: row.prefix === null,
  };
}

/**
 * The grant of a presented key, reading as little as it can: a key whose format is wrong or whose
 * signature does not verify is refused with no query; a key remembered as unknown likewise; any
 * other is read on the nearest replica, and on the primary too only when it is a signed key issued
 * a moment ago (the replica may not have it yet). A client address past its budget of failed
 * authentications gets no query at all (429).
 */
async function findGrant(c: Context<AppBindings>, key: string, address: string | null): Promise<KeyGrant | null> {
  const inspected = await inspectKey(c.env.KEY_SIGNING_SECRET, key);
  if (inspected.format === "invalid") return null;
  const keyHash = await sha256Hex(key);
  if (unknownKeys.get(keyHash)) return null;
  if (!keys.has(keyHash)) refuseSpentAddress(address);
  const fresh = inspected.format === "signed" && isFreshlyIssued(inspected.issuedAtMs);
  return keys.get(controlReads(c, c.var.control, c.var.trace, fresh), keyHash, readAfterAnswer(c, fresh));
}

/** The control database for a request's lookups: `nearest`, and its primary when `withPrimary`. */
function controlReads(c: Context<AppBindings>, nearest: Db, trace: RequestTrace, withPrimary: boolean): ControlReads {
  return { nearest, ...(withPrimary && { primary: () => openDb(c.env, "CONTROL", "first-primary", trace) }) };
}

/** Runs a cache refresh after the answer, on control database handles of its own. */
function readAfterAnswer(c: Context<AppBindings>, withPrimary: boolean): BackgroundRead<ControlReads> {
  return (read) => {
    const trace = newTrace();
    c.executionCtx.waitUntil(read(controlReads(c, openDb(c.env, "CONTROL", "first-unconstrained", trace), trace, withPrimary)));
  };
}

/**
 * Gives a key without a prefix the shortest start of it that tells it apart from the tenant's other
 * keys, after the answer of its first use: the plain key exists nowhere else. Such keys were issued
 * before prefixes were recorded, or shared their first characters with another key of the tenant
 * (migrations/control/0002). This isolate asks once; a concurrent attempt elsewhere changes nothing
 * (the key must still have no prefix) or breaks the unique index and is dropped (the next use tries again).
 */
function recordDistinctPrefix(c: Context<AppBindings>, grant: KeyGrant, key: string): void {
  grant.prefixMissing = false;
  const control = openDb(c.env, "CONTROL", "first-primary", newTrace());
  const record = async () => {
    const others = await control
      .select({ prefix: apiKeys.prefix })
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, grant.tenantId), isNotNull(apiKeys.prefix)));
    const prefix = distinctPrefix(
      key,
      others.flatMap((other) => (other.prefix === null ? [] : [other.prefix])),
    );
    if (prefix === null) return;
    await control
      .update(apiKeys)
      .set({ prefix })
      .where(and(eq(apiKeys.id, grant.keyId), isNull(apiKeys.prefix)));
  };
  c.executionCtx.waitUntil(
    record().catch((error) => {
      if (!violatesUnique(error, apiKeys.tenantId, apiKeys.prefix)) throw error;
    }),
  );
}

/** svc-client + svc-api-key → the principal; locale and store headers → the request scope. */
export const authenticate = createMiddleware<AppBindings>(async (c, next) => {
  const address = clientAddress(c.req.raw);
  // Every failure counts against the client address's budget: past it, 429 instead of 401.
  const failure = (detail: string) => authenticationFailure(c.env, address, new ApiError("unauthorized", detail));
  const client = c.req.header("svc-client");
  if (!client || !ROLES.includes(client as Role)) throw await failure("svc-client must be OPERATOR or ACCOUNT.");
  const key = c.req.header("svc-api-key");
  if (!key) throw await failure("svc-api-key is missing.");
  const grant = await findGrant(c, key, address);
  if (!grant || (grant.expiresAtMs !== null && grant.expiresAtMs <= Date.now())) {
    throw await failure("svc-api-key is not a valid key (unknown, revoked or expired).");
  }
  if (grant.role !== client) {
    throw new ApiError("client_mismatch", `svc-client is ${client} but the key's role is ${grant.role}.`);
  }
  // A tenant created a moment ago elsewhere may be missing from the replica: its placement may ask the primary.
  const placement = await findPlacement(controlReads(c, c.var.control, c.var.trace, true), grant.tenantId, readAfterAnswer(c, true));
  // A key's tenant always has a directory entry (the key references it): none means it was removed.
  if (!placement) throw await failure("svc-api-key is not a valid key (its tenant no longer exists).");
  const principal: Principal = {
    tenantId: grant.tenantId,
    role: grant.role,
    userId: grant.userId,
    keyId: grant.keyId,
    tenantDefaultLocale: placement.defaultLocale,
    shard: placement.shard,
  };
  if (grant.prefixMissing) recordDistinctPrefix(c, grant, key);
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
