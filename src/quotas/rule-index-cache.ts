import {
  buildRuleIndex,
  scopeMatchesTarget,
  type IndexedRule,
  type QuotaEnforcement,
  type QuotaTarget,
  type RuleIndex,
  type RuleSnapshot,
} from "../common/rule-index";

/** A tenant's rule version and default minimum, read together (tenants row). */
export interface RuleHead {
  /** tenants.rules_version; -1 when the tenant has no row. */
  version: number;
  defaultMinimum: number;
  /** The default's enforcement; absent: BLOCK. */
  defaultEnforcement?: QuotaEnforcement;
}

/** What one load read, as one consistent snapshot (one D1 batch). */
export interface RuleLoad extends RuleHead {
  /** Every rule of the tenant when it has at most the `wholeUpTo` asked; null when it has more, or none was asked. */
  whole: IndexedRule[] | null;
  /** The rules whose scope is one of the targets' probes (see probesOf): all an order's resolution can use. */
  matching: IndexedRule[];
  bookmark?: string | null;
  origin?: string;
}

/** Where the cache reads a tenant's rules from (D1 in the Worker, a fake in unit tests). */
export interface RuleSource {
  /**
   * Which database the source reads (a tenant's shard). Rules read from another one (before the
   * tenant moved) are read again: their versions and bookmark belong to that database.
   */
  readonly origin?: string;
  /** tenants.rules_version and the default now: one cheap indexed read. */
  currentHead(tenantId: string): Promise<RuleHead>;
  /** One round trip: the head, the rules the targets can match, and (if asked) the whole tenant when it is that small. */
  load(tenantId: string, request: { targets: readonly QuotaTarget[]; wholeUpTo: number | null }): Promise<RuleLoad>;
  /** For explanations: every rule of the targets' level keys, of every store (not cached). */
  loadGroups(tenantId: string, targets: readonly QuotaTarget[]): Promise<RuleSnapshot>;
}

export interface RuleIndexCacheOptions {
  /** Tenants whose head (version, default) is kept at most; least recently used are evicted first. */
  maxTenants?: number;
  /** Estimated bytes of cached rules kept at most over all tenants: bounds isolate memory whatever the tenants. */
  maxBytes?: number;
  /** A tenant of at most this many rules is cached whole (one index answers any order); a larger one per order target. */
  wholeTenantRules?: number;
  /** How long a head is trusted before the version is checked again. */
  recheckMs?: number;
  /**
   * Past `recheckMs` and under this age, cached rules are still served while a check runs in the
   * background (when the caller can run one); older, the request checks first. Bounds staleness.
   */
  maxStaleMs?: number;
  now?: () => number;
}

/** What one committed write changed, so the writer's isolate can apply it without reading the tenant again. */
export interface RuleChange {
  upserted?: IndexedRule[];
  deletedIds?: string[];
  defaultMinimum?: number;
  defaultEnforcement?: QuotaEnforcement;
}

/** What the isolate knows of one tenant: plain data. */
interface TenantHead extends RuleHead {
  origin: string | undefined;
  bookmark: string | null;
  /** When `version` was last confirmed current (start of that read). */
  checkedAt: number;
  /** When a background check started (no request awaits it); null: none running. */
  refreshingSince: number | null;
  /** More rules than `wholeTenantRules` when last read: cached per target, never whole. */
  large: boolean;
}

/** Cached rules of one tenant at one version: the whole tenant's index, or one order target's matching rules. */
interface Piece {
  origin: string | undefined;
  version: number;
  bytes: number;
  /** Whole-tenant pieces: the rules and their index. */
  whole?: { rules: IndexedRule[]; index: RuleIndex };
  /** Target pieces: the (at most six) rules that can decide the target. */
  rules?: IndexedRule[];
}

/** Runs a check of the tenant's rules after the answer, with a source of its own (`waitUntil`). */
export type BackgroundRunner = (check: (source: RuleSource) => Promise<unknown>) => void;

/** A background check that has not finished by then is presumed dead: the next request may start another. */
const BACKGROUND_CHECK_TIMEOUT_MS = 10_000;

