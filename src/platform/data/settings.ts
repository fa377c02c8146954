import { and, eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { ApiError } from "../core/errors";
import { changeOf, changeStatements, recordsOf, type RecordedField, type Writer } from "./changes";
import { isWriteGuardFailure } from "./constraint-errors";
import type { Db } from "./database";
import { runBatch, writeGuard } from "./sql";
import { tenants } from "./tables";

/** The columns of the tenants row a setting is kept in, with their values (as `update … set` takes them). */
export type TenantColumns = Partial<Omit<typeof tenants.$inferInsert, "id">>;

/** One of the tenant's settings, kept in columns of its tenants row (approvals, display, history retention). */
export interface TenantSetting<T> {
  /** Its id in history: its records are of resource `settings` with this id. */
  id: string;
  /** What a refusal calls it ("the approval setting"). */
  what: string;
  fields: readonly RecordedField<T>[];
  read: (db: Db, tenantId: string) => Promise<T>;
  columns: (value: T) => TenantColumns;
}

/** A setting write that lost to another is read again this many times before 412 version_mismatch. */
const ATTEMPTS = 5;

/**
 * Sets one of the tenant's settings: one batch that re-checks the value it was computed from (so its
 * change record says what it really was), changes it and records the change. Setting what is already
 * there writes nothing.
 */
export async function setTenantSetting<T>(writer: Writer, setting: TenantSetting<T>, next: T): Promise<void> {
  const { db, principal, author } = writer;
  const { tenantId } = principal;
  for (let attempt = 1; ; attempt++) {
    const previous = await setting.read(db, tenantId);
    const record = changeOf("settings", setting.id, previous, next, setting.fields);
    if (!record) return;
    try {
      await runBatch(db, [
        writeGuard(sql`exists (select 1 from ${tenants} where ${and(eq(tenants.id, tenantId), ...columnsAre(setting.columns(previous)))})`),
        db.update(tenants).set(setting.columns(next)).where(eq(tenants.id, tenantId)),
        ...changeStatements(db, { tenantId, author, records: recordsOf([record]) }),
      ]);
      return;
    } catch (error) {
      if (!isWriteGuardFailure(error)) throw error;
      if (attempt >= ATTEMPTS) throw new ApiError("version_mismatch", `${capitalized(setting.what)} kept changing while this request ran; retry.`);
    }
  }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Each column equal to its value (`is`: null equals null; a boolean as SQLite stores it). */
function columnsAre(values: TenantColumns): SQL[] {
  const columns = tenants as unknown as Record<string, SQLiteColumn>;
  return Object.entries(values).map(([key, value]) => sql`${columns[key]} is ${typeof value === "boolean" ? Number(value) : (value ?? null)}`);
}
