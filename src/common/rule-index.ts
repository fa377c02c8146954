/**
 * The compiled Quotas Rule index (resolution as the evaluate route documents it): pure data and functions, so it can be
 * unit- and property-tested alone, and the console's simulator runs this very module in the browser. The cache around it
 * lives in quotas/rule-index-cache.ts.
 *
 * A tenant's rules are grouped by the keys of the three levels (Account+Supplier, Account,
 * Supplier). Within a group, the scope is unique per store (the quota_rules_scope index), so a
 * group holds at most one rule for "every store" and one per named store: resolving an order is
 * a few map lookups whatever the number of rules or stores.
 */

import type { CandidateOutcome, ExplainedCandidate, ExplainedLevel, Explanation } from "./rule-explanation";

/** What a minimum does to an order below it: refuse it (BLOCK) or place it with a warning (WARN). */
export type QuotaEnforcement = "BLOCK" | "WARN";

export interface IndexedRule {
  id: string;
  accountId: string | null;
  supplierId: string | null;
  storeId: string | null;
  minimum: number;
  enforcement: QuotaEnforcement;
}

/**
 * The one place a stored rule becomes a cached one: anything the resolver needs of a rule is
 * copied here (a new field of quota_rules reaches the cache by adding it to IndexedRule and here).
 */
export function indexedRuleOf(row: IndexedRule): IndexedRule {
  return { id: row.id, accountId: row.accountId, supplierId: row.supplierId, storeId: row.storeId, minimum: row.minimum, enforcement: row.enforcement };
}

export interface RuleSnapshot {
  /** tenants.rules_version the rules were read at. */
  version: number;
  defaultMinimum: number;
  /** The default's enforcement; absent: BLOCK. */
  defaultEnforcement?: QuotaEnforcement;
  rules: IndexedRule[];
  /** The D1 bookmark the snapshot was read (or written) at, if known: answers that use it carry it. */
  bookmark?: string | null;
  /** The database it was read from (RuleSource.origin). */
  origin?: string;
}

export type QuotaLevel = "ACCOUNT_SUPPLIER" | "ACCOUNT" | "SUPPLIER";
export type QuotaSourceKind = QuotaLevel | "DEFAULT";

/** The rules sharing one level key, e.g. account A1 with supplier S1. */
interface RuleGroup {
  /** The best rule with storeId null (it matches every store). */
  anyStore: IndexedRule | undefined;
  /** The best rule per named store (absent until the group has one). */
  byStore: Map<string, IndexedRule> | undefined;
  /** Every rule of the group, best first: kept only for explanations. */
  ordered: IndexedRule[];
}

export interface RuleIndex {
  version: number;
  bookmark: string | null;
  defaultMinimum: number;
  defaultEnforcement: QuotaEnforcement;
  ruleCount: number;
  /** Keyed by `pairKey(accountId, supplierId)`. */
  accountSupplier: Map<string, RuleGroup>;
  account: Map<string, RuleGroup>;
  supplier: Map<string, RuleGroup>;
}

export interface QuotaTarget {
  accountId: string;
  supplierId: string | null;
  storeId: string | null;
}

export interface Resolution {
  kind: QuotaSourceKind;
  rule: IndexedRule | null;
  minimum: number;
  enforcement: QuotaEnforcement;
}

/** The resolution order within a level: highest minimum first, then the smallest id (the oldest rule). */
export function compareRules(a: IndexedRule, b: IndexedRule): number {
  if (a.minimum !== b.minimum) return a.minimum > b.minimum ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function better(a: IndexedRule | undefined, b: IndexedRule | undefined): IndexedRule | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareRules(a, b) <= 0 ? a : b;
}

/** One map key for an (account, supplier) pair; the length prefix keeps any two pairs apart whatever their characters. */
function pairKey(accountId: string, supplierId: string): string {
  return `${accountId.length}:${accountId}${supplierId}`;
}

function addToGroup(group: RuleGroup, rule: IndexedRule): void {
  group.ordered.push(rule);
  if (rule.storeId === null) group.anyStore = better(group.anyStore, rule);
  else {
    group.byStore ??= new Map();
    group.byStore.set(rule.storeId, better(group.byStore.get(rule.storeId), rule)!);
  }
}

