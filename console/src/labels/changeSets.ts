import type { ChangeRecord } from "../api/history";
import { fieldLabel } from "./fields";
import { type MessageKey, t } from "../shared/i18n";

/**
 * An Operation's history as people read it: one entry per change (a save of 200 lines is one entry,
 * "200 lines added", opened to its 200 records), not one row per record. The API lists records newest
 * first, a set's records side by side; a record's id is `chg_<setId>-<ordinal>`.
 */

/** One change: the records one write made, with who, when, why and the version it made. */
export interface ChangeEntry {
  id: string;
  records: ChangeRecord[];
  actor: string;
  /** The key the write was made with, when the records say it (a key issued for a user). */
  actorKeyId?: string;
  at: string;
  reason?: string;
  version?: number;
}

/** The change set a record belongs to: `chg_01AB-12` → `chg_01AB`. */
export const setIdOf = (record: Pick<ChangeRecord, "id">) => record.id.slice(0, Math.max(0, record.id.lastIndexOf("-"))) || record.id;

/**
 * The records read so far as entries, in their order. While more pages are to come (`complete`
 * false) the last set may go on in the next page: it is held back until that page is read.
 */
export function groupChangeSets(records: readonly ChangeRecord[], { complete }: { complete: boolean }): { entries: ChangeEntry[]; heldBack: number } {
  const entries: ChangeEntry[] = [];
  for (const record of records) {
    const id = setIdOf(record);
    const last = entries.at(-1);
    if (last?.id === id) last.records.push(record);
    else {
      const { actor, actorKeyId, at, reason, version } = record;
      entries.push({
        id,
        records: [record],
        actor,
        at,
        ...(actorKeyId && { actorKeyId }),
        ...(reason && { reason }),
        ...(version !== undefined && { version }),
      });
    }
  }
  if (complete || !entries.length) return { entries, heldBack: 0 };
  return { entries: entries.slice(0, -1), heldBack: entries.at(-1)!.records.length };
}

/** What each kind of record did, in words: the message of created, of updated, of deleted (each a count). */
const COUNTED: Partial<Record<ChangeRecord["resourceType"], [MessageKey, MessageKey, MessageKey]>> = {
  line: ["history.linesAdded", "history.linesChanged", "history.linesRemoved"],
  attachment: ["history.accountsAttached", "history.accountsChanged", "history.accountsDetached"],
};
const ACTIONS = ["created", "updated", "deleted"] as const;

/** What the Operation's own record says: "Operation created", "Operation changed (Status, Name)". */
function operationWords(record: ChangeRecord): string {
  if (record.action === "created") return t("history.operationCreated");
  if (record.action === "deleted") return t("history.operationDeleted");
  return t("history.operationChanged", { fields: record.changes.map((change) => fieldLabel(change.field)).join(", ") });
}

/** An approval's record: "Approved" or "Rejected". */
function decisionWords(record: ChangeRecord): string {
  const decision = record.changes.find((change) => change.field === "decision");
  const value = decision && "next" in decision ? decision.next : undefined;
  return t(value === "REJECT" ? "history.rejected" : value === "APPROVE" ? "history.approved" : "history.decisionChanged");
}

/**
 * A change in a few words: "200 lines added", "Operation changed (Name), 3 lines changed, 1 account
 * detached"; a revert "Reverted to version 2 (3 lines changed)" (`revertedTo`: the version it went back to).
 */
export function entrySummary(entry: Pick<ChangeEntry, "records">, revertedTo?: number): string {
  const parts: string[] = [];
  for (const record of entry.records) if (record.resourceType === "operation") parts.push(operationWords(record));
  for (const record of entry.records) if (record.resourceType === "approval") parts.push(decisionWords(record));
  for (const [type, messages] of Object.entries(COUNTED)) {
    ACTIONS.forEach((action, i) => {
      const count = entry.records.filter((record) => record.resourceType === type && record.action === action).length;
      if (count) parts.push(t(messages[i], { count }));
    });
  }
  const other = entry.records.filter((record) => !["operation", "approval", ...Object.keys(COUNTED)].includes(record.resourceType)).length;
  if (other) parts.push(t("history.otherRecords", { count: other }));
  const said = parts.join(", ") || t("history.nothingChanged");
  return revertedTo === undefined ? said : t("history.revertedTo", { version: revertedTo, said });
}

/** The versions reverts made (an operation.reverted event's fromVersion + 1) → the version each went back to. */
export function revertsOf(events: readonly { type: string; data?: unknown }[]): Map<number, number> {
  const made = new Map<number, number>();
  for (const event of events) {
    const data = event.data as { fromVersion?: unknown; toVersion?: unknown } | undefined;
    if (event.type === "operation.reverted" && typeof data?.fromVersion === "number" && typeof data.toVersion === "number")
      made.set(data.fromVersion + 1, data.toVersion);
  }
  return made;
}
