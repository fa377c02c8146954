import { eq } from "drizzle-orm";
import { operationStub } from "../operations/coordinator/runner";
import type { Env } from "../platform/core/env";
import { logFailure } from "../platform/core/errors";
import { nowIso } from "../platform/core/time";
import type { Db } from "../platform/data/database";
import { liveKeys } from "../platform/data/tables";

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