/** Write floors are only needed for the few tenants written to in the last moments. */
const MAX_WRITE_FLOORS = 1000;

/**
 * Estimated isolate bytes of cached data (V8: objects, one-byte strings, map entries). Measured
 * by `npm run bench -- rules-scale` (heap growth per rule cached); kept on the high side.
 */
const RULE_BYTES = 160;
const STRING_BYTES = 24;
const WHOLE_INDEX_BYTES_PER_RULE = 150;
const PIECE_BYTES = 200;
/** A head, its map entry and its key. */
export const HEAD_BYTES = 300;

function ruleBytes(rule: IndexedRule): number {
  let bytes = RULE_BYTES + STRING_BYTES + rule.id.length;
  for (const key of [rule.accountId, rule.supplierId, rule.storeId]) if (key !== null) bytes += STRING_BYTES + 2 * key.length;
  return bytes;
}

/** A map key per (tenant, target): the length prefixes keep any two apart whatever their characters. */
function pieceKey(tenantId: string, target: QuotaTarget | null): string {
  if (target === null) return `${tenantId.length}:${tenantId}*`;
  const { accountId, supplierId, storeId } = target;
  return `${tenantId.length}:${tenantId}${accountId.length}:${accountId}${supplierId?.length ?? -1}:${supplierId ?? ""}${storeId ?? "\u0000"}`;
}

function uniqueRules(rules: Iterable<IndexedRule>): IndexedRule[] {
  const byId = new Map<string, IndexedRule>();
  for (const rule of rules) byId.set(rule.id, rule);
  return [...byId.values()];
}

/**
 * The rules an evaluation needs, in isolate memory, holding plain data only.
 *
 * A small tenant (at most `wholeTenantRules` rules) is cached whole, as one compiled index: any
 * order resolves from it without I/O. A larger one is cached per order target (account, supplier,
 * store): the at most six rules whose scope can match it (see probesOf), read by indexed lookups,
 * the missing targets of one call in one round trip. So neither the cost of a request nor the
 * memory of a cached tenant grows with the tenant's rule count, and every cached piece counts its
 * estimated bytes against one bound (`maxBytes`, least recently used evicted first).
 *
 * Freshness: each piece carries the tenants.rules_version it was read at and is used only while
 * that is the tenant's head version. A head is trusted for `recheckMs`; from then until
 * `maxStaleMs`, a request that can run work after its answer still answers and checks the version
 * in the background (one check at a time per tenant); older, the request checks first. Every rule
 * or default write bumps the version in its own batch, and the writing isolate applies it at once
 * (`applyWrite`).
 *
 * Workers forbid one request from awaiting I/O that another request started, so nothing here is a
 * promise shared between requests: a request that misses reads for itself and stores the result.
 */
export class RuleIndexCache {
  private readonly heads = new Map<string, TenantHead>();
  private readonly pieces = new Map<string, Piece>();
  /** The version a local write produced: an older snapshot read concurrently must not be cached. */
  private readonly writeFloors = new Map<string, number>();
  private totalBytes = 0;
  readonly maxTenants: number;
  readonly maxBytes: number;
  readonly wholeTenantRules: number;
  private readonly recheckMs: number;
  private readonly maxStaleMs: number;
  private readonly now: () => number;
  /** Counters for tests and diagnostics: each load and version check is one D1 round trip. */
  readonly stats = { hits: 0, staleHits: 0, backgroundChecks: 0, versionChecks: 0, loads: 0, appliedWrites: 0, evictions: 0 };

  constructor(options: RuleIndexCacheOptions = {}) {
    this.maxTenants = options.maxTenants ?? 10_000;
    this.maxBytes = options.maxBytes ?? 24 * 2 ** 20;
    this.wholeTenantRules = options.wholeTenantRules ?? 2000;
    this.recheckMs = options.recheckMs ?? 1000;
    this.maxStaleMs = Math.max(options.maxStaleMs ?? 2000, this.recheckMs);
    // Read through Date each time (not a captured reference) so tests can move the isolate's clock.
    this.now = options.now ?? (() => Date.now());
  }

