import { and, eq, isNotNull, isNull, lt, lte, or } from "drizzle-orm";
import { operationStub } from "../operations/coordinator/runner";
import type { Env } from "../platform/core/env";
import { logFailure } from "../platform/core/errors";
import { nowIso } from "../platform/core/time";
import { primaryDb, type Db } from "../platform/data/database";
import { runBatch } from "../platform/data/sql";
import { apiKeys, liveKeys } from "../platform/data/tables";

/** Notes that `keyId` may hold live connections to the Operation: its revocation closes them there. */
export function noteLiveKey(control: Db, keyId: string, tenantId: string, operationId: string) {
  return control
    .insert(liveKeys)
    .values({ keyId, operationId, tenantId, issuedAt: nowIso() })
    .onConflictDoUpdate({ target: [liveKeys.keyId, liveKeys.operationId], set: { issuedAt: nowIso() } });
}

/**
 * A key was revoked: the Operations it was given live connections to close them now (4001), and
 * forget it. Run after the revocation's answer; a failure is logged (its connections then stay open
 * until they drop, and no new one can open: its tickets need the key).
 */
export async function closeLiveConnectionsOf(env: Env, control: Db, keyId: string, requestId: string): Promise<void> {
  try {
    const rows = await control.select({ operationId: liveKeys.operationId }).from(liveKeys).where(eq(liveKeys.keyId, keyId));
    await Promise.all(rows.map((row) => operationStub(env, row.operationId).closeLiveKey(keyId)));
    await control.delete(liveKeys).where(eq(liveKeys.keyId, keyId));
  } catch (error) {
    logFailure(requestId, "live: closing a revoked key's connections", error);
  }
}

/** Notes looked at per sweep: far more than ever wait together. */
const SWEEP_LIMIT = 500;
/** A note this old with no connection left is forgotten: its ticket (60 s) can no longer open one. */
export const IDLE_NOTE_AFTER_MS = 5 * 60_000;

/**
 * The every-minute safety net: a key revoked (or expired) whose connections are still noted — its
 * revocation's own closing failed — has them closed now (4001) and its notes forgotten.
 */
export async function closeRevokedLiveKeys(env: Env, now = Date.now()): Promise<number> {
  const control = primaryDb(env, "CONTROL");
  const rows = await control
    .selectDistinct({ keyId: liveKeys.keyId })
    .from(liveKeys)
    .leftJoin(apiKeys, eq(apiKeys.id, liveKeys.keyId))
    .where(or(isNull(apiKeys.id), isNotNull(apiKeys.revokedAt), lte(apiKeys.expiresAt, new Date(now).toISOString())))
    .limit(SWEEP_LIMIT);
  for (const { keyId } of rows) await closeLiveConnectionsOf(env, control, keyId, `sweep:${keyId}`);
  return rows.length;
}

/**
 * Hourly housekeeping: a note whose key holds no connection on its Operation any more (the page was
 * left, or the Operation deleted) and whose ticket has expired is forgotten. A ticket issued since
 * renews the note's time, which the delete checks.
 */
export async function forgetIdleLiveKeys(env: Env, now = Date.now()): Promise<number> {
  const control = primaryDb(env, "CONTROL");
  const idleSince = new Date(now - IDLE_NOTE_AFTER_MS).toISOString();
  const rows = await control.select().from(liveKeys).where(lt(liveKeys.issuedAt, idleSince)).limit(SWEEP_LIMIT);
  const counts = await Promise.all(rows.map((row) => operationStub(env, row.operationId).liveConnectionsOf(row.keyId)));
  const idle = rows.filter((_, i) => counts[i] === 0);
  // One batch for them all, not a round trip each.
  if (idle.length) {
    const forget = (row: (typeof idle)[number]) =>
      control.delete(liveKeys).where(and(eq(liveKeys.keyId, row.keyId), eq(liveKeys.operationId, row.operationId), eq(liveKeys.issuedAt, row.issuedAt)));
    await runBatch(control, idle.map(forget));
  }
  return idle.length;
}
