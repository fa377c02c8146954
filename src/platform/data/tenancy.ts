import { eq, notInArray, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "./database";
import { d1ErrorText } from "./constraint-errors";
import { isShardName, type ShardName } from "../core/shards";
import { ApiError } from "../core/errors";
import { RefreshingCache, type BackgroundRead } from "../core/refreshing-cache";
import { tenantDirectory, tenantFences } from "./tables";

/**
 * Where a tenant's data lives. The control database's tenant directory is the record; every read,
 * Durable Object command and rule index of the tenant runs against its shard only.
 */
export interface TenantPlacement {
  shard: ShardName;
  /** MOVING: a move is copying the tenant to another shard; its writes answer 503 tenant_moving. */
  state: "ACTIVE" | "MOVING";
  defaultLocale: string;
}

/** How long a placement is kept per isolate: a move waits this long before deleting the old rows. */
export const PLACEMENT_CACHE_TTL_MS = 10_000;

/**
 * The control database as a request's authentication reads it: the nearest replica first, and the
 * primary for a row the replica may not have yet (a key or tenant created a moment ago elsewhere).
 * No primary: only the replica is read (a row that cannot be that new).
 */
export interface ControlReads {
  nearest: Db;
  primary?: () => Db;
}

/** The row `read` finds on the nearest replica, else on the primary when there is one (undefined: none has it). */
export async function readCreatedRow<Row>(control: ControlReads, read: (db: Db) => Promise<Row | undefined>): Promise<Row | undefined> {
  const found = await read(control.nearest);
  return found !== undefined || !control.primary ? found : read(control.primary());
}

const placements = new RefreshingCache<string, TenantPlacement | null, ControlReads>(
  { maxEntries: 10_000, ttlMs: PLACEMENT_CACHE_TTL_MS, refreshAfterMs: 5_000 },
  readPlacement,
);

export const placementColumns = {
  shard: tenantDirectory.shard,
  state: tenantDirectory.state,
  defaultLocale: tenantDirectory.defaultLocale,
};

/** The tenant's placement as the control database has it now (no cache): null when it has none. */
export async function readPlacement(control: ControlReads, tenantId: string): Promise<TenantPlacement | null> {
  const row = await readCreatedRow(
    control,
    async (db) => (await db.select(placementColumns).from(tenantDirectory).where(eq(tenantDirectory.tenantId, tenantId)).limit(1))[0],
  );
  return row ? toPlacement(row) : null;
}

export function toPlacement(row: { shard: string; state: "ACTIVE" | "MOVING"; defaultLocale: string }): TenantPlacement {
  if (!isShardName(row.shard)) throw new Error(`tenant directory names "${row.shard}", which is not a shard binding name`);
  return { shard: row.shard, state: row.state, defaultLocale: row.defaultLocale };
}

/** The tenant's placement, from this isolate's cache (read again in the background once 5 s old). */
export function findPlacement(control: ControlReads, tenantId: string, inBackground: BackgroundRead<ControlReads>): Promise<TenantPlacement | null> {
  return placements.get(control, tenantId, inBackground);
}

/** Keeps a placement read together with a key (one query for both). */
export function rememberPlacement(tenantId: string, placement: TenantPlacement, readAt: number): void {
  placements.remember(tenantId, placement, readAt);
}

/** This isolate reads the tenant's placement again on its next request (a move changed it). */
export function forgetPlacement(tenantId: string): void {
  placements.forget(tenantId);
}

/** Seconds a client should wait before retrying a write refused by a move: its fence lasts at most 2 s (src/tenants/mover.ts). */
export const TENANT_MOVING_RETRY_SECONDS = 1;

export function tenantMovingError(): ApiError {
  return new ApiError(
    "tenant_moving",
    `This tenant's data is switching to another database; reads keep working, writes resume within 2 s. Retry in ${TENANT_MOVING_RETRY_SECONDS} s.`,
    { retryAfter: TENANT_MOVING_RETRY_SECONDS },
    { "retry-after": String(TENANT_MOVING_RETRY_SECONDS) },
  );
}

/** Whether a D1 failure is a shard's move fence refusing a write (migrations/tenant/0010_shards.sql). */
export function isTenantMovingFailure(error: unknown): boolean {
  return d1ErrorText(error).includes("tenant_moving");
}

/** Rows of tenants no move has fenced on this shard: what a shard's sweeps may work on (a move's target shard takes over). */
export function notFenced(db: Db, tenantColumn: SQLiteColumn): SQL {
  return notInArray(tenantColumn, db.select({ tenantId: tenantFences.tenantId }).from(tenantFences));
}
