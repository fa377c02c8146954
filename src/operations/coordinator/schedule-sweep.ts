import { and, isNotNull, lte, or } from "drizzle-orm";
import { primaryDb } from "../../platform/data/database";
import type { Env } from "../../platform/core/env";
import { shardNames } from "../../platform/core/shards";
import { operations } from "../tables";
import { notFenced } from "../../platform/data/tenancy";
import { toIsoSeconds } from "../../platform/core/time";
import { operationStub } from "./runner";

/**
 * A scheduled time this far past with the time still set: its object should have run it (a run,
 * even a refused one, clears the time; a failing one keeps an alarm for its next attempt).
 */
export const SCHEDULE_OVERDUE_AFTER_MS = 60_000;
/** Operations looked at per shard and sweep: far more than ever miss their time together. */
const SWEEP_LIMIT = 500;

/**
 * The schedule's safety net, run by the every-minute cron: every Operation whose scheduled time is
 * overdue has its object asked to arm itself again from D1. That object lost its alarm — the arm
 * after a create failed, or the tenant was moving when the alarm rang — or gave up recording a
 * failure; an object with an alarm still set is left alone. Tenants being moved are skipped: the
 * sweep of the shard they land on takes over.
 */
export async function sweepSchedules(env: Env, now = Date.now()): Promise<{ overdue: number; armed: number }> {
  const overdueAt = toIsoSeconds(now - SCHEDULE_OVERDUE_AFTER_MS);
  let overdue = 0;
  let armed = 0;
  for (const shard of shardNames(env)) {
    const db = primaryDb(env, shard);
    const rows = await db
      .select({ id: operations.id, tenantId: operations.tenantId })
      .from(operations)
      .where(
        and(
          // The partial index operations_scheduled (migration 0015) holds only these rows.
          or(isNotNull(operations.activateAt), isNotNull(operations.deactivateAt)),
          or(lte(operations.activateAt, overdueAt), lte(operations.deactivateAt, overdueAt)),
          notFenced(db, operations.tenantId),
        ),
      )
      .limit(SWEEP_LIMIT);
    overdue += rows.length;
    const healed = await Promise.all(rows.map((row) => operationStub(env, row.id).healSchedule(row.tenantId, row.id)));
    armed += healed.filter(Boolean).length;
  }
  return { overdue, armed };
}
