import { and, eq, sql, type SQL } from "drizzle-orm";
import { afterCommit } from "../platform/core/after-commit";
import { bookmarkOf, type Db } from "../platform/data/database";
import { latestArchivedRecordOf } from "../history/archive/reads";
import { changeOf, changeStatements, latestRecordOf, recordedFields, recordsOf, type ChangeRecord, type Writer } from "../platform/data/changes";
import { inJsonChunks, insertFromJson, runBatch, type Statement, writeGuard } from "../platform/data/sql";
import { isWriteGuardFailure, violatesUnique, violatesUniqueIndex } from "../platform/data/constraint-errors";
import { ApiError } from "../platform/core/errors";
import { appendEvent } from "../platform/data/events";
import type { EventType } from "../common/event-types";
import { idPrefixes, newId } from "../platform/core/ids";
import { quotaRules } from "./tables";
import { tenants } from "../platform/data/tables";
import { nowIso } from "../platform/core/time";
import { findRule, getQuotaDefault, readRulesById, readRulesByScope, toRuleRepresentation, type RuleRow } from "./queries";
import { indexedRuleOf, type IndexedRule, type QuotaEnforcement, type Scope } from "../common/rule-index";
import { ruleIndexCache, type RuleChange } from "./rule-index-cache";
import { ruleFieldsOf, scopeKeyOf, type DeleteRulesResult, type RuleBody, type UpsertRulesResult } from "./schemas";

/** A rule's fields as history records them. */
// createdAt never changes, so only a creation and a deletion record it (a bulk delete, reading the
// rules as the index holds them, has none to record): a restore brings it back.
const RULE_FIELDS = recordedFields<RuleFields>(["accountId", "supplierId", "storeId", "minimum", "enforcement", "createdAt"]);
type RuleFields = Pick<RuleRow, "id" | "accountId" | "supplierId" | "storeId" | "minimum" | "enforcement"> & { createdAt?: string };
const ruleChange = (before: RuleFields | null, after: RuleFields | null) => changeOf("rule", (before ?? after)!.id, before, after, RULE_FIELDS);
const QUOTA_DEFAULT_FIELDS = recordedFields<{ minimum: number; enforcement: QuotaEnforcement }>(["minimum", "enforcement"]);

/** A write lost to a concurrent change of the same rule: read again and retry. */
class RuleChanged extends Error {}

/** How often a rule write re-reads and retries after a concurrent change of the same rule. */
const MAX_ATTEMPTS = 5;

/** Every rule or default write bumps the version in its own batch: rule-index caches compare against it. */
function bumpRulesVersion(tenantId: string, set: SQL = sql``) {
  const version = sql.identifier(tenants.rulesVersion.name);
  return sql`update ${tenants} set ${set}${version} = ${version} + 1 where ${tenants.id} = ${tenantId} returning ${version} as version`;
}

/** The rule is still exactly as read (same updated_at), so the event's "before" is the truth. */
function unchangedRule(row: RuleRow) {
  return writeGuard(
    sql`exists (select 1 from ${quotaRules} where ${quotaRules.tenantId} = ${row.tenantId} and ${quotaRules.id} = ${row.id} and ${quotaRules.updatedAt} = ${row.updatedAt})`,
  );
}

/** One rule or default write: what it was computed from, what it changes, what it records. */
interface RuleWrite {
  /** A write guard re-checking what the write was computed from; a concurrent change fails it (and the write retries). */
  guard?: Statement;
  changes: Statement[];
  /** Assignments to the tenant row made by the version bump's own statement (the default's minimum). */
  tenantSet?: SQL;
  event: { type: EventType; ruleId?: string; data: Record<string, unknown> };
  /** What history keeps of it: a record per rule (or the default) it changes. */
  records: readonly (ChangeRecord | undefined)[];
  /** The same change for this isolate's rule index. */
  change: RuleChange;
}

/**
 * Commits a rule write as one D1 batch: its guard, its changes, the version bump and its event, in
 * that order. The bump's place is known here alone, so the version it returned is read by name; it
 * goes to this isolate's rule-index cache with the change, so its next evaluation sees the write.
 * That hand-over follows the commit and cannot change the answer: should it fail, the isolate
 * forgets the tenant and its next evaluation reads the rules again.
 */
