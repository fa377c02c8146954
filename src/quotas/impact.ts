import type { Db } from "../platform/data/database";
import { ApiError, type ProblemItem } from "../platform/core/errors";
import { idPrefixes, newId } from "../platform/core/ids";
import { compareText, computedListToken, KeysetSelection, openComputedListToken, type ComputedList } from "../platform/data/pagination";
import { factPages, type FactWindow } from "./order-facts";
import { readRulesByScope, readRulesForChanges } from "./queries";
import {
  buildRuleIndex,
  indexedRuleOf,
  probesOf,
  resolveQuota,
  verdictOf,
  type IndexedRule,
  type QuotaEnforcement,
  type QuotaTarget,
  type Resolution,
  type RuleIndex,
  type Scope,
} from "../common/rule-index";
import { ruleIndexCache } from "./rule-index-cache";
import {
  IMPACT_DEFAULT_DAYS,
  ruleFieldsOf,
  scopeKeyOf,
  type ImpactAccount,
  type ImpactAnswer,
  type ImpactBody,
  type RuleBody,
  type RuleChangeInput,
} from "./schemas";

/*
 * The impact of a rule change: every quota order placed or refused in a window (order-facts.ts)
 * replayed against today's rules and against today's rules with the changes, by the resolver that
 * evaluates (resolveQuota, verdictOf), so the answer cannot drift from evaluation. Nothing is
 * written. The window is read a page at a time in (account, supplier, store) order: a key is
 * resolved once for all its orders, and only the page, the current key and the accounts page being
 * built are held, whatever the window holds.
 */

/** Facts read per page (one query each); tests lower it so that keys run over several pages. */
export const impactPaging = { factsPerPage: 20_000 };
/** How often a replay of a large tenant starts over when a rule write lands between its pages. */
const MAX_ATTEMPTS = 3;
const DAY_MS = 86_400_000;

interface QuotaDefault {
  minimum: number;
  enforcement: QuotaEnforcement;
}

/** What the changes make of today's rules. */
interface PlannedChanges {
  /** Today's rules the changes replace or delete. */
  removedIds: Set<string>;
  /** The rules the changes create or replace, as they would be stored (a replaced rule keeps its id). */
  added: IndexedRule[];
}

const ruleOf = (id: string, body: RuleBody) => indexedRuleOf({ id, ...ruleFieldsOf(body) });

/**
 * The changes applied in order to the rules they name, answering what the writes would, one after
 * another: first 404 not_found for a replace or delete of a rule that is not there (then), then 409
 * duplicate_scope for a create, or a replace, onto a scope another rule holds (then). Every failing
 * change is listed in errors[].
 */
function planChanges(named: readonly IndexedRule[], changes: readonly RuleChangeInput[]): PlannedChanges {
  const today = new Map(named.map((rule) => [rule.id, rule]));
  const alive = new Set(today.keys());
  const unknown: ProblemItem[] = [];
  changes.forEach((change, index) => {
    if (change.op === "create") return;
    if (!alive.has(change.ruleId)) {
      const why = today.has(change.ruleId) ? "an earlier change deletes it" : "not a rule of the tenant";
      unknown.push({ index, field: `body.changes.${index}.ruleId`, code: "not_found", message: `Quotas Rule ${change.ruleId}: ${why}` });
    } else if (change.op === "delete") alive.delete(change.ruleId);
  });
  if (unknown.length)
    throw new ApiError("not_found", `Quotas Rule not found: ${unknown[0].message} (changes[${unknown[0].index}]); see errors[].`, { errors: unknown });

  const current = new Map(today);
  /** Who holds each scope the changes touch: a rule of today's, or the rule changes[index] creates. */
  const holders = new Map<string, { ruleId: string; index?: number }>(named.map((rule) => [scopeKeyOf(rule), { ruleId: rule.id }]));
  const removedIds = new Set<string>();
  const added = new Map<string, IndexedRule>();
  const taken: ProblemItem[] = [];
  changes.forEach((change, index) => {
    if (change.op === "delete") {
      const rule = current.get(change.ruleId)!;
      holders.delete(scopeKeyOf(rule));
      current.delete(rule.id);
      removedIds.add(rule.id);
      added.delete(rule.id);
      return;
    }
    const ruleId = change.op === "replace" ? change.ruleId : null;
    const scope = scopeKeyOf(change.rule);
    const holder = holders.get(scope);
    if (holder && holder.ruleId !== ruleId) {
      const whose = holder.index === undefined ? `Quotas Rule ${holder.ruleId}` : `the rule changes[${holder.index}] creates`;
      taken.push({
        index,
        field: `body.changes.${index}.rule`,
        code: "duplicate_scope",
        message: `this accountId, supplierId and storeId are the scope of ${whose}`,
      });
      return;
    }
    const rule = ruleOf(ruleId ?? newId(idPrefixes.rule), change.rule);
    if (ruleId !== null) {
      holders.delete(scopeKeyOf(current.get(ruleId)!));
      removedIds.add(ruleId);
    }
    holders.set(scope, ruleId === null ? { ruleId: rule.id, index } : { ruleId });
    current.set(rule.id, rule);
    added.set(rule.id, rule);
  });
  if (taken.length)
    throw new ApiError(
      "duplicate_scope",
      `A Quotas Rule with this accountId, supplierId and storeId already exists (changes[${taken[0].index}]); see errors[].`,
      { errors: taken },
    );
  return { removedIds, added: [...added.values()] };
}

