import { describe, expect, it } from "vitest";
import { RuleIndexCache, type RuleSource } from "../../src/quotas/rule-index-cache";
import type { IndexedRule } from "../../src/quotas/rule-index";

/** An in-memory "database" of tenants' rules, counting every read the cache makes of it. */
class FakeSource implements RuleSource {
  tenants = new Map<string, { version: number; defaultMinimum: number; rules: IndexedRule[] }>();
  versionReads = 0;
  snapshotReads = 0;
  /** Resolves the next reads only when released: lets a test interleave a write with a read. */
  gate: Promise<void> | null = null;
  constructor(readonly origin?: string) {}

  write(tenantId: string, change: (t: { defaultMinimum: number; rules: IndexedRule[] }) => void): number {
    const tenant = this.tenants.get(tenantId) ?? { version: 0, defaultMinimum: 0, rules: [] };
    change(tenant);
    tenant.version++;
    this.tenants.set(tenantId, tenant);
    return tenant.version;
  }
  async currentVersion(tenantId: string) {
    this.versionReads++;
    const version = this.tenants.get(tenantId)?.version ?? 0;
    if (this.gate) await this.gate;
    return version;
  }
  async loadSnapshot(tenantId: string) {
    this.snapshotReads++;
    const tenant = this.tenants.get(tenantId) ?? { version: 0, defaultMinimum: 0, rules: [] };
    const snapshot = { version: tenant.version, defaultMinimum: tenant.defaultMinimum, rules: [...tenant.rules], origin: this.origin };
    if (this.gate) await this.gate;
    return snapshot;
  }
  get reads() {
    return this.versionReads + this.snapshotReads;
  }
}

function setup(options: { maxTenants?: number; maxRules?: number } = {}) {
  const clock = { now: 1_000_000 };
  const source = new FakeSource();
  const cache = new RuleIndexCache({ now: () => clock.now, recheckMs: 1000, ...options });
  return { clock, source, cache };
}

const ruleOf = (id: string, minimum: number): IndexedRule => ({ id, accountId: "A", supplierId: null, storeId: null, minimum });