  /** The most this cache can hold, in estimated bytes: its pieces' bound plus its heads'. */
  get memoryBound(): number {
    return this.maxBytes + this.maxTenants * HEAD_BYTES;
  }

  /** Estimated bytes held now (pieces and heads). */
  get bytes(): number {
    return this.totalBytes + this.heads.size * HEAD_BYTES;
  }

  get cachedRules(): number {
    let rules = 0;
    for (const piece of this.pieces.values()) rules += piece.whole ? piece.whole.rules.length : piece.rules!.length;
    return rules;
  }

  get size(): number {
    return this.heads.size;
  }

  /**
   * An index that resolves each of `targets` as the tenant's whole rule set would. `inBackground`,
   * when given, lets a due version check run after the answer instead of before it.
   */
  async get(tenantId: string, targets: readonly QuotaTarget[], source: RuleSource, inBackground?: BackgroundRunner): Promise<RuleIndex> {
    return this.indexAt(await this.freshHead(tenantId, source, inBackground), tenantId, targets, source);
  }

  /** The index for `targets` from the tenant's fresh head (undefined: never read), loading what the cache lacks. */
  private async indexAt(head: TenantHead | undefined, tenantId: string, targets: readonly QuotaTarget[], source: RuleSource): Promise<RuleIndex> {
    if (!head) return this.load(tenantId, targets, source, true);
    if (!head.large) {
      const piece = this.piece(pieceKey(tenantId, null), head);
      return piece ? piece.whole!.index : this.load(tenantId, targets, source, true);
    }
    const rules: IndexedRule[] = [];
    for (const target of targets) {
      const piece = this.piece(pieceKey(tenantId, target), head);
      if (!piece) return this.load(tenantId, targets, source, false);
      rules.push(...piece.rules!);
    }
    return buildRuleIndex({
      version: head.version,
      defaultMinimum: head.defaultMinimum,
      defaultEnforcement: head.defaultEnforcement,
      rules: uniqueRules(rules),
      bookmark: head.bookmark,
    });
  }

  /**
   * An index for explaining `targets`: every rule of their level keys (other stores' too). A small
   * tenant's cached index holds them; a large tenant's are read (explanations are not the hot path).
   */
  async getForExplanation(tenantId: string, targets: readonly QuotaTarget[], source: RuleSource, inBackground?: BackgroundRunner): Promise<RuleIndex> {
    const head = await this.freshHead(tenantId, source, inBackground);
    if (head?.large) return buildRuleIndex(await source.loadGroups(tenantId, targets));
    const index = await this.indexAt(head, tenantId, targets, source);
    // A first load may find the tenant large: that index holds only the targets' own rules.
    if (this.heads.get(tenantId)?.large) return buildRuleIndex(await source.loadGroups(tenantId, targets));
    return index;
  }

  /** The tenant's head once its freshness allows using it (checked first when too old); undefined: never read. */
  private async freshHead(tenantId: string, source: RuleSource, inBackground?: BackgroundRunner): Promise<TenantHead | undefined> {
    const head = this.heads.get(tenantId);
    if (!head || head.origin !== source.origin) return undefined;
    this.heads.delete(tenantId);
    this.heads.set(tenantId, head);
    const age = this.now() - head.checkedAt;
    if (age < this.recheckMs) {
      this.stats.hits++;
      return head;
    }
    if (inBackground && age < this.maxStaleMs) {
      this.stats.staleHits++;
      if (head.refreshingSince === null || this.now() - head.refreshingSince > BACKGROUND_CHECK_TIMEOUT_MS) {
        head.refreshingSince = this.now();
        this.stats.backgroundChecks++;
        inBackground((own) => this.revalidate(tenantId, own).finally(() => (head.refreshingSince = null)));
      }
      return head;
    }
    await this.revalidate(tenantId, source);
    const checked = this.heads.get(tenantId);
    return checked && checked.checkedAt !== -Infinity && checked.origin === source.origin ? checked : undefined;
  }

