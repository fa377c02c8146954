import { eq, sql } from "drizzle-orm";
import * as z from "zod";
import { ApiError } from "../../platform/core/errors";
import { changeOf, changeStatements, recordedFields, recordsOf, type Writer } from "../../platform/data/changes";
import { isWriteGuardFailure } from "../../platform/data/constraint-errors";
import type { Db } from "../../platform/data/database";
import { runBatch, writeGuard } from "../../platform/data/sql";
import { tenants } from "../../platform/data/tables";
import { HOT_WINDOW_DAYS, MIN_RETENTION_YEARS } from "./job";

/*
 * The tenant's history retention: how many years its change records are kept (at least 3), or
 * (null, the default) until the tenant is deleted. The archive job enforces it, removing archived
 * objects whose every record is older (src/history/archive/job.ts).
 */

/** The longest retention a tenant may set short of keeping everything (null). */
const MAX_RETENTION_YEARS = 100;

export const historySettingsBody = z
  .strictObject({
    retentionYears: z
      .number()
      .int()
      .min(MIN_RETENTION_YEARS)
      .max(MAX_RETENTION_YEARS)
      .nullable()
      .describe(`${MIN_RETENTION_YEARS}–${MAX_RETENTION_YEARS} years; null: until the tenant is deleted.`),
  })
  .meta({ id: "HistorySettingsWrite", examples: [{ retentionYears: 5 }] });
export type HistorySettings = z.output<typeof historySettingsBody>;

export const historySettingsRepresentation = z
  .object({
    retentionYears: z.number().int().nullable().describe("Years records are kept; null: until the tenant is deleted."),
    hotWindowDays: z.number().int().describe("Days before a record moves to the archive."),
  })
  .meta({ id: "HistorySettings", examples: [{ retentionYears: 5, hotWindowDays: HOT_WINDOW_DAYS }] });

export async function getHistorySettings(db: Db, tenantId: string): Promise<z.output<typeof historySettingsRepresentation>> {
  const [row] = await db.select({ retentionYears: tenants.historyRetentionYears }).from(tenants).where(eq(tenants.id, tenantId));
  return { retentionYears: row?.retentionYears ?? null, hotWindowDays: HOT_WINDOW_DAYS };
}

/** The setting as history records it: resource settings, id "history". */
const SETTINGS_FIELDS = recordedFields<HistorySettings>(["retentionYears"]);

/** A setting write that lost to another, read again this many times before 412 version_mismatch. */
const SETTINGS_ATTEMPTS = 5;

/**
 * Sets the tenant's retention: one batch that re-checks the value it was computed from (so its change
 * record says what it really was), changes it and records the change. Setting what is already
 * there writes nothing.
 */
export async function setHistorySettings(writer: Writer, settings: HistorySettings): Promise<void> {
  const { db, principal, author } = writer;
  const { tenantId } = principal;
  for (let attempt = 1; ; attempt++) {
    const previous = { retentionYears: (await getHistorySettings(db, tenantId)).retentionYears };
    const record = changeOf("settings", "history", previous, settings, SETTINGS_FIELDS);
    if (!record) return;
    try {
      await runBatch(db, [
        writeGuard(sql`exists (select 1 from ${tenants} where ${tenants.id} = ${tenantId} and ${tenants.historyRetentionYears} is ${previous.retentionYears})`),
        db.update(tenants).set({ historyRetentionYears: settings.retentionYears }).where(eq(tenants.id, tenantId)),
        ...changeStatements(db, { tenantId, author, records: recordsOf([record]) }),
      ]);
      return;
    } catch (error) {
      if (!isWriteGuardFailure(error)) throw error;
      if (attempt >= SETTINGS_ATTEMPTS) throw new ApiError("version_mismatch", "The history setting kept changing while this request ran; retry.");
    }
  }
}
