import { and, eq, sql, type SQL } from "drizzle-orm";
import { actorOf, type Principal } from "../platform/principal";
import { bookmarkOf, isWriteGuardFailure, violatesUniqueIndex, runBatch, writeGuard, type Db, type Statement } from "../platform/db";
import { ApiError } from "../platform/errors";
import { appendEvent, type EventType } from "../platform/events";
import { idPrefixes, newId } from "../platform/ids";
import { quotaRules, tenants } from "../platform/tables";
import { nowIso } from "../platform/time";
import { findRule, toRuleRepresentation, type RuleRow } from "./queries";
import type { IndexedRule } from "./rule-index";
import { ruleIndexCache, type RuleChange } from "./rule-index-cache";
import type { RuleBody } from "./schemas";

/** A write lost to a concurrent change of the same rule: read again and retry. */
class RuleChanged extends Error {}

/** How often a rule write re-reads and retries after a concurrent change of the same rule. */
const MAX_ATTEMPTS = 5;

function ruleEvent(db: Db, principal: Principal, type: EventType, ruleId: string, data: Record<string, unknown>) {
  return appendEvent(db, { tenantId: principal.tenantId, type, actor: actorOf(principal), ruleId, data });
}

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

/**
 * Runs one rule/default write as a single D1 batch whose `bumpAt`-th statement bumps the version,
 * then hands `change` to this isolate's rule-index cache, so its next evaluation sees it.
 */
async function commitRuleWrite(db: Db, tenantId: string, statements: Statement[], bumpAt: number, change: RuleChange): Promise<void> {
  let results: D1Result[];
  try {
    results = await runBatch(db, statements);
  } catch (error) {
    if (violatesUniqueIndex(error, "quota_rules_scope")) {
      throw new ApiError("duplicate_scope", "A Quotas Rule with this accountId, supplierId and storeId already exists.");
    }
    if (isWriteGuardFailure(error)) throw new RuleChanged();
    // The outcome is unknown: stop trusting this isolate's index of the tenant.
    ruleIndexCache.forget(tenantId);
    throw error;
  }
  const version = (results[bumpAt].results as { version: number }[])[0]?.version;
  if (version === undefined) ruleIndexCache.forget(tenantId);
  else ruleIndexCache.applyWrite(tenantId, version, change, bookmarkOf(db));
}

function indexedRule(row: RuleRow): IndexedRule {
  return { id: row.id, accountId: row.accountId, supplierId: row.supplierId, storeId: row.storeId, minimum: row.minimum };
}

function scopeOf(body: RuleBody) {
  return { accountId: body.accountId ?? null, supplierId: body.supplierId ?? null, storeId: body.storeId ?? null, minimum: body.minimum };
}

export async function createRule(db: Db, principal: Principal, body: RuleBody): Promise<RuleRow> {
  const now = nowIso();
  const row: RuleRow = { id: newId(idPrefixes.rule), tenantId: principal.tenantId, ...scopeOf(body), createdAt: now, updatedAt: now };
  await commitRuleWrite(
    db,
    principal.tenantId,
    [
      db.insert(quotaRules).values(row),
      bumpRulesVersion(principal.tenantId),
      ruleEvent(db, principal, "rule.created", row.id, { rule: toRuleRepresentation(row) }),
    ],
    1,
    { upserted: [indexedRule(row)] },
  );
  return row;
}

/** Loads the rule (404 if absent or another tenant's) and retries `write` if the rule changes under it. */
async function withCurrentRule<T>(db: Db, principal: Principal, ruleId: string, write: (row: RuleRow) => Promise<T>): Promise<T> {
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

export function updateRule(db: Db, principal: Principal, ruleId: string, body: RuleBody): Promise<RuleRow> {
  return withCurrentRule(db, principal, ruleId, async (before) => {
    const after: RuleRow = { ...before, ...scopeOf(body), updatedAt: nowIso() };
    await commitRuleWrite(
      db,
      principal.tenantId,
      [
        unchangedRule(before),
        db
          .update(quotaRules)
          .set({ accountId: after.accountId, supplierId: after.supplierId, storeId: after.storeId, minimum: after.minimum, updatedAt: after.updatedAt })
          .where(and(eq(quotaRules.tenantId, principal.tenantId), eq(quotaRules.id, ruleId))),
        bumpRulesVersion(principal.tenantId),
        ruleEvent(db, principal, "rule.updated", ruleId, { rule: toRuleRepresentation(after), previous: toRuleRepresentation(before) }),
      ],
      2,
      { upserted: [indexedRule(after)] },
    );
    return after;
  });
}

export function deleteRule(db: Db, principal: Principal, ruleId: string): Promise<void> {
  return withCurrentRule(db, principal, ruleId, (before) =>
    commitRuleWrite(
      db,
      principal.tenantId,
      [
        unchangedRule(before),
        db.delete(quotaRules).where(and(eq(quotaRules.tenantId, principal.tenantId), eq(quotaRules.id, ruleId))),
        bumpRulesVersion(principal.tenantId),
        ruleEvent(db, principal, "rule.deleted", ruleId, { rule: toRuleRepresentation(before) }),
      ],
      2,
      { deletedIds: [ruleId] },
    ),
  );
}

export async function setDefaultMinimum(db: Db, principal: Principal, minimum: number): Promise<void> {
  await commitRuleWrite(
    db,
    principal.tenantId,
    [
      bumpRulesVersion(principal.tenantId, sql`${sql.identifier(tenants.quotaDefaultMinimum.name)} = ${minimum}, `),
      appendEvent(db, { tenantId: principal.tenantId, type: "quota_default.updated", actor: actorOf(principal), data: { minimum } }),
    ],
    0,
    { defaultMinimum: minimum },
  );
}
