import { t } from "../shared/i18n";

/**
 * What of an Operation's lines the console lets a person change, and why not the rest: a line's
 * bounds while it is DRAFT (the API's rule), its pool and cap per account in any status (supply
 * changes while buyers order), nothing for an ACCOUNT key.
 */
export interface LineAccess {
  /** The lines' own columns (bounds, name, pack), and new lines. */
  lines: boolean;
  /** Pool and Per account of stored lines, with accounts' caps and plans. */
  allocations: boolean;
  /** Why some or all of it is read-only (null: everything edits). */
  note: string | null;
}

export function lineAccess(status: string, operator: boolean): LineAccess {
  if (!operator) return { lines: false, allocations: false, note: t("ops.readOnlyAccount") };
  if (status === "DRAFT") return { lines: true, allocations: true, note: null };
  return {
    lines: false,
    allocations: true,
    note: t("ops.readOnlyStatus", { status }),
  };
}