  /** Confirms the head's version (one cheap read), or moves it to the version read: older pieces then miss. */
  private async revalidate(tenantId: string, source: RuleSource): Promise<void> {
    const startedAt = this.now();
    this.stats.versionChecks++;
    const current = await source.currentHead(tenantId);
    // Another request may have replaced the head meanwhile (a load, a local write): only move forward.
    const latest = this.heads.get(tenantId);
    if (!latest || latest.origin !== source.origin) return;
    if (current.version < (this.writeFloors.get(tenantId) ?? -Infinity)) {
      latest.checkedAt = -Infinity; // older than a local write (a lagging replica): never confirmed, read again
    } else if (current.version === latest.version) {
      if (latest.checkedAt < startedAt) latest.checkedAt = startedAt;
    } else if (current.version > latest.version) {
      Object.assign(latest, {
        version: current.version,
        defaultMinimum: current.defaultMinimum,
        defaultEnforcement: current.defaultEnforcement,
        checkedAt: startedAt,
        bookmark: null,
      });
    }
  }

  /** The piece under `key` if it is of the head's version and database. */
  private piece(key: string, head: TenantHead): Piece | undefined {
    const piece = this.pieces.get(key);
    if (!piece || piece.version !== head.version || piece.origin !== head.origin) return undefined;
    this.pieces.delete(key);
    this.pieces.set(key, piece);
    return piece;
  }

  private async load(tenantId: string, targets: readonly QuotaTarget[], source: RuleSource, wantWhole: boolean): Promise<RuleIndex> {
    const startedAt = this.now();
    this.stats.loads++;
    const loaded = await source.load(tenantId, { targets, wholeUpTo: wantWhole ? this.wholeTenantRules : null });
    const snapshot: RuleSnapshot = {
      version: loaded.version,
      defaultMinimum: loaded.defaultMinimum,
      defaultEnforcement: loaded.defaultEnforcement,
      rules: loaded.whole ?? loaded.matching,
      bookmark: loaded.bookmark ?? null,
      origin: loaded.origin,
    };
    const index = buildRuleIndex(snapshot);
    const current = this.heads.get(tenantId);
    const sameDatabase = current !== undefined && current.origin === loaded.origin;
    // A request that finished first, or a local write, may know a newer version: answer, do not cache.
    if (sameDatabase && current.version > loaded.version) return index;
    const floor = this.writeFloors.get(tenantId);
    if (floor !== undefined && loaded.version < floor) return index;
    this.writeFloors.delete(tenantId);
    const large = loaded.whole === null && (wantWhole || (sameDatabase && current.large));
    const checkedAt = sameDatabase && current.version === loaded.version ? Math.max(current.checkedAt, startedAt) : startedAt;
    this.setHead(tenantId, {
      version: loaded.version,
      defaultMinimum: loaded.defaultMinimum,
      defaultEnforcement: loaded.defaultEnforcement,
      origin: loaded.origin,
      bookmark: loaded.bookmark ?? null,
      checkedAt,
      refreshingSince: sameDatabase ? current.refreshingSince : null,
      large,
    });
    if (loaded.whole) {
      this.storeWhole(tenantId, loaded.whole, index, loaded.version, loaded.origin);
    } else {
      this.forgetPiece(pieceKey(tenantId, null));
      for (const target of targets) {
        const rules = loaded.matching.filter((rule) => scopeMatchesTarget(rule, target));
        let bytes = PIECE_BYTES + pieceKey(tenantId, target).length;
        for (const rule of rules) bytes += ruleBytes(rule);
        this.storePiece(pieceKey(tenantId, target), { origin: loaded.origin, version: loaded.version, bytes, rules });
      }
    }
    return index;
  }

  private storeWhole(tenantId: string, rules: IndexedRule[], index: RuleIndex, version: number, origin: string | undefined): void {
    let bytes = PIECE_BYTES;
    for (const rule of rules) bytes += ruleBytes(rule) + WHOLE_INDEX_BYTES_PER_RULE;
    this.storePiece(pieceKey(tenantId, null), { origin, version, bytes, whole: { rules, index } });
  }

