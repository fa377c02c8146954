import { buildRuleIndex, type RuleIndex, type RuleSnapshot } from "./rule-index";

/** Where the cache reads a tenant's rules from (D1 in the Worker, a fake in unit tests). */
export interface RuleSource {
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
  /** How long an index is trusted before the version is checked again (API.md §7: 1 s). */
  recheckMs?: number;
  now?: () => number;
}

interface Entry {
  index: RuleIndex;
  /** When the version this index was built from was last confirmed current (start of that read). */
  checkedAt: number;
  weight: number;
}

/** Write floors are only needed for the few tenants written to in the last moments. */
const MAX_WRITE_FLOORS = 1000;

/**
 * Per-tenant compiled rule indexes in isolate memory.
 *
 * A warm index answers without any I/O for `recheckMs`; then one request checks
 * tenants.rules_version (shared by all concurrent requests) and rebuilds only if it moved.
 * Every rule or default write bumps that version in its own batch, so another isolate sees a
 * change within `recheckMs`, and the isolate that wrote it sees it at once through `noteWrite`.
 */
export class RuleIndexCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<RuleIndex>>();
  /** The version a local write produced: an older snapshot read concurrently must not be cached. */
  private readonly writeFloors = new Map<string, number>();
  private totalWeight = 0;
  private readonly maxTenants: number;
  private readonly maxRules: number;
  private readonly recheckMs: number;
  private readonly now: () => number;
  /** Counters for tests and diagnostics: each load and version check is one D1 round trip. */
  readonly stats = { hits: 0, versionChecks: 0, loads: 0 };

  constructor(options: RuleIndexCacheOptions = {}) {
    this.maxTenants = options.maxTenants ?? 1000;
    this.maxRules = options.maxRules ?? 100_000;
    this.recheckMs = options.recheckMs ?? 1000;
    // Read through Date each time (not a captured reference) so tests can move the isolate's clock.
    this.now = options.now ?? (() => Date.now());
  }

  async get(tenantId: string, source: RuleSource): Promise<RuleIndex> {
    const entry = this.entries.get(tenantId);
    if (entry) {
      this.entries.delete(tenantId);
      this.entries.set(tenantId, entry);
      if (this.now() - entry.checkedAt < this.recheckMs) {
        this.stats.hits++;
        return entry.index;
      }
    }
    const running = this.pending.get(tenantId);
    if (running) return running;
    const task = this.revalidate(tenantId, source, entry).finally(() => {
      if (this.pending.get(tenantId) === task) this.pending.delete(tenantId);
    });
    this.pending.set(tenantId, task);
    return task;
  }

  /**
   * Called by the writer after its batch committed with `version`: the next request in this
   * isolate reads the new rules instead of trusting the cached index for up to `recheckMs`.
   */
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
    this.remove(tenantId);
    // A read already running may predate the write: later requests must not join it.
    this.pending.delete(tenantId);
  }

  get size(): number {
    return this.entries.size;
  }

  get cachedRules(): number {
    return this.totalWeight - this.entries.size;
  }

  private async revalidate(tenantId: string, source: RuleSource, entry: Entry | undefined): Promise<RuleIndex> {
    if (entry) {
      const startedAt = this.now();
      this.stats.versionChecks++;
      const version = await source.currentVersion(tenantId);
      if (version === entry.index.version) {
        // Only refresh the entry still cached: a local write may have replaced or dropped it meanwhile.
        if (this.entries.get(tenantId) === entry) entry.checkedAt = startedAt;
        return entry.index;
      }
    }
    const startedAt = this.now();
    this.stats.loads++;
    const index = buildRuleIndex(await source.loadSnapshot(tenantId));
    const floor = this.writeFloors.get(tenantId);
    if (floor === undefined || index.version >= floor) {
      this.writeFloors.delete(tenantId);
      const current = this.entries.get(tenantId);
      if (!current || current.index.version <= index.version) this.store(tenantId, index, startedAt);
    }
    return index;
  }

  private store(tenantId: string, index: RuleIndex, checkedAt: number): void {
    this.remove(tenantId);
    const weight = index.ruleCount + 1;
    this.entries.set(tenantId, { index, checkedAt, weight });
    this.totalWeight += weight;
    while (this.entries.size > 1 && (this.entries.size > this.maxTenants || this.totalWeight > this.maxRules)) {
      this.remove(this.entries.keys().next().value as string);
    }
  }

  private remove(tenantId: string): void {
    const entry = this.entries.get(tenantId);
    if (!entry) return;
    this.entries.delete(tenantId);
    this.totalWeight -= entry.weight;
  }
}

/** The isolate's cache: every request of this Worker instance shares it. */
export const ruleIndexCache = new RuleIndexCache();