async function commitRuleWrite({ db, principal, author }: Writer, write: RuleWrite): Promise<void> {
  const { tenantId } = principal;
  const bump = bumpRulesVersion(tenantId, write.tenantSet);
  const event = appendEvent(db, { tenantId, type: write.event.type, actor: author.actor, ruleId: write.event.ruleId ?? null, data: write.event.data });
  const history = changeStatements(db, { tenantId, author, records: recordsOf(write.records) });
  const before = [...(write.guard ? [write.guard] : []), ...write.changes];
  let results: D1Result[];
  try {
    results = await runBatch(db, [...before, bump, event, ...history]);
  } catch (error) {
    if (violatesUniqueIndex(error, "quota_rules_scope")) {
      throw new ApiError("duplicate_scope", "A Quotas Rule with this accountId, supplierId and storeId already exists.");
    }
    if (isWriteGuardFailure(error)) throw new RuleChanged();
    // The outcome is unknown: stop trusting this isolate's index of the tenant.
    ruleIndexCache.forget(tenantId);
    throw error;
  }
  await afterCommit(`rules:${tenantId}`, "applying a rule write to the isolate's rule index (it is forgotten, and read again)", () => {
    try {
      const version = (results[before.length].results as { version: number }[])[0]?.version;
      if (version === undefined) ruleIndexCache.forget(tenantId);
      else ruleIndexCache.applyWrite(tenantId, version, write.change, bookmarkOf(db));
    } catch (error) {
      ruleIndexCache.forget(tenantId);
      throw error;
    }
  });
}

const indexedRule = (row: RuleRow): IndexedRule => indexedRuleOf(row);

export async function createRule(writer: Writer, body: RuleBody): Promise<RuleRow> {
  const { db, principal } = writer;
  const now = nowIso();
  const row: RuleRow = { id: newId(idPrefixes.rule), tenantId: principal.tenantId, ...ruleFieldsOf(body), createdAt: now, updatedAt: now };
  await commitRuleWrite(writer, {
    changes: [db.insert(quotaRules).values(row)],
    records: [ruleChange(null, row)],
    event: { type: "rule.created", ruleId: row.id, data: { rule: toRuleRepresentation(row) } },
    change: { upserted: [indexedRule(row)] },
  });
  return row;
}

/**
 * Restores a deleted rule under its id with the values its deletion recorded (201). A rule of that id
 * that exists: 409 rule_exists; its scope taken since: 409 duplicate_scope; never a rule: 404.
 */
export async function restoreRule(writer: Writer, ruleId: string, archive: R2Bucket): Promise<RuleRow> {
  const { db, principal } = writer;
  const [current, recentDeletion] = await Promise.all([
    findRule(db, principal.tenantId, ruleId),
    latestRecordOf(db, principal.tenantId, "rule", ruleId, "deleted"),
  ]);
  // A rule deleted long ago: its deletion may have moved to the history's archive.
  const deletion = recentDeletion ?? (current ? undefined : await latestArchivedRecordOf({ db, archive }, principal.tenantId, "rule", ruleId, "deleted"));
  if (current) throw new ApiError("rule_exists", `Quotas Rule ${ruleId} exists; only a deleted rule can be restored.`);
  if (!deletion) throw new ApiError("not_found", `Quotas Rule ${ruleId} not found (it was never deleted, or is not this tenant's).`);
  const now = nowIso();
  const last = deletion.changes as Pick<RuleRow, "accountId" | "supplierId" | "storeId" | "minimum" | "enforcement"> & { createdAt?: string };
  const row: RuleRow = {
    id: ruleId,
    tenantId: principal.tenantId,
    accountId: last.accountId,
    supplierId: last.supplierId,
    storeId: last.storeId,
    minimum: last.minimum,
    enforcement: last.enforcement,
    createdAt: last.createdAt ?? (await recordedCreationTime(db, principal.tenantId, ruleId)) ?? now,
    updatedAt: now,
  };
  try {
    await commitRuleWrite(writer, {
      changes: [db.insert(quotaRules).values(row)],
      records: [ruleChange(null, row)],
      event: { type: "rule.created", ruleId, data: { rule: toRuleRepresentation(row), restored: true } },
      change: { upserted: [indexedRule(row)] },
    });
  } catch (error) {
    // Restored by another request meanwhile.
    if (violatesUnique(error, quotaRules.id)) throw new ApiError("rule_exists", `Quotas Rule ${ruleId} exists; only a deleted rule can be restored.`);
    throw error;
  }
  return row;
}

/** When a rule whose deletion did not record createdAt was created: as its last creation record says. */
async function recordedCreationTime(db: Db, tenantId: string, ruleId: string): Promise<string | undefined> {
  const creation = await latestRecordOf(db, tenantId, "rule", ruleId, "created");
  return creation && ((creation.changes.createdAt as string | undefined) ?? creation.at);
}