describe("rule index cache", () => {
  it("reads a tenant again from the database it now lives in, even at the same version (a move between shards)", async () => {
    const { cache } = setup();
    const [before, after] = [new FakeSource("SHARD_1"), new FakeSource("SHARD_2")];
    before.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    after.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", before);
    expect((await cache.get("t1", before)).ruleCount).toBe(1);
    expect(after.reads).toBe(0);
    await cache.get("t1", after);
    expect(after.snapshotReads).toBe(1);
    const readsOnceMoved = after.reads;
    await cache.get("t1", after);
    expect(after.reads).toBe(readsOnceMoved);
    // The writer's own change keeps the index of that database warm: no read at all.
    const version = after.write("t1", (t) => t.rules.push(ruleOf("qr_2", 20)));
    cache.applyWrite("t1", version, { upserted: [ruleOf("qr_2", 20)] });
    expect((await cache.get("t1", after)).ruleCount).toBe(2);
    expect(after.reads).toBe(readsOnceMoved);
  });

  it("serves a warm index without any read until the version is due for a check", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", source);
    expect(source.reads).toBe(1);
    for (let i = 0; i < 100; i++) {
      clock.now += 9; // 900 ms in all: still within the recheck window
      await cache.get("t1", source);
    }
    expect(source.reads).toBe(1);
    expect(cache.stats.hits).toBe(100);
  });

  it("sees a foreign write at the first request 1 s after the last check, and not before", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    const first = await cache.get("t1", source);
    const checkedAt = clock.now;

    clock.now += 10;
    source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 20))); // another isolate writes

    clock.now = checkedAt + 999;
    expect((await cache.get("t1", source)).version).toBe(first.version);
    expect(source.versionReads).toBe(0);

    clock.now = checkedAt + 1000;
    const fresh = await cache.get("t1", source);
    expect(fresh.account.get("A")!.anyStore!.minimum).toBe(20);
    expect(source.versionReads).toBe(1);
    expect(source.snapshotReads).toBe(2);
  });

  it("an unchanged version costs one version check a second and no reload", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    const first = await cache.get("t1", source);
    for (let second = 1; second <= 5; second++) {
      clock.now += 1000;
      for (let i = 0; i < 10; i++) expect(await cache.get("t1", source)).toBe(first);
    }
    expect(source.versionReads).toBe(5);
    expect(source.snapshotReads).toBe(1);
  });

  it("the writer's own isolate sees its write at once", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", source);
    const version = source.write("t1", (t) => t.rules.splice(0));
    cache.noteWrite("t1", version);
    const index = await cache.get("t1", source);
    expect(index.version).toBe(version);
    expect(index.ruleCount).toBe(0);
  });

  it("a read that started before a local write is not cached over it", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    let release!: () => void;
    source.gate = new Promise((resolve) => (release = resolve));
    const concurrent = cache.get("t1", source); // reads version 1, then waits
    await Promise.resolve();
    const version = source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 99)));
    cache.noteWrite("t1", version);
    release();
    source.gate = null;
    expect((await concurrent).version).toBe(1); // it ran concurrently with the write: either answer is right
    const after = await cache.get("t1", source);
    expect(after.version).toBe(version);
    expect(after.account.get("A")!.anyStore!.minimum).toBe(99);
  });

  it("never makes a request wait on another's read: each stale request reads for itself", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    let release!: () => void;
    source.gate = new Promise((resolve) => (release = resolve));
    const cold = Array.from({ length: 5 }, () => cache.get("t1", source));
    await Promise.resolve();
    // Each of the five started its own read: nothing pending is shared between them.
    expect(source.snapshotReads).toBe(5);
    release();
    source.gate = null;
    expect(new Set((await Promise.all(cold)).map((index) => index.version))).toEqual(new Set([1]));
    // The first read that finished was stored as data: later requests hit it.
    const loads = source.snapshotReads;
    await cache.get("t1", source);
    expect(source.snapshotReads).toBe(loads);

    clock.now += 1000;
    source.gate = new Promise((resolve) => (release = resolve));
    const due = Array.from({ length: 4 }, () => cache.get("t1", source));
    await Promise.resolve();
    expect(source.versionReads).toBe(4);
    release();
    source.gate = null;
    await Promise.all(due);
    expect(source.snapshotReads).toBe(loads); // the version had not moved: no reload
    await cache.get("t1", source);
    expect(source.versionReads).toBe(4); // and the check was stored: fresh again for 1 s
  });

  it("holds no promise between calls: a cache with a read in flight holds only data", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    source.gate = new Promise(() => undefined); // a read that never ends (its request died)
    void cache.get("t1", source);
    const values = Object.values(cache as unknown as Record<string, unknown>).flatMap((value) =>
      value instanceof Map ? [...value.values()] : [value],
    );
    expect(values.some((value) => value instanceof Promise)).toBe(false);
    source.gate = null;
    expect((await cache.get("t1", source)).version).toBe(1); // the next request is not stuck behind it
  });

  it("applies the writer's own change without reading the tenant again", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10), ruleOf("qr_2", 5)));
    await cache.get("t1", source);
    const reads = source.reads;
    const version = source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 30)));
    cache.applyWrite("t1", version, { upserted: [ruleOf("qr_1", 30)] });
    const next = source.write("t1", (t) => (t.defaultMinimum = 7));
    cache.applyWrite("t1", next, { defaultMinimum: 7 });
    const last = source.write("t1", (t) => t.rules.splice(1, 1));
    cache.applyWrite("t1", last, { deletedIds: ["qr_2"] });
    const index = await cache.get("t1", source);
    expect(source.reads).toBe(reads);
    expect(cache.stats.appliedWrites).toBe(3);
    expect(index).toMatchObject({ version: last, defaultMinimum: 7, ruleCount: 1 });
    expect(index.account.get("A")!.anyStore).toMatchObject({ id: "qr_1", minimum: 30 });
  });

  it("reads the tenant again when another isolate wrote in between (a version gap)", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", source);
    source.write("t1", (t) => t.rules.push(ruleOf("qr_9", 90))); // elsewhere
    const version = source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 30))); // here
    cache.applyWrite("t1", version, { upserted: [ruleOf("qr_1", 30)] });
    const index = await cache.get("t1", source);
    expect(cache.stats.appliedWrites).toBe(0);
    expect(source.snapshotReads).toBe(2);
    expect(index).toMatchObject({ version, ruleCount: 2 });
  });

  it("keeps tenants apart", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    source.write("t2", (t) => t.rules.push(ruleOf("qr_2", 20)));
    expect((await cache.get("t1", source)).account.get("A")!.anyStore!.id).toBe("qr_1");
    expect((await cache.get("t2", source)).account.get("A")!.anyStore!.id).toBe("qr_2");
    cache.noteWrite("t1", source.write("t1", (t) => t.rules.splice(0)));
    expect((await cache.get("t2", source)).ruleCount).toBe(1);
    expect(source.snapshotReads).toBe(2);
  });

  it("evicts the least recently used tenants beyond its tenant and rule bounds", async () => {
    const byTenants = setup({ maxTenants: 2 });
    for (const t of ["t1", "t2", "t3"]) byTenants.source.write(t, (x) => x.rules.push(ruleOf(`qr_${t}`, 1)));
    await byTenants.cache.get("t1", byTenants.source);
    await byTenants.cache.get("t2", byTenants.source);
    await byTenants.cache.get("t1", byTenants.source); // t1 is now the most recent
    await byTenants.cache.get("t3", byTenants.source); // evicts t2
    expect(byTenants.cache.size).toBe(2);
    const reads = byTenants.source.snapshotReads;
    await byTenants.cache.get("t1", byTenants.source);
    expect(byTenants.source.snapshotReads).toBe(reads);
    await byTenants.cache.get("t2", byTenants.source);
    expect(byTenants.source.snapshotReads).toBe(reads + 1);

    const byRules = setup({ maxRules: 25 });
    byRules.source.write("big", (x) => x.rules.push(...Array.from({ length: 20 }, (_, i) => ruleOf(`qr_${i}`, i))));
    byRules.source.write("small", (x) => x.rules.push(ruleOf("qr_s", 1)));
    byRules.source.write("huge", (x) => x.rules.push(...Array.from({ length: 30 }, (_, i) => ruleOf(`qr_${i}`, i))));
    await byRules.cache.get("big", byRules.source);
    await byRules.cache.get("small", byRules.source);
    expect(byRules.cache.cachedRules).toBe(21);
    await byRules.cache.get("huge", byRules.source); // alone over the bound: kept, everything else goes
    expect(byRules.cache.size).toBe(1);
    expect(byRules.cache.cachedRules).toBe(30);
  });
});
