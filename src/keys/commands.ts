import { and, eq, isNull } from "drizzle-orm";
import { forgetCachedKey, forgetUnknownKeys } from "../platform/http/auth";
import { sha256Hex } from "../platform/core/crypto";
import type { Db } from "../platform/data/database";
import { violatesUnique } from "../platform/data/constraint-errors";
import { ApiError } from "../platform/core/errors";
import { appendEvent } from "../platform/data/events";
import type { EventType } from "../common/event-types";
import { idPrefixes, newId } from "../platform/core/ids";
import { keyPrefix, mintSignedKey } from "../platform/core/key-format.mjs";
import { changeOf, changeStatements, recordedFields, recordsOf, type Writer } from "../platform/data/changes";
import { runBatch } from "../platform/data/sql";
import { apiKeys } from "../platform/data/tables";
import { nowIso } from "../platform/core/time";
import { findKey, toKeyRepresentation, type KeyRow } from "./queries";
import type { CreateKeyBody } from "./schemas";

/** Issues with a fresh key when the last one's prefix was taken: two in a row is as likely as guessing 48 random bits. */
const ISSUE_ATTEMPTS = 3;

/**
 * Keys live in the control database and events in the tenant's shard: two databases, no shared
 * transaction. The key's change commits first; if its event is then refused (the shard is fenced
 * by a move, or fails), `undo` takes the change back before the failure is answered, so a refused
 * request changes nothing.
 */
async function recordKeyEvent(
  shard: Db,
  { principal, author }: Pick<Writer, "principal" | "author">,
  type: EventType,
  change: { before: KeyRow | null; after: KeyRow },
  undo: () => Promise<unknown>,
): Promise<void> {
  const { tenantId } = principal;
  try {
    await runBatch(shard, [
      appendEvent(shard, { tenantId, type, actor: author.actor, data: { key: toKeyRepresentation(change.after) } }),
      ...changeStatements(shard, { tenantId, author, records: recordsOf([changeOf("key", change.after.id, change.before, change.after, KEY_FIELDS)]) }),
    ]);
  } catch (error) {
    await undo();
    throw error;
  }
}

/** A key's fields as history records them: its hash only as "[redacted]". */
const KEY_FIELDS = recordedFields<KeyRow>(["role", "userId", "name", "prefix", "expiresAt", "revokedAt", "keyHash"], { secret: ["keyHash"] });

/** Where keys are kept (control) and where their events go (the tenant's shard). */
export interface KeyStores {
  control: Db;
  shard: Db;
}

/**
 * A new key of the caller's tenant, signed with `signingSecret` (src/platform/core/key-format.mjs): only
 * its SHA-256 is stored; the plain key is returned this once.
 */
export async function createKey(
  { control, shard }: KeyStores,
  writer: Pick<Writer, "principal" | "author">,
  body: CreateKeyBody,
  signingSecret: string,
): Promise<{ row: KeyRow; key: string }> {
  const { principal } = writer;
  const { row, key } = await insertNewKey(control, signingSecret, {
    id: newId(idPrefixes.key),
    tenantId: principal.tenantId,
    role: body.role,
    userId: body.userId ?? null,
    name: body.name ?? null,
    expiresAt: body.expiresAt ?? null,
    revokedAt: null,
    createdAt: nowIso(),
  });
  forgetUnknownKeys();
  await recordKeyEvent(shard, writer, "key.created", { before: null, after: row }, () => control.delete(apiKeys).where(eq(apiKeys.id, row.id)));
  return { row, key };
}

/**
 * Mints a key and stores its row. Its prefix is its first characters, which no other key of the
 * tenant may have (a unique index): a key whose prefix is taken is never issued, another is minted.
 */
async function insertNewKey(control: Db, signingSecret: string, fields: Omit<KeyRow, "keyHash" | "prefix">): Promise<{ row: KeyRow; key: string }> {
  for (let attempt = 1; ; attempt++) {
    const key = await mintSignedKey(signingSecret);
    const row: KeyRow = { ...fields, keyHash: await sha256Hex(key), prefix: keyPrefix(key) };
    try {
      await control.insert(apiKeys).values(row);
      return { row, key };
    } catch (error) {
      if (attempt >= ISSUE_ATTEMPTS || !violatesUnique(error, apiKeys.tenantId, apiKeys.prefix)) throw error;
    }
  }
}

/**
 * Revokes a key of the caller's tenant (any key, the caller's own included). This isolate forgets it
 * at once; others within their key cache's lifetime. Revoking a revoked key changes nothing.
 */
export async function revokeKey({ control, shard }: KeyStores, writer: Pick<Writer, "principal" | "author">, keyId: string): Promise<void> {
  const { principal } = writer;
  const row = await findKey(control, principal.tenantId, keyId);
  if (!row) throw new ApiError("not_found", `Key ${keyId} not found.`);
  if (!row.revokedAt) {
    const revoked: KeyRow = { ...row, revokedAt: nowIso() };
    const stillActive = and(eq(apiKeys.tenantId, principal.tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt));
    // Two racing revocations: only the one whose update changed the row records the event.
    const result = await control.update(apiKeys).set({ revokedAt: revoked.revokedAt }).where(stillActive);
    if (result.meta.changes) {
      await recordKeyEvent(shard, writer, "key.revoked", { before: row, after: revoked }, () =>
        control
          .update(apiKeys)
          .set({ revokedAt: null })
          .where(and(eq(apiKeys.id, keyId), eq(apiKeys.revokedAt, revoked.revokedAt!))),
      );
    }
  }
  forgetCachedKey(row.keyHash);
}
