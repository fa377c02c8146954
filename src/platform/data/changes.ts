import type { Db } from "./database";
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { insertFromJson, type Statement } from "./sql";
import { changeRecords, changeSets } from "./tables";
import { idPrefixes, newId } from "../core/ids";
import { actorOf, type Principal } from "../core/principal";
import { nowIso } from "../core/time";

/*
 * Change history, written where changes are committed: a write that changes something puts its
 * change set and records in the same batch as the change (changeStatements), so a refused or failed
 * write leaves none, and a dry run or a write that changes nothing has none to put. Like events,
 * any write path records through here; unlike events, a record says what each field was and became.
 */

export const RESOURCE_TYPES = [
  "operation",
  "line",
  "attachment",
  "rule",
  "quota_default",
  "account",
  "key",
  "webhook",
  "settings",
  "approval",
  "order",
  "allocation",
  "account_cap",
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];
export type ChangeAction = "created" | "updated" | "deleted";

/** How a type and an action are stored: one letter each. */
const TYPE_CODES: Record<ResourceType, string> = {
  operation: "o",
  line: "l",
  attachment: "a",
  rule: "r",
  quota_default: "d",
  account: "c",
  key: "k",
  webhook: "w",
  settings: "s",
  approval: "p",
  order: "n",
  allocation: "x",
  account_cap: "y",
};
const ACTION_CODES: Record<ChangeAction, string> = { created: "c", updated: "u", deleted: "d" };
export const typeCode = (type: ResourceType) => TYPE_CODES[type];
export const actionCode = (action: ChangeAction) => ACTION_CODES[action];
export const typeOfCode = (code: string) => RESOURCE_TYPES.find((type) => TYPE_CODES[type] === code)!;
export const actionOfCode = (code: string) => (Object.keys(ACTION_CODES) as ChangeAction[]).find((action) => ACTION_CODES[action] === code)!;

/** What a secret field shows in history: that it is there, or changed, never its value. */
export const REDACTED = "[redacted]";

/**
 * A record's changes as stored: for an update, each changed field's [previous, next]; for a
 * create, each field's value (its next); for a delete, each field's value (its previous).
 */
export type StoredChanges = Record<string, unknown>;

export interface ChangeRecord {
  type: ResourceType;
  /** The resource's id: a line's variantExternalId, an attachment's accountId, the default's "default". */
  id: string;
  action: ChangeAction;
  changes: StoredChanges;
}

/** Who made a change and why: the same for every record of one request (as on events: key:…, user:…, schedule, cli). */
export interface ChangeAuthor {
  actor: string;
  /** The key it acted with, kept beside an actor that names the key's user. */
  keyId: string | null;
  requestId: string | null;
  reason: string | null;
}

export interface ChangeSet {
  tenantId: string;
  author: ChangeAuthor;
  /** For a change to an Operation, its lines or its attachments: the Operation and the version the change made. */
  operationId?: string | null;
  version?: number | null;
  records: readonly ChangeRecord[];
  /**
   * Records the batch computes in SQL from rows it then changes (every line of a deleted Operation):
   * statements inserting them under the set, their ordinals counted on from `firstOrdinal`.
   */
  recordedInSql?: (setId: string, firstOrdinal: number) => Statement[];
}

/** Values equal as JSON (a localized name read back may list its languages in another order). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return JSON.stringify(a) === JSON.stringify(b);
  // Member by member, in any order; a member whose value is undefined is not in the JSON.
  let members = 0;
  for (const key in a) {
    const value = a[key];
    if (value === undefined) continue;
    if (!sameValue(value, b[key])) return false;
    members++;
  }
  for (const key in b) if (b[key] !== undefined) members--;
  return members === 0;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A field read off a resource for history: its name, how to read it, and whether it is a secret (recorded as REDACTED). */
export interface RecordedField<T> {
  name: string;
  read: (resource: T) => unknown;
  secret?: boolean;
}

/** The fields of a resource type as history records them, each read by its own name unless told otherwise. */
export function recordedFields<T>(names: readonly (keyof T & string)[], options: { secret?: readonly (keyof T & string)[] } = {}): RecordedField<T>[] {
  return names.map((name) => ({ name, read: (resource: T) => resource[name], secret: options.secret?.includes(name) }));
}

/**
 * The record of a resource that went from `before` to `after` (null before: created; null after:
 * deleted), with only the fields that changed; undefined when nothing did. A secret's value is
 * never recorded: REDACTED stands for it (and, on an update, for both sides of its change).
 */
export function changeOf<T>(type: ResourceType, id: string, before: T | null, after: T | null, fields: readonly RecordedField<T>[]): ChangeRecord | undefined {
  if (before === null && after === null) return undefined;
  if (before === null || after === null) {
    const resource = (before ?? after) as T;
    const changes: StoredChanges = {};
    for (const field of fields) changes[field.name] = shown(field, field.read(resource));
    return { type, id, action: before === null ? "created" : "deleted", changes };
  }
  // Built only once a field differs: most resources of a bulk write change one field, or none.
  let changes: StoredChanges | undefined;
  for (const field of fields) {
    const previous = field.read(before);
    const next = field.read(after);
    if (sameValue(previous, next)) continue;
    changes ??= {};
    changes[field.name] = [shown(field, previous), shown(field, next)];
  }
  return changes && { type, id, action: "updated", changes };
}

function shown<T>(field: RecordedField<T>, value: unknown): unknown {
  return field.secret && value !== null && value !== undefined ? REDACTED : (value ?? null);
}

