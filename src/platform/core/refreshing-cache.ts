import { BoundedCache } from "./bounded-cache";

/** Runs a read after the answer (waitUntil) with a handle of its own: no request awaits it. */
export type BackgroundRead<Source> = (read: (source: Source) => Promise<unknown>) => void;

interface Entry<V> {
  value: V;
  readAt: number;
  /** A background read of this entry is running (plain data: no request awaits it). */
  refreshing: boolean;
}

/**
 * Isolate memory for what nearly every request looks up (API keys, tenant placements): an entry
 * lives `ttlMs`; once it is `refreshAfterMs` old, the next request that uses it answers from it and
 * reads it again after the answer, so under steady traffic no request waits on the lookup. A
 * forgotten key stays forgotten: a read that started before `forget` does not put it back.
 */
export class RefreshingCache<K, V, Source> {
  private readonly entries: BoundedCache<K, Entry<V>>;
  private readonly forgottenAt: BoundedCache<K, number>;

  constructor(
    /** keep: which values are kept (default all); a read whose value is not kept drops the entry. */
    private readonly options: { maxEntries: number; ttlMs: number; refreshAfterMs: number; keep?: (value: V) => boolean },
    /** Reads the current value from the source of truth. */
    private readonly read: (source: Source, key: K) => Promise<V>,
  ) {
    this.entries = new BoundedCache(options.maxEntries, options.ttlMs);
    this.forgottenAt = new BoundedCache(1_000, options.ttlMs);
  }

  /** Whether the entry is held now (a get would answer without reading). */
  has(key: K): boolean {
    return this.entries.get(key) !== undefined;
  }

  async get(source: Source, key: K, inBackground: BackgroundRead<Source>): Promise<V> {
    const cached = this.entries.get(key);
    if (cached === undefined) return this.load(source, key);
    if (!cached.refreshing && Date.now() - cached.readAt >= this.options.refreshAfterMs) {
      cached.refreshing = true;
      inBackground((own) => this.load(own, key).finally(() => (cached.refreshing = false)));
    }
    return cached.value;
  }

  /** Reads the entry now and keeps it (unless it was forgotten while the read ran). */
  async load(source: Source, key: K): Promise<V> {
    const startedAt = Date.now();
    const value = await this.read(source, key);
    this.remember(key, value, startedAt);
    return value;
  }

  /** Keeps a value read elsewhere (at `readAt`), for a lookup that reads two entries in one query. */
  remember(key: K, value: V, readAt = Date.now()): void {
    const forgotten = this.forgottenAt.get(key);
    if (forgotten !== undefined && forgotten >= readAt) return;
    if (this.options.keep && !this.options.keep(value)) this.entries.delete(key);
    else this.entries.set(key, { value, readAt, refreshing: false });
  }

  /** Drops the entry: the next request reads it again. */
  forget(key: K): void {
    this.entries.delete(key);
    this.forgottenAt.set(key, Date.now());
  }
}