  private setHead(tenantId: string, head: TenantHead): void {
    this.heads.delete(tenantId);
    this.heads.set(tenantId, head);
    while (this.heads.size > this.maxTenants) {
      const oldest = this.heads.keys().next().value as string;
      this.heads.delete(oldest);
      this.forgetPiece(pieceKey(oldest, null));
    }
  }

  private storePiece(key: string, piece: Piece): void {
    this.forgetPiece(key);
    this.pieces.set(key, piece);
    this.totalBytes += piece.bytes;
    while (this.pieces.size > 1 && this.totalBytes > this.maxBytes) {
      this.stats.evictions++;
      this.forgetPiece(this.pieces.keys().next().value as string);
    }
  }

  private forgetPiece(key: string): void {
    const piece = this.pieces.get(key);
    if (!piece) return;
    this.pieces.delete(key);
    this.totalBytes -= piece.bytes;
  }

  /**
   * Called by the writer after its batch committed with `version`. When this isolate holds the
   * version just before, the change is applied (a whole index is updated, a large tenant's pieces
   * of the old version simply miss); otherwise what is known is dropped, and no snapshot older
   * than `version` will be cached again.
   */
  applyWrite(tenantId: string, version: number, change: RuleChange, bookmark: string | null = null): void {
    const head = this.heads.get(tenantId);
    if (head && head.version >= version) return;
    if (!head || head.version !== version - 1) {
      this.noteWrite(tenantId, version);
      return;
    }
    const wholeKey = pieceKey(tenantId, null);
    const piece = head.large ? undefined : this.piece(wholeKey, head);
    if (!head.large && !piece) {
      this.noteWrite(tenantId, version);
      return;
    }
    this.stats.appliedWrites++;
    const defaultMinimum = change.defaultMinimum ?? head.defaultMinimum;
    const defaultEnforcement = change.defaultEnforcement ?? head.defaultEnforcement;
    this.setHead(tenantId, { ...head, version, defaultMinimum, defaultEnforcement, bookmark, checkedAt: this.now() });
    if (!piece) return;
    const rules = applyChange(piece.whole!.rules, change);
    if (rules.length > this.wholeTenantRules) {
      this.forgetPiece(wholeKey);
      this.heads.get(tenantId)!.large = true;
      return;
    }
    this.storeWhole(tenantId, rules, buildRuleIndex({ version, defaultMinimum, defaultEnforcement, rules, bookmark }), version, head.origin);
  }

  /** A write committed `version` but this isolate cannot apply it: the next request reads the tenant again. */
  noteWrite(tenantId: string, version: number): void {
    const head = this.heads.get(tenantId);
    if (head && head.version >= version) return;
    // Keep what size the tenant has (no whole read for a large one); its version must be read again.
    if (head) head.checkedAt = -Infinity;
    this.forgetPiece(pieceKey(tenantId, null));
    this.writeFloors.delete(tenantId);
    this.writeFloors.set(tenantId, version);
    if (this.writeFloors.size > MAX_WRITE_FLOORS) this.writeFloors.delete(this.writeFloors.keys().next().value as string);
  }

  /** Drops what is known of the tenant (e.g. after a write whose outcome is unknown); pieces left behind carry their version. */
  forget(tenantId: string): void {
    this.heads.delete(tenantId);
    this.forgetPiece(pieceKey(tenantId, null));
  }

  /** Drops everything (tests; an isolate under memory pressure). */
  clear(): void {
    this.heads.clear();
    this.pieces.clear();
    this.writeFloors.clear();
    this.totalBytes = 0;
  }
}

/** The rules after one write's change. */
function applyChange(rules: IndexedRule[], change: RuleChange): IndexedRule[] {
  const replaced = new Set([...(change.deletedIds ?? []), ...(change.upserted ?? []).map((rule) => rule.id)]);
  const kept = replaced.size ? rules.filter((rule) => !replaced.has(rule.id)) : rules;
  return change.upserted?.length ? [...kept, ...change.upserted] : kept;
}

/** The isolate's cache: every request of this Worker instance reads it; it holds no promise. */
export const ruleIndexCache = new RuleIndexCache();