/** The records of `changed` that say something (changeOf answers undefined for an unchanged resource). */
export function recordsOf(changed: readonly (ChangeRecord | undefined)[]): ChangeRecord[] {
  return changed.filter((record): record is ChangeRecord => record !== undefined);
}

/**
 * The statements that record `set` in the batch of the change it describes: the set, and its records
 * in one statement per JSON chunk (a 5000-line write: one). None when no record says anything.
 */
export function changeStatements(db: Db, set: ChangeSet): Statement[] {
  if (!set.records.length && !set.recordedInSql) return [];
  const setId = newId(idPrefixes.change);
  const header = db.insert(changeSets).values({
    id: setId,
    tenantId: set.tenantId,
    operationId: set.operationId ?? null,
    version: set.version ?? null,
    actor: set.author.actor,
    keyId: set.author.keyId,
    requestId: set.author.requestId,
    reason: set.author.reason,
    at: nowIso(),
  });
  const rows: Statement[] = [];
  let ordinal = 0;
  for (const run of runsInKeyOrder(set.records)) {
    // The run's type and action are the statement's: each record carries only its id and changes, and its ordinal is its place.
    rows.push(
      ...insertFromJson(changeRecords, run.records, [
        [changeRecords.setId, setId],
        [changeRecords.resourceType, run.type],
        [changeRecords.action, run.action],
        [changeRecords.resourceId, (record) => record.id],
        [changeRecords.ordinal, { placeFrom: ordinal }],
        // The changes travel as JSON inside the rows' JSON; `value ->> n` gives their text, encoded once.
        [changeRecords.changes, (record) => record.changes],
      ]),
    );
    ordinal += run.records.length;
  }
  return [header, ...rows, ...(set.recordedInSql?.(setId, set.records.length) ?? [])];
}

/** Two records in the table's key order: type, action, id (their codes are one letter each). */
function compareKeys(a: ChangeRecord, b: ChangeRecord): number {
  return compareText(typeCode(a.type), typeCode(b.type)) || compareText(actionCode(a.action), actionCode(b.action)) || compareText(a.id, b.id);
}

const compareText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * The records in the table's key order (type, action, id), as runs of one type and action: a set's
 * records go in as runs of the index, not all over it. Records that come in order (a bulk write's,
 * by key) are not sorted again.
 */
function runsInKeyOrder(records: readonly ChangeRecord[]): { type: string; action: string; records: ChangeRecord[] }[] {
  let ordered = records;
  for (let i = 1; i < records.length; i++) {
    if (compareKeys(records[i - 1], records[i]) > 0) {
      ordered = [...records].sort(compareKeys);
      break;
    }
  }
  const runs: { type: string; action: string; records: ChangeRecord[] }[] = [];
  for (const record of ordered) {
    const type = typeCode(record.type);
    const action = actionCode(record.action);
    const last = runs[runs.length - 1];
    if (last?.type === type && last.action === action) last.records.push(record);
    else runs.push({ type, action, records: [record] });
  }
  return runs;
}

/**
 * A statement recording, as deleted, every row `from` selects: `resourceId` is its key and `fields`
 * each recorded field's SQL value (JSON text columns through json(), so the record holds the value).
 * Put it before the statement that deletes those rows.
 */
export function recordDeletedInSql(
  setId: string,
  firstOrdinal: number,
  type: ResourceType,
  from: { resourceId: SQL; fields: Record<string, SQL>; source: SQL },
): Statement {
  const pairs = sql.join(
    Object.entries(from.fields).map(([name, value]) => sql`${name}, ${value}`),
    sql`, `,
  );
  return sql`insert into ${changeRecords} (${sql.identifier(changeRecords.setId.name)}, ${sql.identifier(changeRecords.resourceType.name)}, ${sql.identifier(changeRecords.action.name)}, ${sql.identifier(changeRecords.resourceId.name)}, ${sql.identifier(changeRecords.ordinal.name)}, ${sql.identifier(changeRecords.changes.name)})
    select ${setId}, ${typeCode(type)}, ${actionCode("deleted")}, ${from.resourceId}, ${firstOrdinal - 1} + row_number() over (order by ${from.resourceId}), json_object(${pairs}) ${from.source}`;
}

/** The author of a request's changes: its key's actor, the key itself, the request and its reason. */
export function authorOf(principal: Principal, request: { requestId: string | null; reason: string | null }): ChangeAuthor {
  return { actor: actorOf(principal), keyId: principal.keyId, requestId: request.requestId, reason: request.reason };
}

/** A write the Worker makes itself (not an Operation's command): where, on whose behalf, and who its records name. */
export interface Writer {
  db: Db;
  principal: Principal;
  author: ChangeAuthor;
}

/** The latest record of one resource with `action` (the last deletion of a rule), with when it was made; undefined: none. */
export async function latestRecordOf(
  db: Db,
  tenantId: string,
  type: ResourceType,
  resourceId: string,
  action: ChangeAction,
): Promise<{ changes: StoredChanges; at: string } | undefined> {
  const [row] = await db
    .select({ changes: changeRecords.changes, at: changeSets.at })
    .from(changeSets)
    .innerJoin(
      changeRecords,
      and(
        eq(changeRecords.setId, changeSets.id),
        eq(changeRecords.resourceType, typeCode(type)),
        eq(changeRecords.action, actionCode(action)),
        eq(changeRecords.resourceId, resourceId),
      ),
    )
    .where(eq(changeSets.tenantId, tenantId))
    .orderBy(desc(changeSets.id))
    .limit(1);
  return row && { changes: JSON.parse(row.changes) as StoredChanges, at: row.at };
}
