import { eq } from "drizzle-orm";
import * as z from "zod";
import { recordedFields, type Writer } from "../../platform/data/changes";
import type { Db } from "../../platform/data/database";
import { setTenantSetting, type TenantSetting } from "../../platform/data/settings";
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
const RETENTION_SETTING: TenantSetting<HistorySettings> = {
  id: "history",
  what: "the history setting",
  fields: recordedFields<HistorySettings>(["retentionYears"]),
  read: async (db, tenantId) => ({ retentionYears: (await getHistorySettings(db, tenantId)).retentionYears }),
  columns: (value) => ({ historyRetentionYears: value.retentionYears }),
};

/** Sets the tenant's retention (recorded as any setting is). */
export async function setHistorySettings(writer: Writer, settings: HistorySettings): Promise<void> {
  await setTenantSetting(writer, RETENTION_SETTING, settings);
}