/** The two indexes a page's keys resolve with: today's rules, and today's with the changes. */
interface ReplayIndexes {
  before: RuleIndex;
  after: RuleIndex;
}

/** A rule write landed between two pages of a large tenant's replay: start over at the new version. */
class RulesChanged extends Error {}

/**
 * Reads what the replay resolves with, and checks the changes against it (404, 409). A small tenant
 * is read whole once; a large one (more rules than the rule cache keeps whole) a page at a time,
 * only the rules the page's keys can match (their probes), each read checked to be at the version
 * the changes were planned against.
 */
async function replayRules(db: Db, tenantId: string, changes: readonly RuleChangeInput[], proposedDefault: QuotaDefault | undefined) {
  const ids = changes.flatMap((change) => (change.op === "create" ? [] : [change.ruleId]));
  const scopes = changes.flatMap((change): Scope[] => {
    if (change.op === "delete") return [];
    const { accountId, supplierId, storeId } = ruleFieldsOf(change.rule);
    return [[accountId, supplierId, storeId]];
  });
  const read = await readRulesForChanges(db, tenantId, { ids, scopes, wholeUpTo: ruleIndexCache.wholeTenantRules });
  const planned = planChanges([...new Map([...read.byId, ...read.atScopes].map((rule) => [rule.id, rule])).values()], changes);
  const { version } = read.head;
  const before = { version, defaultMinimum: read.head.defaultMinimum, defaultEnforcement: read.head.defaultEnforcement };
  const after = proposedDefault ? { version, defaultMinimum: proposedDefault.minimum, defaultEnforcement: proposedDefault.enforcement } : before;
  const withChanges = (rules: IndexedRule[], added: IndexedRule[]) => rules.filter((rule) => !planned.removedIds.has(rule.id)).concat(added);

  if (read.whole) {
    const indexes: ReplayIndexes = {
      before: buildRuleIndex({ ...before, rules: read.whole }),
      after: buildRuleIndex({ ...after, rules: withChanges(read.whole, planned.added) }),
    };
    return async (): Promise<ReplayIndexes> => indexes;
  }
  const addedAt = new Map(planned.added.map((rule) => [scopeKeyOf(rule), rule]));
  return async (targets: QuotaTarget[]): Promise<ReplayIndexes> => {
    const probes = new Map(targets.flatMap(probesOf).map((probe) => [scopeKeyOf({ accountId: probe[0], supplierId: probe[1], storeId: probe[2] }), probe]));
    const page = await readRulesByScope(db, tenantId, [...probes.values()]);
    if (page.version !== version) throw new RulesChanged();
    const addedHere = [...probes.keys()].flatMap((scope) => addedAt.get(scope) ?? []);
    return { before: buildRuleIndex({ ...before, rules: page.rules }), after: buildRuleIndex({ ...after, rules: withChanges(page.rules, addedHere) }) };
  };
}

type Totals = Omit<ImpactAnswer, "accounts" | "nextToken">;

/** The most newly blocked first, then the most newly allowed, then by key (no supplier or store first): a total order. */
function byImpact(a: ImpactAccount, b: ImpactAccount): number {
  return (
    b.newlyBlocked - a.newlyBlocked ||
    b.newlyAllowed - a.newlyAllowed ||
    compareText(a.accountId, b.accountId) ||
    compareText(a.supplierId ?? "", b.supplierId ?? "") ||
    compareText(a.storeId ?? "", b.storeId ?? "")
  );
}

/** One key's orders as the replay folds them, with its two resolutions. */
interface KeyTally {
  entry: ImpactAccount;
  before: Resolution;
  after: Resolution;
}

const sameKey = (a: QuotaTarget, b: QuotaTarget) => a.accountId === b.accountId && a.supplierId === b.supplierId && a.storeId === b.storeId;

/** A key met for the first time: resolved once, before and after, for all its orders. */
function tallyOf({ accountId, supplierId, storeId }: QuotaTarget, before: RuleIndex, after: RuleIndex): KeyTally {
  const target = { accountId, supplierId, storeId };
  const decided = { before: resolveQuota(before, target), after: resolveQuota(after, target) };
  const entry = { ...target, orders: 0, newlyBlocked: 0, newlyAllowed: 0, minimumBefore: decided.before.minimum, minimumAfter: decided.after.minimum };
  return { ...decided, entry };
}