/** Loads the rule (404 if absent or another tenant's) and retries `write` if the rule changes under it. */
async function withCurrentRule<T>({ db, principal }: Writer, ruleId: string, write: (row: RuleRow) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const row = await findRule(db, principal.tenantId, ruleId);
    if (!row) throw new ApiError("not_found", `Quotas Rule ${ruleId} not found.`);
    try {
      return await write(row);
    } catch (error) {
      if (!(error instanceof RuleChanged)) throw error;
      if (attempt >= MAX_ATTEMPTS) {
        throw new ApiError("version_mismatch", `Quotas Rule ${ruleId} kept changing while this request ran; read it again and retry.`);
      }
    }
  }
}

export function updateRule(writer: Writer, ruleId: string, body: RuleBody): Promise<RuleRow> {
  const { db, principal } = writer;
  return withCurrentRule(writer, ruleId, async (before) => {
    const after: RuleRow = { ...before, ...ruleFieldsOf(body), updatedAt: nowIso() };
    await commitRuleWrite(writer, {
      guard: unchangedRule(before),
      records: [ruleChange(before, after)],
      changes: [
        db
          .update(quotaRules)
          .set({
            accountId: after.accountId,
            supplierId: after.supplierId,
            storeId: after.storeId,
            minimum: after.minimum,
            enforcement: after.enforcement,
            updatedAt: after.updatedAt,
          })
          .where(and(eq(quotaRules.tenantId, principal.tenantId), eq(quotaRules.id, ruleId))),
      ],
      event: { type: "rule.updated", ruleId, data: { rule: toRuleRepresentation(after), previous: toRuleRepresentation(before) } },
      change: { upserted: [indexedRule(after)] },
    });
    return after;
  });
}

export function deleteRule(writer: Writer, ruleId: string): Promise<void> {
  const { db, principal } = writer;
  return withCurrentRule(writer, ruleId, (before) =>
    commitRuleWrite(writer, {
      guard: unchangedRule(before),
      records: [ruleChange(before, null)],
      changes: [db.delete(quotaRules).where(and(eq(quotaRules.tenantId, principal.tenantId), eq(quotaRules.id, ruleId)))],
      event: { type: "rule.deleted", ruleId, data: { rule: toRuleRepresentation(before) } },
      change: { deletedIds: [ruleId] },
    }),
  );
}

export async function setQuotaDefault(writer: Writer, quotaDefault: { minimum: number; enforcement: QuotaEnforcement }): Promise<void> {
  const previous = await getQuotaDefault(writer.db, writer.principal.tenantId);
  const { minimum, enforcement } = quotaDefault;
  const set = sql`${sql.identifier(tenants.quotaDefaultMinimum.name)} = ${minimum}, ${sql.identifier(tenants.quotaDefaultEnforcement.name)} = ${enforcement}, `;
  await commitRuleWrite(writer, {
    changes: [],
    records: [changeOf("quota_default", "default", previous, quotaDefault, QUOTA_DEFAULT_FIELDS)],
    tenantSet: set,
    event: { type: "quota_default.updated", data: { minimum, enforcement } },
    change: { defaultMinimum: minimum, defaultEnforcement: enforcement },
  });
}

/** Whether the tenant's rules are still at `version` (what a bulk write computed its counts from). */
function rulesStillAt(tenantId: string, version: number) {
  return writeGuard(sql`exists (select 1 from ${tenants} where ${tenants.id} = ${tenantId} and ${tenants.rulesVersion} = ${version})`);
}

/** The rules a bulk write names, read with the version they were read at. */
interface NamedRules {
  version: number;
  rules: IndexedRule[];
}

/**
 * A bulk write computed from one read of the rules the batch names (by scope or id: the cost grows
 * with the batch, not the tenant): `plan` turns them into the answer and the statements that make
 * it true (none: nothing changes). Committed with the rules' version re-checked in SQL; a concurrent
 * rule write makes it read and plan again. A dry run stops before the commit, with the same answer.
 */