export function buildRuleIndex(snapshot: RuleSnapshot): RuleIndex {
  const index: RuleIndex = {
    version: snapshot.version,
    bookmark: snapshot.bookmark ?? null,
    defaultMinimum: snapshot.defaultMinimum,
    defaultEnforcement: snapshot.defaultEnforcement ?? "BLOCK",
    ruleCount: snapshot.rules.length,
    accountSupplier: new Map(),
    account: new Map(),
    supplier: new Map(),
  };
  const shared: RuleGroup[] = [];
  for (const rule of snapshot.rules) {
    let map: Map<string, RuleGroup>;
    let key: string;
    if (rule.accountId !== null && rule.supplierId !== null) {
      map = index.accountSupplier;
      key = pairKey(rule.accountId, rule.supplierId);
    } else if (rule.accountId !== null) {
      map = index.account;
      key = rule.accountId;
    } else if (rule.supplierId !== null) {
      map = index.supplier;
      key = rule.supplierId;
    } else {
      continue; // A rule scoped to nothing cannot be stored (validation refuses it); never let it match everything.
    }
    let group = map.get(key);
    if (!group) {
      group = { anyStore: undefined, byStore: undefined, ordered: [] };
      map.set(key, group);
    } else if (group.ordered.length === 1) {
      shared.push(group);
    }
    addToGroup(group, rule);
  }
  for (const group of shared) group.ordered.sort(compareRules);
  return index;
}

/** The groups an order can draw from, highest level first (for explanations; resolveQuota inlines the walk). */
function groupsOf(index: RuleIndex, target: QuotaTarget): [QuotaLevel, RuleGroup | undefined][] {
  const { accountId, supplierId } = target;
  return [
    ["ACCOUNT_SUPPLIER", supplierId === null ? undefined : index.accountSupplier.get(pairKey(accountId, supplierId))],
    ["ACCOUNT", index.account.get(accountId)],
    ["SUPPLIER", supplierId === null ? undefined : index.supplier.get(supplierId)],
  ];
}

function bestMatch(group: RuleGroup | undefined, storeId: string | null): IndexedRule | undefined {
  if (!group) return undefined;
  return storeId === null || !group.byStore ? group.anyStore : better(group.anyStore, group.byStore.get(storeId));
}

/** A rule scope (accountId, supplierId, storeId): unique per tenant. */
export type Scope = [accountId: string | null, supplierId: string | null, storeId: string | null];

/**
 * The scopes whose rules can decide `target`: per level its key with every store (storeId null)
 * and, when the order names a store, with that store. The scope is unique per tenant, so an order
 * is decided by at most six rules, whatever the tenant holds.
 */
export function probesOf(target: QuotaTarget): Scope[] {
  const { storeId } = target;
  return levelKeysOf(target).flatMap(
    ([account, supplier]) =>
      (storeId === null
        ? [[account, supplier, null]]
        : [
            [account, supplier, null],
            [account, supplier, storeId],
          ]) as Scope[],
  );
}

/** Whether `rule` is one of probesOf(target)'s scopes: a rule resolution may use for the target. */
export function scopeMatchesTarget(rule: IndexedRule, target: QuotaTarget): boolean {
  if (rule.accountId === null && rule.supplierId === null) return false;
  return (
    (rule.accountId === null || rule.accountId === target.accountId) &&
    (rule.supplierId === null || rule.supplierId === target.supplierId) &&
    (rule.storeId === null || rule.storeId === target.storeId)
  );
}

/** The level keys (accountId, supplierId) an explanation of `target` lists every store's rules of. */
export function levelKeysOf(target: QuotaTarget): [string | null, string | null][] {
  const { accountId, supplierId } = target;
  return supplierId === null
    ? [[accountId, null]]
    : [
        [accountId, supplierId],
        [accountId, null],
        [null, supplierId],
      ];
}

/** Resolution: the first level with a matching rule, its best rule; else the default. */
export function resolveQuota(index: RuleIndex, target: QuotaTarget): Resolution {
  const { accountId, supplierId, storeId } = target;
  let rule: IndexedRule | undefined;
  if (supplierId !== null) {
    rule = bestMatch(index.accountSupplier.get(pairKey(accountId, supplierId)), storeId);
    if (rule) return { kind: "ACCOUNT_SUPPLIER", rule, minimum: rule.minimum, enforcement: rule.enforcement };
  }
  rule = bestMatch(index.account.get(accountId), storeId);
  if (rule) return { kind: "ACCOUNT", rule, minimum: rule.minimum, enforcement: rule.enforcement };
  if (supplierId !== null) {
    rule = bestMatch(index.supplier.get(supplierId), storeId);
    if (rule) return { kind: "SUPPLIER", rule, minimum: rule.minimum, enforcement: rule.enforcement };
  }
  return { kind: "DEFAULT", rule: null, minimum: index.defaultMinimum, enforcement: index.defaultEnforcement };
}