async function replayOnce(db: Db, tenantId: string, request: ImpactRequest) {
  // The rules and the first page of facts are read side by side: neither needs the other.
  const pages = factPages(db, tenantId, request.window, impactPaging.factsPerPage);
  const [indexesFor, firstPage] = await Promise.all([replayRules(db, tenantId, request.changes, request.default), pages.next()]);
  const totals: Totals = { ordersConsidered: 0, before: { blocked: 0, warned: 0 }, after: { blocked: 0, warned: 0 }, newlyBlocked: 0, newlyAllowed: 0 };
  const selection = new KeysetSelection<ImpactAccount>(request.limit, byImpact);
  const { after: cursor } = request;
  const finish = (tally: KeyTally | null) => {
    if (!tally) return;
    const { entry } = tally;
    const differs = entry.newlyBlocked || entry.newlyAllowed || entry.minimumBefore !== entry.minimumAfter;
    if (differs && (!cursor || byImpact(entry, cursor) > 0)) selection.offer(entry);
  };

  let tally: KeyTally | null = null;
  for (let page = firstPage; !page.done; page = await pages.next()) {
    const groups = page.value;
    const { before, after } = await indexesFor(groups);
    for (const group of groups) {
      if (!tally || !sameKey(tally.entry, group)) {
        finish(tally);
        tally = tallyOf(group, before, after);
      }
      const { entry, before: today, after: proposed } = tally;
      for (const amount of group.amounts) {
        const was = verdictOf(amount, today);
        const would = verdictOf(amount, proposed);
        if (was !== "met") totals.before[was]++;
        if (would !== "met") totals.after[would]++;
        if (was === "blocked" && would !== "blocked") {
          entry.newlyAllowed++;
          totals.newlyAllowed++;
        } else if (would === "blocked" && was !== "blocked") {
          entry.newlyBlocked++;
          totals.newlyBlocked++;
        }
      }
      entry.orders += group.amounts.length;
      totals.ordersConsidered += group.amounts.length;
    }
  }
  finish(tally);
  return { totals, page: selection.page() };
}

/** One page of an impact: the changes, the window and where the accounts page starts. */
interface ImpactRequest {
  changes: readonly RuleChangeInput[];
  default?: QuotaDefault;
  window: FactWindow;
  limit: number;
  /** The last account of the previous page; null for the first page. */
  after: ImpactAccount | null;
}

async function replay(db: Db, tenantId: string, request: ImpactRequest) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await replayOnce(db, tenantId, request);
    } catch (error) {
      if (!(error instanceof RulesChanged)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ApiError("version_mismatch", "The tenant's rules kept changing while the impact was replayed; retry.");
    }
  }
}

/**
 * The window a request names, as stored times: both ends included to the second; `to` omitted is
 * now, `from` omitted the default number of days before `to`.
 */
function windowOf(body: ImpactBody, now: number): FactWindow {
  const to = body.to === undefined ? new Date(now).toISOString() : `${body.to.slice(0, 19)}.999Z`;
  const from = body.from === undefined ? new Date(Date.parse(to) - IMPACT_DEFAULT_DAYS * DAY_MS).toISOString() : `${body.from.slice(0, 19)}.000Z`;
  return { from, to };
}

/**
 * An impact page's nextToken carries the window the first page resolved (so every page replays the
 * same orders, also when the request leaves the window to its defaults) and the last account's sort values.
 */
function cursorOf(window: FactWindow, last: ImpactAccount): (string | number)[] {
  return [window.from, window.to, last.newlyBlocked, last.newlyAllowed, last.accountId, last.supplierId ?? "", last.storeId ?? ""];
}

function fromCursor(values: (string | number)[]): { window: FactWindow; after: ImpactAccount } | null {
  const [from, to, newlyBlocked, newlyAllowed, accountId, supplierId, storeId] = values;
  const texts = [from, to, accountId, supplierId, storeId];
  if (values.length !== 7 || !texts.every((value) => typeof value === "string") || typeof newlyBlocked !== "number" || typeof newlyAllowed !== "number")
    return null;
  const after = {
    accountId,
    supplierId: supplierId || null,
    storeId: storeId || null,
    newlyBlocked,
    newlyAllowed,
    orders: 0,
    minimumBefore: 0,
    minimumAfter: 0,
  } as ImpactAccount;
  return { window: { from: from as string, to: to as string }, after };
}

/**
 * POST …/quotas/impact: replays the tenant's quota orders of the window against its rules with and
 * without the changes and answers the totals and one page of accounts (`secret` signs nextToken).
 */
export async function assessImpact(
  db: Db,
  tenantId: string,
  secret: string,
  body: ImpactBody,
  page: { limit: number; nextToken?: string },
): Promise<ImpactAnswer> {
  const list: ComputedList = { name: "quota_impact_accounts", secret, scope: { tenant: tenantId }, binding: body };
  const token = await openComputedListToken(list, page.nextToken);
  const resumed = token && fromCursor(token);
  if (token && !resumed) throw new ApiError("invalid_next_token", "nextToken was not issued for this list with this request.");
  const window = resumed ? resumed.window : windowOf(body, Date.now());
  const { totals, page: accounts } = await replay(db, tenantId, {
    changes: body.changes,
    default: body.default,
    window,
    limit: page.limit,
    after: resumed ? resumed.after : null,
  });
  const last = accounts.items[accounts.items.length - 1];
  return { ...totals, accounts: accounts.items, nextToken: accounts.more ? await computedListToken(list, cursorOf(window, last)) : null };
}
