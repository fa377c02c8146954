import { buildRuleIndex, type IndexedRule, type RuleIndex, type RuleSnapshot } from "./rule-index";

/** Where the cache reads a tenant's rules from (D1 in the Worker, a fake in unit tests). */
export interface RuleSource {
  /**
   * Which database the source reads (a tenant's shard). An index read from another one (before the
   * tenant moved) is read again: its versions and bookmark belong to that database.
   */
  readonly origin?: string;
  /** tenants.rules_version now: one cheap indexed read. */
  currentVersion(tenantId: string): Promise<number>;
  /** The tenant's rules and default minimum, read as one consistent snapshot. */
  loadSnapshot(tenantId: string): Promise<RuleSnapshot>;
}

export interface RuleIndexCacheOptions {
  /** Tenants kept at most (least recently used are evicted first). */
  maxTenants?: number;
  /** Rules kept at most over all tenants: bounds isolate memory whatever the tenants' sizes. */
  maxRules?: number;
  /** How long an index is trusted before the version is checked again. */
  recheckMs?: number;
  /**
   * Past `recheckMs` and under this age, an index is still served while a check runs in the
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
}

interface Entry {
  snapshot: RuleSnapshot;
  index: RuleIndex;
  /** When the version this index was built from was last confirmed current (start of that read). */
  checkedAt: number;
  weight: number;
  /** When a background check of this entry started (plain data: no request awaits it); null: none running. */
  refreshingSince: number | null;
}

/** Runs a check of the tenant's rules after the answer, with a source of its own (`waitUntil`). */
export type BackgroundRunner = (check: (source: RuleSource) => Promise<unknown>) => void;

/** A background check that has not finished by then is presumed dead: the next request may start another. */
const BACKGROUND_CHECK_TIMEOUT_MS = 10_000;

/** Write floors are only needed for the few tenants written to in the last moments. */
const MAX_WRITE_FLOORS = 1000;

/**
 * Per-tenant compiled rule indexes in isolate memory, holding plain data only.
 *
 * Workers forbid one request from awaiting I/O that another request started, so nothing here
 * is a promise shared between requests: a request that finds its tenant's index due for a check
 * reads the version (and, if it moved, the rules) itself, and stores the result as data for the
 * requests after it. A warm index answers without any I/O for `recheckMs`; from then until
 * `maxStaleMs`, a request that can run work after its answer still answers from the index and
 * checks the version in the background (one check at a time per tenant), so a tenant under steady
 * traffic never waits on D1. Every rule or default write bumps tenants.rules_version in its own
 * batch, so another isolate sees a change within `maxStaleMs`; the isolate that wrote it applies
 * the change to its index at once (`applyWrite`), so it neither serves the old rules nor makes its
 * concurrent requests all reload the tenant.
 */
export class RuleIndexCache {
  private readonly entries = new Map<string, Entry>();
  /** The version a local write produced: an older snapshot read concurrently must not be cached. */
  private readonly writeFloors = new Map<string, number>();
  private totalWeight = 0;
  private readonly maxTenants: number;
  private readonly maxRules: number;
  private readonly recheckMs: number;
  private readonly maxStaleMs: number;
  private readonly now: () => number;
  /** Counters for tests and diagnostics: each load and version check is one D1 round trip. */
  readonly stats = { hits: 0, staleHits: 0, backgroundChecks: 0, versionChecks: 0, loads: 0, appliedWrites: 0 };

  constructor(options: RuleIndexCacheOptions = {}) {
    this.maxTenants = options.maxTenants ?? 1000;
    this.maxRules = options.maxRules ?? 100_000;
    this.recheckMs = options.recheckMs ?? 1000;
    this.maxStaleMs = Math.max(options.maxStaleMs ?? 2000, this.recheckMs);
    // Read through Date each time (not a captured reference) so tests can move the isolate's clock.
    this.now = options.now ?? (() => Date.now());
  }

  /**
   * The tenant's index. `inBackground`, when given, lets a due check run after the answer instead
   * of before it (the caller passes it work to `waitUntil`, with a source of its own).
   */
  async get(tenantId: string, source: RuleSource, inBackground?: BackgroundRunner): Promise<RuleIndex> {
    const entry = this.entries.get(tenantId);
    if (!entry || entry.snapshot.origin !== source.origin) return this.load(tenantId, source);
    this.entries.delete(tenantId);
    this.entries.set(tenantId, entry);
    const age = this.now() - entry.checkedAt;
    if (age < this.recheckMs) {
      this.stats.hits++;
      return entry.index;
    }
    if (inBackground && age < this.maxStaleMs) {
      this.stats.staleHits++;
      if (entry.refreshingSince === null || this.now() - entry.refreshingSince > BACKGROUND_CHECK_TIMEOUT_MS) {
        entry.refreshingSince = this.now();
        this.stats.backgroundChecks++;
        inBackground((own) => this.revalidate(tenantId, own, entry).finally(() => (entry.refreshingSince = null)));
      }
      return entry.index;
    }
    return this.revalidate(tenantId, source, entry);
  }