/** Per level, how many rules of another store an explanation lists before summarising the rest. */
export const MAX_LISTED_STORE_MISMATCHES = 10;

/** Why each rule that could concern the order did or did not decide it: for `?explain=true`. */
export function explainQuota(index: RuleIndex, target: QuotaTarget): Explanation {
  return explainDecision(index, target, resolveQuota(index, target));
}

function explainDecision(index: RuleIndex, target: QuotaTarget, decision: Resolution): Explanation {
  const levels: ExplainedLevel[] = groupsOf(index, target).map(([level, group]) => {
    const applicable = level === "ACCOUNT" || target.supplierId !== null;
    const matching: ExplainedCandidate[] = [];
    const mismatched: ExplainedCandidate[] = [];
    let omittedStoreMismatches = 0;
    for (const rule of group?.ordered ?? []) {
      const matches = rule.storeId === null || rule.storeId === target.storeId;
      if (!matches) {
        if (mismatched.length < MAX_LISTED_STORE_MISMATCHES) mismatched.push(candidate(rule, "store_mismatch"));
        else omittedStoreMismatches++;
        continue;
      }
      matching.push(candidate(rule, outcomeOf(rule, level, decision)));
    }
    return { level, applicable, candidates: [...matching, ...mismatched], omittedStoreMismatches };
  });
  return {
    storeId: target.storeId,
    levels,
    default: { minimum: index.defaultMinimum, outcome: decision.kind === "DEFAULT" ? "selected" : "shadowed_by_higher_level" },
    decidedBy: { kind: decision.kind, ruleId: decision.rule?.id ?? null },
  };
}

function candidate(rule: IndexedRule, outcome: CandidateOutcome): ExplainedCandidate {
  return {
    ruleId: rule.id,
    accountId: rule.accountId,
    supplierId: rule.supplierId,
    storeId: rule.storeId,
    minimum: rule.minimum,
    outcome,
  };
}

function outcomeOf(rule: IndexedRule, level: QuotaLevel, decision: Resolution): CandidateOutcome {
  const winner = decision.rule!;
  if (rule === winner) return "selected";
  if (level !== decision.kind) return "shadowed_by_higher_level";
  return rule.minimum < winner.minimum ? "lower_minimum" : "tie_older_rule_wins";
}

/** One order to evaluate: storeId already defaulted from svc-store by the caller. */
export interface QuotaOrder extends QuotaTarget {
  amount: number;
}

export interface QuotaResult {
  allowed: boolean;
  reason: null | "quota_min_not_met";
  effectiveMinimum: number;
  amount: number;
  shortfall: number;
  source: { kind: QuotaSourceKind; ruleId: string | null };
  enforcement: QuotaEnforcement;
}

export interface ExplainedQuotaResult extends QuotaResult {
  explanation: Explanation;
}

/** An order's evaluation: its resolved minimum, whether it passes and by how much it falls short. */
export function evaluateQuota(index: RuleIndex, order: QuotaOrder): QuotaResult {
  return resultOf(order, resolveQuota(index, order));
}

/** evaluateQuota with the explanation of the same resolution (the order is resolved once). */
export function evaluateExplained(index: RuleIndex, order: QuotaOrder): ExplainedQuotaResult {
  const decision = resolveQuota(index, order);
  return { ...resultOf(order, decision), explanation: explainDecision(index, order, decision) };
}

/** What a resolved minimum does to an amount: the one verdict evaluation and the impact replay share. */
export type QuotaVerdict = "met" | "warned" | "blocked";

export function verdictOf(amount: number, { minimum, enforcement }: Pick<Resolution, "minimum" | "enforcement">): QuotaVerdict {
  if (amount >= minimum) return "met";
  // A WARN minimum never refuses: the order goes through with the shortfall reported.
  return enforcement === "WARN" ? "warned" : "blocked";
}

function resultOf(order: QuotaOrder, decision: Resolution): QuotaResult {
  const { kind, rule, minimum, enforcement } = decision;
  const verdict = verdictOf(order.amount, decision);
  const met = verdict === "met";
  return {
    allowed: verdict !== "blocked",
    reason: met ? null : "quota_min_not_met",
    effectiveMinimum: minimum,
    amount: order.amount,
    shortfall: met ? 0 : minimum - order.amount,
    source: { kind, ruleId: rule?.id ?? null },
    enforcement,
  };
}
