import { and, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { findOperation, type OperationRow } from "../operations/aggregate";
import { operationAccounts, operationLines } from "../operations/tables";
import { ApiError } from "../platform/core/errors";
import { typeCode, type StoredChanges } from "../platform/data/changes";
import type { Db } from "../platform/data/database";
import { changeRecords, changeSets } from "../platform/data/tables";

/*
 * An Operation as it was at a version, computed backwards from what it is now: each change made
 * after that version is undone, newest first, from its record (an update gives back each changed
 * field's previous value, a create removes the resource, a delete brings it back with every field
 * it had). Exact for every version its history covers: changes are recorded in their own batch.
 */

/** A record of a change made after the version asked for. */
interface LaterRecord {
  version: number;
  type: string;
  action: string;
  resourceId: string;
  changes: StoredChanges;
}

type Fields = Record<string, unknown>;

/** Undoes `records` (newest first) on `state` (resource id → fields), in place. */
export function undoRecords(state: Map<string, Fields>, records: readonly LaterRecord[]): Map<string, Fields> {
  for (const record of records) {
    if (record.action === "c") state.delete(record.resourceId);
    else if (record.action === "d") state.set(record.resourceId, { ...record.changes });
    else {
      const fields = { ...state.get(record.resourceId) };
      for (const [field, [previous]] of Object.entries(record.changes as Record<string, [unknown, unknown]>)) fields[field] = previous;
      state.set(record.resourceId, fields);
    }
  }
  return state;
}

/** The Operation's records of `types` made after `version`, newest first. */
export async function recordsAfter(db: Db, tenantId: string, operationId: string, version: number, types: ("operation" | "line" | "attachment")[]): Promise<LaterRecord[]> {
  const rows = await db
    .select({ version: changeSets.version, type: changeRecords.resourceType, action: changeRecords.action, resourceId: changeRecords.resourceId, changes: changeRecords.changes })
    .from(changeSets)
    .innerJoin(changeRecords, eq(changeRecords.setId, changeSets.id))
    .where(and(eq(changeSets.tenantId, tenantId), eq(changeSets.operationId, operationId), gt(changeSets.version, version), inArray(changeRecords.resourceType, types.map(typeCode))))
    .orderBy(desc(changeSets.version), desc(changeRecords.ordinal));
  return rows.map((row) => ({ ...row, version: row.version!, changes: JSON.parse(row.changes) as StoredChanges }));
}

/** What the Operation's history covers: its last version, and the first it can show (1 when its creation was recorded). */
interface HistorySpan {
  /** The Operation as it is, or as its deletion recorded it (then `deleted`). */
  row: OperationRow;
  deleted: boolean;
  first: number;
}

async function historySpan(db: Db, tenantId: string, operationId: string): Promise<HistorySpan> {
  const [row, sets] = await Promise.all([
    findOperation(db, tenantId, operationId),
    db
      .select({ version: changeSets.version, at: changeSets.at, created: sql<number>`exists (select 1 from ${changeRecords} where ${changeRecords.setId} = ${changeSets.id} and ${changeRecords.resourceType} = 'o' and ${changeRecords.action} = 'c')` })
      .from(changeSets)
      .where(and(eq(changeSets.tenantId, tenantId), eq(changeSets.operationId, operationId)))
      .orderBy(changeSets.version),
  ]);
  if (!sets.length && !row) throw new ApiError("not_found", `Operation ${operationId} not found.`);
  // Changes before the history began (an Operation older than it) cannot be undone: its span starts after them.
  const first = sets.length && sets[0].created ? 1 : (sets[0]?.version ?? row!.version);
  if (row) return { row, deleted: false, first };
  const deletion = await recordsAfter(db, tenantId, operationId, sets[sets.length - 1].version! - 1, ["operation"]);
  const last = sets[sets.length - 1];
  const gone = { ...(deletion[0]?.changes ?? {}), id: operationId, tenantId, version: last.version!, lineCount: 0, accountCount: 0, updatedAt: last.at } as unknown as OperationRow;
  return { row: gone, deleted: true, first };
}

/** 404 version_not_found unless the Operation's history covers `version`. */
function requireVersion(span: HistorySpan, version: number): void {
  const last = span.deleted ? span.row.version - 1 : span.row.version;
  if (version < span.first || version > last) {
    const covered = span.first <= last ? `versions ${span.first} to ${last}` : "no version";
    throw new ApiError("version_not_found", `Operation ${span.row.id} has no version ${version}: its history covers ${covered}.`, { firstVersion: span.first, lastVersion: last });
  }
}

/** The Operation at one version: its row then, and its lines and attachments then, each read when asked for. */
export interface OperationAtVersion {
  row: OperationRow;
  lines(): Promise<Map<string, LineAtVersion>>;
  attachments(): Promise<Set<string>>;
}

/**
 * The Operation at each of `versions`, from one read: its history since the oldest of them, and its
 * current lines and attachments (each read once, when first asked for). 404 version_not_found
 * unless its history covers every version.
 */
export async function operationVersions(db: Db, tenantId: string, operationId: string, versions: readonly number[]): Promise<OperationAtVersion[]> {
  const span = await historySpan(db, tenantId, operationId);
  for (const version of versions) requireVersion(span, version);
  const oldest = Math.min(...versions);
  const [later, times] = await Promise.all([
    recordsAfter(db, tenantId, operationId, oldest, ["operation", "line", "attachment"]),
    db
      .select({ version: changeSets.version, at: changeSets.at })
      .from(changeSets)
      .where(and(eq(changeSets.tenantId, tenantId), eq(changeSets.operationId, operationId)))
      .orderBy(changeSets.version),
  ]);
  const once = <T>(read: () => Promise<T>) => {
    let value: T | undefined;
    return async () => (value ??= await read());
  };
  const currentLines = once(async () =>
    span.deleted
      ? []
      : db
          .select({
            variantExternalId: operationLines.variantExternalId,
            variantId: operationLines.variantId,
            variantName: operationLines.variantName,
            minQuantity: operationLines.minQuantity,
            maxQuantity: operationLines.maxQuantity,
            recommendedQuantity: operationLines.recommendedQuantity,
            quantityIncrement: operationLines.quantityIncrement,
          })
          .from(operationLines)
          .where(eq(operationLines.operationId, operationId)),
  );
  const currentAttachments = once(async () =>
    span.deleted ? [] : db.select({ accountId: operationAccounts.accountId }).from(operationAccounts).where(eq(operationAccounts.operationId, operationId)),
  );
  // A deleted Operation's lines and attachments come back from its deletion's records.
  const now = span.deleted ? { lineCount: 0, accountCount: 0 } : { lineCount: span.row.lineCount, accountCount: span.row.accountCount };
  return versions.map((version) => {
    const undone = later.filter((record) => record.version > version);
    const of = (type: string) => undone.filter((record) => record.type === type);
    const [fields] = undoRecords(new Map([["operation", { ...span.row } as Fields]]), of("o").map((record) => ({ ...record, resourceId: "operation" }))).values();
    const countChange = (type: string) => of(type).reduce((sum, record) => sum + (record.action === "c" ? -1 : record.action === "d" ? 1 : 0), 0);
    const madeAt = times.filter((set) => set.version! <= version).at(-1)?.at;
    return {
      row: {
        ...(fields as OperationRow),
        id: operationId,
        lineCount: now.lineCount + countChange("l"),
        accountCount: now.accountCount + countChange("a"),
        version,
        updatedAt: madeAt ?? span.row.createdAt,
      },
      async lines() {
        const current = await currentLines();
        const state = undoRecords(new Map(current.map(({ variantExternalId, ...line }) => [variantExternalId, line as Fields])), of("l"));
        return new Map([...state].map(([variantExternalId, line]) => [variantExternalId, { variantExternalId, ...(line as Omit<LineAtVersion, "variantExternalId">) }]));
      },
      async attachments() {
        const current = await currentAttachments();
        return new Set(undoRecords(new Map(current.map(({ accountId }) => [accountId, { accountId } as Fields])), of("a")).keys());
      },
    };
  });
}

/** The Operation at `version` (operationVersions of one). */
export async function operationVersion(db: Db, tenantId: string, operationId: string, version: number): Promise<OperationAtVersion> {
  const [then] = await operationVersions(db, tenantId, operationId, [version]);
  return then;
}

/** A line's fields, as a stored line has them and history records them. */
export interface LineAtVersion {
  variantExternalId: string;
  variantId: string | null;
  variantName: Record<string, string>;
  minQuantity: number;
  maxQuantity: number;
  recommendedQuantity: number | null;
  quantityIncrement: number;
}