async function bulkRuleWrite<Answer>(
  writer: Writer,
  options: { dryRun: boolean },
  read: () => Promise<NamedRules>,
  plan: (
    named: NamedRules,
    now: string,
  ) => {
    answer: Answer;
    writes: Statement[];
    event: { type: EventType; data: Record<string, unknown> };
    records: () => (ChangeRecord | undefined)[];
    change: RuleChange;
  },
): Promise<Answer> {
  const { tenantId } = writer.principal;
  for (let attempt = 1; ; attempt++) {
    const named = await read();
    const { answer, writes, event, records, change } = plan(named, nowIso());
    if (options.dryRun || !writes.length) return answer;
    try {
      await commitRuleWrite(writer, { guard: rulesStillAt(tenantId, named.version), changes: writes, event, records: records(), change });
      return answer;
    } catch (error) {
      if (!(error instanceof RuleChanged)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ApiError("version_mismatch", "The tenant's rules kept changing while this request ran; retry.");
    }
  }
}

/** SQLite's order of NULL (first) and text (by code unit, as its BINARY collation for the keys' characters). */
function compareKeys(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The order of the rules' entries in quota_rules_supplier: (tenant, supplier, id). */
function bySupplierIndex(a: IndexedRule, b: IndexedRule): number {
  return compareKeys(a.supplierId, b.supplierId) || compareKeys(a.id, b.id);
}

/**
 * PUT rules: upserts up to 5000 rules by scope, all or nothing, with one version bump and one
 * rules.upserted event. Rules sent with the minimum they have are counted, not written.
 */
export function upsertRules(writer: Writer, bodies: RuleBody[], options: { dryRun: boolean }): Promise<UpsertRulesResult> {
  const { db, principal } = writer;
  const scopes = bodies.map(ruleFieldsOf);
  const read = () =>
    readRulesByScope(
      db,
      principal.tenantId,
      scopes.map((scope): Scope => [scope.accountId, scope.supplierId, scope.storeId]),
    );
  return bulkRuleWrite(writer, options, read, (named, now) => {
    const existing = new Map(named.rules.map((rule) => [scopeKeyOf(rule), rule]));
    const created: IndexedRule[] = [];
    const updated: IndexedRule[] = [];
    const updatedFrom: IndexedRule[] = [];
    let unchanged = 0;
    for (const scope of scopes) {
      const current = existing.get(scopeKeyOf(scope));
      if (!current) created.push(indexedRuleOf({ id: newId(idPrefixes.rule), ...scope }));
      else if (current.minimum !== scope.minimum || current.enforcement !== scope.enforcement) {
        updated.push(indexedRuleOf({ ...current, minimum: scope.minimum, enforcement: scope.enforcement }));
        updatedFrom.push(current);
      } else unchanged++;
    }
    const answer = { created: created.length, updated: updated.length, unchanged };
    // One upsert by primary key for both: new rules insert under their new ids, changed ones update
    // their minimum and enforcement (the unique scope index would need an expression target, and a join on it is slow).
    // New rules go in the order of quota_rules_supplier: a batch names rules of many suppliers, whose
    // entries lie all over a large tenant's part of that index, and in its order each of its pages is
    // written once instead of again and again (bulk rows of docs/benchmarks.md). Updates touch no index.
    const changed = [...created.sort(bySupplierIndex), ...updated];
    const writes = insertFromJson(
      quotaRules,
      changed,
      [
        [quotaRules.id, (rule) => rule.id],
        [quotaRules.tenantId, principal.tenantId],
        [quotaRules.accountId, (rule) => rule.accountId],
        [quotaRules.supplierId, (rule) => rule.supplierId],
        [quotaRules.storeId, (rule) => rule.storeId],
        [quotaRules.minimum, (rule) => rule.minimum],
        [quotaRules.enforcement, (rule) => rule.enforcement],
        [quotaRules.createdAt, now],
        [quotaRules.updatedAt, now],
      ],
      { target: [quotaRules.id], update: [quotaRules.minimum, quotaRules.enforcement, quotaRules.updatedAt] },
    );
    const records = () => [
      ...created.map((rule) => ruleChange(null, { ...rule, createdAt: now })),
      ...updated.map((rule, i) => ruleChange(updatedFrom[i], rule)),
    ];
    return { answer, writes, event: { type: "rules.upserted", data: answer }, records, change: { upserted: changed } };
  });
}

/** DELETE rules: removes the tenant's rules among `ids` (others are reported in notFound), with one version bump and one rules.deleted event. */
export function deleteRules(writer: Writer, ids: string[], options: { dryRun: boolean }): Promise<DeleteRulesResult> {
  const { db, principal } = writer;
  const unique = [...new Set(ids)];
  return bulkRuleWrite(
    writer,
    options,
    () => readRulesById(db, principal.tenantId, unique),
    (named) => {
      const existing = new Set(named.rules.map((rule) => rule.id));
      const found = unique.filter((id) => existing.has(id));
      const answer = { deleted: found.length, notFound: unique.filter((id) => !existing.has(id)) };
      const writes = found.length
        ? inJsonChunks(quotaRules.id, found).map((idIsIn) => db.delete(quotaRules).where(and(eq(quotaRules.tenantId, principal.tenantId), idIsIn)))
        : [];
      const records = () => named.rules.map((rule) => ruleChange(rule, null));
      return {
        answer,
        writes,
        event: { type: "rules.deleted", data: { deleted: found.length, notFound: answer.notFound.length } },
        records,
        change: { deletedIds: found },
      };
    },
  );
}
