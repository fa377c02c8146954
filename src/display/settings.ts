import { eq } from "drizzle-orm";
import { recordedFields, type Writer } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { setTenantSetting, type TenantSetting } from "../platform/data/settings";
import { tenants } from "../platform/data/tables";
import type { DisplaySettings } from "./schemas";

/** The tenant's display setting; no currency until set. */
export async function getDisplaySettings(db: Db, tenantId: string): Promise<DisplaySettings> {
  const [row] = await db.select({ currency: tenants.displayCurrency }).from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  return { currency: row?.currency ?? null };
}

/** The setting as history records it: resource settings, id "display". */
const DISPLAY_SETTING: TenantSetting<DisplaySettings> = {
  id: "display",
  what: "the display setting",
  fields: recordedFields<DisplaySettings>(["currency"]),
  read: getDisplaySettings,
  columns: (value) => ({ displayCurrency: value.currency }),
};

/** Sets the tenant's display setting (recorded as any setting is); answers it as stored. */
export async function setDisplaySettings(writer: Writer, settings: DisplaySettings): Promise<DisplaySettings> {
  await setTenantSetting(writer, DISPLAY_SETTING, settings);
  return settings;
}
