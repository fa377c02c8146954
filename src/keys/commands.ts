import { and, eq, isNull, sql } from "drizzle-orm";
import { forgetCachedKey } from "../platform/auth";
import { randomSecret, sha256Hex } from "../platform/crypto";
import { isWriteGuardFailure, runBatch, writeGuard, type Db } from "../platform/db";
import { ApiError } from "../platform/errors";
import { appendEvent, type EventType } from "../platform/events";
import { idPrefixes, newId } from "../platform/ids";
import { actorOf, type Principal } from "../platform/principal";
import { apiKeys } from "../platform/tables";
import { nowIso } from "../platform/time";
import { findKey, toKeyRepresentation, type KeyRow } from "./queries";
import type { CreateKeyBody } from "./schemas";

/** How many leading characters of a key its representation shows. */
export const KEY_PREFIX_LENGTH = 8;

function keyEvent(db: Db, principal: Principal, type: EventType, row: KeyRow) {
  return appendEvent(db, { tenantId: principal.tenantId, type, actor: actorOf(principal), data: { key: toKeyRepresentation(row) } });
}

/** A new key of the caller's tenant: only its SHA-256 is stored; the plain key is returned this once. */
export async function createKey(db: Db, principal: Principal, body: CreateKeyBody): Promise<{ row: KeyRow; key: string }> {
  const key = `sk_${randomSecret(32)}`;
  const row: KeyRow = {
    id: newId(idPrefixes.key),
    tenantId: principal.tenantId,
    role: body.role,
    userId: body.role === "ACCOUNT" ? (body.userId ?? null) : null,
    keyHash: await sha256Hex(key),
    name: body.name ?? null,
    prefix: key.slice(0, KEY_PREFIX_LENGTH),
    expiresAt: body.expiresAt ?? null,
    revokedAt: null,
    createdAt: nowIso(),
  };
  await runBatch(db, [db.insert(apiKeys).values(row), keyEvent(db, principal, "key.created", row)]);
  return { row, key };
}

/**
 * Revokes a key of the caller's tenant (any key, the caller's own included). This isolate forgets it
 * at once; others within their key cache's lifetime. Revoking a revoked key changes nothing.
 */
export async function revokeKey(db: Db, principal: Principal, keyId: string): Promise<void> {
  const row = await findKey(db, principal.tenantId, keyId);
  if (!row) throw new ApiError("not_found", `Key ${keyId} not found.`);
  if (!row.revokedAt) {
    const revoked: KeyRow = { ...row, revokedAt: nowIso() };
    const stillActive = and(eq(apiKeys.tenantId, principal.tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt));
    try {
      await runBatch(db, [
        // Two racing revocations: the second finds the key revoked and records no second event.
        writeGuard(sql`exists (select 1 from ${apiKeys} where ${stillActive})`),
        db.update(apiKeys).set({ revokedAt: revoked.revokedAt }).where(stillActive),
        keyEvent(db, principal, "key.revoked", revoked),
      ]);
    } catch (error) {
      if (!isWriteGuardFailure(error)) throw error;
    }
  }
  forgetCachedKey(row.keyHash);
}