  /** Confirms `entry` is the tenant's current version (one cheap read), else reads the tenant again. */
  private async revalidate(tenantId: string, source: RuleSource, entry: Entry): Promise<RuleIndex> {
    const startedAt = this.now();
    this.stats.versionChecks++;
    const version = await source.currentVersion(tenantId);
    // Another request of this isolate may have stored a newer index meanwhile: prefer it.
    const latest = this.entries.get(tenantId) ?? entry;
    if (version === latest.index.version) {
      if (this.entries.get(tenantId) === latest && latest.checkedAt < startedAt) latest.checkedAt = startedAt;
      return latest.index;
    }
    return this.load(tenantId, source);
  }

  /**
   * Called by the writer after its batch committed with `version`. When this isolate holds the
   * index of the version just before, the change is applied to it (no read); otherwise the
   * index is dropped, and no snapshot older than `version` will be cached again.
   */
  applyWrite(tenantId: string, version: number, change: RuleChange, bookmark: string | null = null): void {
    const entry = this.entries.get(tenantId);
    if (entry && entry.index.version >= version) return;
    if (entry && entry.index.version === version - 1) {
      this.stats.appliedWrites++;
      this.store(tenantId, { ...applyChange(entry.snapshot, version, change), bookmark }, this.now());
      return;
    }
    this.noteWrite(tenantId, version);
  }

  /** A write committed `version` but this isolate cannot apply it: the next request reads the tenant again. */
  noteWrite(tenantId: string, version: number): void {
    const entry = this.entries.get(tenantId);
    if (entry && entry.index.version >= version) return;
    this.forget(tenantId);
    this.writeFloors.delete(tenantId);
    this.writeFloors.set(tenantId, version);
    if (this.writeFloors.size > MAX_WRITE_FLOORS) this.writeFloors.delete(this.writeFloors.keys().next().value as string);
  }

  /** Drops what is known of the tenant (e.g. after a write whose outcome is unknown). */
  forget(tenantId: string): void {
    const entry = this.entries.get(tenantId);
    if (!entry) return;
    this.entries.delete(tenantId);
    this.totalWeight -= entry.weight;
  }

  get size(): number {
    return this.entries.size;
  }

  get cachedRules(): number {
    return this.totalWeight - this.entries.size;
  }

  private async load(tenantId: string, source: RuleSource): Promise<RuleIndex> {
    const startedAt = this.now();
    this.stats.loads++;
    const snapshot = await source.loadSnapshot(tenantId);
    const current = this.entries.get(tenantId);
    // A request that finished first, or a local write, may already hold this version or a newer one
    // (of the same database: versions of a tenant's old shard say nothing of its new one).
    if (current && current.snapshot.origin === snapshot.origin && current.index.version >= snapshot.version) {
      if (current.index.version === snapshot.version && current.checkedAt < startedAt) current.checkedAt = startedAt;
      return current.index;
    }
    const floor = this.writeFloors.get(tenantId);
    if (floor !== undefined && snapshot.version < floor) return buildRuleIndex(snapshot);
    this.writeFloors.delete(tenantId);
    return this.store(tenantId, snapshot, startedAt);
  }

  private store(tenantId: string, snapshot: RuleSnapshot, checkedAt: number): RuleIndex {
    this.forget(tenantId);
    const index = buildRuleIndex(snapshot);
    const weight = index.ruleCount + 1;
    this.entries.set(tenantId, { snapshot, index, checkedAt, weight, refreshingSince: null });
    this.totalWeight += weight;
    while (this.entries.size > 1 && (this.entries.size > this.maxTenants || this.totalWeight > this.maxRules)) {
      this.forget(this.entries.keys().next().value as string);
    }
    return index;
  }
}

/** The snapshot of `version`: `snapshot` (the version before) with one write's change applied. */
function applyChange(snapshot: RuleSnapshot, version: number, change: RuleChange): RuleSnapshot {
  const replaced = new Set([...(change.deletedIds ?? []), ...(change.upserted ?? []).map((rule) => rule.id)]);
  const rules = replaced.size ? snapshot.rules.filter((rule) => !replaced.has(rule.id)) : snapshot.rules;
  return {
    version,
    defaultMinimum: change.defaultMinimum ?? snapshot.defaultMinimum,
    rules: change.upserted?.length ? [...rules, ...change.upserted] : rules,
    // Still the same database's rules: the next request keeps using the index without reading it again.
    origin: snapshot.origin,
  };
}

/** The isolate's cache: every request of this Worker instance reads it; it holds no promise. */
export const ruleIndexCache = new RuleIndexCache();
