import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HEAD_BYTES, RuleIndexCache, type RuleSource } from "../../src/quotas/rule-index-cache";
import { buildRuleIndex, levelKeysOf, resolveQuota, scopeMatchesTarget, type IndexedRule, type QuotaTarget } from "../../src/common/rule-index";

/** An in-memory "database" of tenants' rules, counting every read the cache makes of it. */
class FakeSource implements RuleSource {
  tenants = new Map<string, { version: number; defaultMinimum: number; rules: IndexedRule[] }>();
  versionReads = 0;
  snapshotReads = 0;
  /** Rules sent back by loads: whole tenants and matching ones. */
  rulesRead = 0;
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
  private tenant(tenantId: string) {
    return this.tenants.get(tenantId) ?? { version: 0, defaultMinimum: 0, rules: [] };
  }
  async currentHead(tenantId: string) {
    this.versionReads++;
    const { version, defaultMinimum } = this.tenant(tenantId);
    if (this.gate) await this.gate;
    return { version, defaultMinimum };
  }
  async load(tenantId: string, { targets, wholeUpTo }: { targets: readonly QuotaTarget[]; wholeUpTo: number | null }) {
    this.snapshotReads++;
    const { version, defaultMinimum, rules } = this.tenant(tenantId);
    const whole = wholeUpTo !== null && rules.length <= wholeUpTo ? [...rules] : null;
    const matching = rules.filter((rule) => targets.some((target) => scopeMatchesTarget(rule, target)));
    this.rulesRead += (whole?.length ?? 0) + matching.length;
    if (this.gate) await this.gate;
    return { version, defaultMinimum, whole, matching, origin: this.origin };
  }
  async loadGroups(tenantId: string, targets: readonly QuotaTarget[]) {
    this.snapshotReads++;
    const { version, defaultMinimum, rules } = this.tenant(tenantId);
    const keys = new Set(targets.flatMap(levelKeysOf).map((key) => JSON.stringify(key)));
    return { version, defaultMinimum, rules: rules.filter((rule) => keys.has(JSON.stringify([rule.accountId, rule.supplierId]))), origin: this.origin };
  }
  get reads() {
    return this.versionReads + this.snapshotReads;
  }
}

/** The order most tests evaluate: account A, no supplier, no store. */
const A: QuotaTarget[] = [{ accountId: "A", supplierId: null, storeId: null }];

function setup(options: { maxTenants?: number; maxBytes?: number; wholeTenantRules?: number } = {}) {
  const clock = { now: 1_000_000 };
  const source = new FakeSource();
  const cache = new RuleIndexCache({ now: () => clock.now, recheckMs: 1000, ...options });
  return { clock, source, cache };
}

const ruleOf = (id: string, minimum: number): IndexedRule => ({ id, accountId: "A", supplierId: null, storeId: null, minimum, enforcement: "BLOCK" });

describe("rule index cache", () => {
  it("reads a tenant again from the database it now lives in, even at the same version (a move between shards)", async () => {
    const { cache } = setup();
    const [before, after] = [new FakeSource("SHARD_1"), new FakeSource("SHARD_2")];
    before.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    after.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", A, before);
    expect((await cache.get("t1", A, before)).ruleCount).toBe(1);
    expect(after.reads).toBe(0);
    await cache.get("t1", A, after);
    expect(after.snapshotReads).toBe(1);
    const readsOnceMoved = after.reads;
    await cache.get("t1", A, after);
    expect(after.reads).toBe(readsOnceMoved);
    // The writer's own change keeps the index of that database warm: no read at all.
    const version = after.write("t1", (t) => t.rules.push(ruleOf("qr_2", 20)));
    cache.applyWrite("t1", version, { upserted: [ruleOf("qr_2", 20)] });
    expect((await cache.get("t1", A, after)).ruleCount).toBe(2);
    expect(after.reads).toBe(readsOnceMoved);
  });

  it("serves a warm index without any read until the version is due for a check", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", A, source);
    expect(source.reads).toBe(1);
    for (let i = 0; i < 100; i++) {
      clock.now += 9; // 900 ms in all: still within the recheck window
      await cache.get("t1", A, source);
    }
    expect(source.reads).toBe(1);
    expect(cache.stats.hits).toBe(100);
  });

  it("sees a foreign write at the first request 1 s after the last check, and not before", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    const first = await cache.get("t1", A, source);
    const checkedAt = clock.now;

    clock.now += 10;
    source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 20))); // another isolate writes

    clock.now = checkedAt + 999;
    expect((await cache.get("t1", A, source)).version).toBe(first.version);
    expect(source.versionReads).toBe(0);

    clock.now = checkedAt + 1000;
    const fresh = await cache.get("t1", A, source);
    expect(fresh.account.get("A")!.anyStore!.minimum).toBe(20);
    expect(source.versionReads).toBe(1);
    expect(source.snapshotReads).toBe(2);
  });

  it("an unchanged version costs one version check a second and no reload", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    const first = await cache.get("t1", A, source);
    for (let second = 1; second <= 5; second++) {
      clock.now += 1000;
      for (let i = 0; i < 10; i++) expect(await cache.get("t1", A, source)).toBe(first);
    }
    expect(source.versionReads).toBe(5);
    expect(source.snapshotReads).toBe(1);
  });

  it("the writer's own isolate sees its write at once", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", A, source);
    const version = source.write("t1", (t) => t.rules.splice(0));
    cache.noteWrite("t1", version);
    const index = await cache.get("t1", A, source);
    expect(index.version).toBe(version);
    expect(index.ruleCount).toBe(0);
  });

  it("a read that started before a local write is not cached over it", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    let release!: () => void;
    source.gate = new Promise((resolve) => (release = resolve));
    const concurrent = cache.get("t1", A, source); // reads version 1, then waits
    await Promise.resolve();
    const version = source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 99)));
    cache.noteWrite("t1", version);
    release();
    source.gate = null;
    expect((await concurrent).version).toBe(1); // it ran concurrently with the write: either answer is right
    const after = await cache.get("t1", A, source);
    expect(after.version).toBe(version);
    expect(after.account.get("A")!.anyStore!.minimum).toBe(99);
  });

  it("never makes a request wait on another's read: each stale request reads for itself", async () => {
    const { clock, source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    let release!: () => void;
    source.gate = new Promise((resolve) => (release = resolve));
    const cold = Array.from({ length: 5 }, () => cache.get("t1", A, source));
    await Promise.resolve();
    // Each of the five started its own read: nothing pending is shared between them.
    expect(source.snapshotReads).toBe(5);
    release();
    source.gate = null;
    expect(new Set((await Promise.all(cold)).map((index) => index.version))).toEqual(new Set([1]));
    // The first read that finished was stored as data: later requests hit it.
    const loads = source.snapshotReads;
    await cache.get("t1", A, source);
    expect(source.snapshotReads).toBe(loads);

    clock.now += 1000;
    source.gate = new Promise((resolve) => (release = resolve));
    const due = Array.from({ length: 4 }, () => cache.get("t1", A, source));
    await Promise.resolve();
    expect(source.versionReads).toBe(4);
    release();
    source.gate = null;
    await Promise.all(due);
    expect(source.snapshotReads).toBe(loads); // the version had not moved: no reload
    await cache.get("t1", A, source);
    expect(source.versionReads).toBe(4); // and the check was stored: fresh again for 1 s
  });

  it("holds no promise between calls: a cache with a read in flight holds only data", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    source.gate = new Promise(() => undefined); // a read that never ends (its request died)
    void cache.get("t1", A, source);
    const values = Object.values(cache as unknown as Record<string, unknown>).flatMap((value) => (value instanceof Map ? [...value.values()] : [value]));
    expect(values.some((value) => value instanceof Promise)).toBe(false);
    source.gate = null;
    expect((await cache.get("t1", A, source)).version).toBe(1); // the next request is not stuck behind it
  });

  it("applies the writer's own change without reading the tenant again", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10), ruleOf("qr_2", 5)));
    await cache.get("t1", A, source);
    const reads = source.reads;
    const version = source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 30)));
    cache.applyWrite("t1", version, { upserted: [ruleOf("qr_1", 30)] });
    const next = source.write("t1", (t) => (t.defaultMinimum = 7));
    cache.applyWrite("t1", next, { defaultMinimum: 7 });
    const last = source.write("t1", (t) => t.rules.splice(1, 1));
    cache.applyWrite("t1", last, { deletedIds: ["qr_2"] });
    const index = await cache.get("t1", A, source);
    expect(source.reads).toBe(reads);
    expect(cache.stats.appliedWrites).toBe(3);
    expect(index).toMatchObject({ version: last, defaultMinimum: 7, ruleCount: 1 });
    expect(index.account.get("A")!.anyStore).toMatchObject({ id: "qr_1", minimum: 30 });
  });

  it("reads the tenant again when another isolate wrote in between (a version gap)", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", A, source);
    source.write("t1", (t) => t.rules.push(ruleOf("qr_9", 90))); // elsewhere
    const version = source.write("t1", (t) => (t.rules[0] = ruleOf("qr_1", 30))); // here
    cache.applyWrite("t1", version, { upserted: [ruleOf("qr_1", 30)] });
    const index = await cache.get("t1", A, source);
    expect(cache.stats.appliedWrites).toBe(0);
    expect(source.snapshotReads).toBe(2);
    expect(index).toMatchObject({ version, ruleCount: 2 });
  });

  it("keeps tenants apart", async () => {
    const { source, cache } = setup();
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    source.write("t2", (t) => t.rules.push(ruleOf("qr_2", 20)));
    expect((await cache.get("t1", A, source)).account.get("A")!.anyStore!.id).toBe("qr_1");
    expect((await cache.get("t2", A, source)).account.get("A")!.anyStore!.id).toBe("qr_2");
    cache.noteWrite(
      "t1",
      source.write("t1", (t) => t.rules.splice(0)),
    );
    expect((await cache.get("t2", A, source)).ruleCount).toBe(1);
    expect(source.snapshotReads).toBe(2);
  });

  it("evicts the least recently used tenants beyond its tenant and rule bounds", async () => {
    const byTenants = setup({ maxTenants: 2 });
    for (const t of ["t1", "t2", "t3"]) byTenants.source.write(t, (x) => x.rules.push(ruleOf(`qr_${t}`, 1)));
    await byTenants.cache.get("t1", A, byTenants.source);
    await byTenants.cache.get("t2", A, byTenants.source);
    await byTenants.cache.get("t1", A, byTenants.source); // t1 is now the most recent
    await byTenants.cache.get("t3", A, byTenants.source); // evicts t2
    expect(byTenants.cache.size).toBe(2);
    const reads = byTenants.source.snapshotReads;
    await byTenants.cache.get("t1", A, byTenants.source);
    expect(byTenants.source.snapshotReads).toBe(reads);
    await byTenants.cache.get("t2", A, byTenants.source);
    expect(byTenants.source.snapshotReads).toBe(reads + 1);

    const byBytes = setup({ maxBytes: 12_000 });
    byBytes.source.write("big", (x) => x.rules.push(...Array.from({ length: 20 }, (_, i) => ruleOf(`qr_${i}`, i))));
    byBytes.source.write("small", (x) => x.rules.push(ruleOf("qr_s", 1)));
    byBytes.source.write("huge", (x) => x.rules.push(...Array.from({ length: 40 }, (_, i) => ruleOf(`qr_${i}`, i))));
    await byBytes.cache.get("big", A, byBytes.source);
    await byBytes.cache.get("small", A, byBytes.source);
    expect(byBytes.cache.cachedRules).toBe(21);
    await byBytes.cache.get("huge", A, byBytes.source); // alone over the bound: kept, every other piece goes
    expect(byBytes.cache.cachedRules).toBe(40);
    expect(byBytes.cache.stats.evictions).toBe(2);
  });

  it("caches a tenant over wholeTenantRules per order target, reading only the rules an order can match", async () => {
    const { source, cache } = setup({ wholeTenantRules: 10 });
    const rules: IndexedRule[] = [];
    for (let i = 0; i < 200; i++)
      rules.push({
        id: `qr_${String(i).padStart(3, "0")}`,
        accountId: `A${i % 50}`,
        supplierId: i % 3 ? `S${i % 7}` : null,
        storeId: i % 5 ? null : `st${i % 2}`,
        minimum: i,
        enforcement: "BLOCK",
      });
    rules.push({ id: "qr_s", accountId: null, supplierId: "S1", storeId: null, minimum: 999, enforcement: "BLOCK" });
    source.write("t1", (t) => t.rules.push(...rules));
    const truth = buildRuleIndex({ version: 1, defaultMinimum: 0, rules });
    const order: QuotaTarget = { accountId: "A1", supplierId: "S1", storeId: "st1" };
    const first = await cache.get("t1", [order], source);
    expect(resolveQuota(first, order)).toEqual(resolveQuota(truth, order));
    expect(source.rulesRead).toBeLessThanOrEqual(6);
    expect(cache.cachedRules).toBeLessThanOrEqual(6);
    const reads = source.reads;
    expect(resolveQuota(await cache.get("t1", [order], source), order)).toEqual(resolveQuota(truth, order));
    expect(source.reads).toBe(reads); // warm: no read
    // Another call with several orders: one read for all of them, each resolved as the whole rule set would.
    const orders: QuotaTarget[] = Array.from({ length: 20 }, (_, i) => ({
      accountId: `A${i * 3}`,
      supplierId: i % 2 ? `S${i % 7}` : null,
      storeId: i % 4 ? null : `st${i % 2}`,
    }));
    const index = await cache.get("t1", orders, source);
    expect(source.snapshotReads).toBe(2);
    for (const target of orders) expect(resolveQuota(index, target)).toEqual(resolveQuota(truth, target));
    // The writer's change is seen at once, by re-reading only the orders' rules (never the whole tenant).
    const version = source.write("t1", (t) =>
      t.rules.push({ id: "qr_new", accountId: "A1", supplierId: "S1", storeId: null, minimum: 5000, enforcement: "BLOCK" }),
    );
    cache.applyWrite("t1", version, { upserted: [{ id: "qr_new", accountId: "A1", supplierId: "S1", storeId: null, minimum: 5000, enforcement: "BLOCK" }] });
    const before = source.rulesRead;
    expect(resolveQuota(await cache.get("t1", [order], source), order)).toMatchObject({ kind: "ACCOUNT_SUPPLIER", minimum: 5000 });
    expect(source.rulesRead - before).toBeLessThanOrEqual(6);
  });

  it("a large tenant's read that started before a local write is not cached over it", async () => {
    const { source, cache } = setup({ wholeTenantRules: 1 });
    const rule = (minimum: number): IndexedRule => ({ id: "qr_1", accountId: "A", supplierId: null, storeId: null, minimum, enforcement: "BLOCK" });
    source.write("t1", (t) => t.rules.push(rule(10), { id: "qr_2", accountId: "B", supplierId: null, storeId: null, minimum: 1, enforcement: "BLOCK" }));
    await cache.get("t1", [{ accountId: "B", supplierId: null, storeId: null }], source); // the head: large, at version 1
    let release!: () => void;
    source.gate = new Promise((resolve) => (release = resolve));
    const concurrent = cache.get("t1", A, source); // misses A's target: reads version 1, then waits
    await Promise.resolve();
    const version = source.write("t1", (t) => (t.rules[0] = rule(99)));
    cache.applyWrite("t1", version, { upserted: [rule(99)] });
    release();
    source.gate = null;
    expect(resolveQuota(await concurrent, A[0]).minimum).toBe(10); // it ran concurrently with the write: either answer is right
    expect(resolveQuota(await cache.get("t1", A, source), A[0]).minimum).toBe(99);
  });

  it("switches a tenant to per-target caching once the writer's own writes grow it past wholeTenantRules", async () => {
    const { source, cache } = setup({ wholeTenantRules: 3 });
    source.write("t1", (t) => t.rules.push(ruleOf("qr_1", 10)));
    await cache.get("t1", A, source);
    const added = [2, 3, 4].map((i): IndexedRule => ({ id: `qr_${i}`, accountId: `B${i}`, supplierId: null, storeId: null, minimum: i, enforcement: "BLOCK" }));
    const version = source.write("t1", (t) => t.rules.push(...added));
    cache.applyWrite("t1", version, { upserted: added });
    expect(cache.cachedRules).toBe(0);
    const before = source.rulesRead;
    expect(resolveQuota(await cache.get("t1", A, source), A[0])).toMatchObject({ kind: "ACCOUNT", minimum: 10 });
    expect(source.rulesRead - before).toBe(1);
  });

  it("holds its memory bound whatever the tenants: many large ones, many small ones, many orders", async () => {
    const { source, cache } = setup({ maxBytes: 256 * 1024, wholeTenantRules: 100 });
    for (let t = 0; t < 30; t++) {
      const size = t % 3 === 0 ? 90 : 2000;
      source.write(`t${t}`, (x) =>
        x.rules.push(
          ...Array.from(
            { length: size },
            (_, i): IndexedRule => ({
              id: `qr_${t}_${i}`,
              accountId: `account-${i % 400}`,
              supplierId: i % 2 ? `supplier-${i % 13}` : null,
              storeId: i % 3 ? null : `store-${i % 5}`,
              minimum: i,
              enforcement: "BLOCK",
            }),
          ),
        ),
      );
    }
    for (let round = 0; round < 3; round++) {
      for (let t = 0; t < 30; t++) {
        const orders = Array.from(
          { length: 100 },
          (_, i): QuotaTarget => ({
            accountId: `account-${(i * 7 + round) % 400}`,
            supplierId: `supplier-${i % 13}`,
            storeId: i % 2 ? `store-${i % 5}` : null,
          }),
        );
        await cache.get(`t${t}`, orders, source);
        expect(cache.bytes).toBeLessThanOrEqual(cache.memoryBound);
        expect(cache.bytes - cache.size * HEAD_BYTES).toBeLessThanOrEqual(256 * 1024);
      }
    }
    expect(cache.stats.evictions).toBeGreaterThan(0);
    // The isolate's own cache: its whole bound (pieces and tenants' heads) within 32 MiB.
    expect(new RuleIndexCache().memoryBound).toBeLessThanOrEqual(32 * 2 ** 20);
  });

  it("answers as the pure resolver over the tenant's current rules, through local and foreign writes, evictions and both sizes (property)", async () => {
    const key = (prefix: string, n: number) => fc.integer({ min: 0, max: n - 1 }).map((i) => `${prefix}${i}`);
    const scope = fc.record({
      accountId: fc.option(key("A", 4), { nil: null }),
      supplierId: fc.option(key("S", 3), { nil: null }),
      storeId: fc.option(key("st", 2), { nil: null }),
    });
    const target = fc.record({ accountId: key("A", 5), supplierId: fc.option(key("S", 4), { nil: null }), storeId: fc.option(key("st", 3), { nil: null }) });
    const step = fc.oneof(
      fc.record({ kind: fc.constant("evaluate" as const), tenant: key("t", 3), orders: fc.array(target, { minLength: 1, maxLength: 6 }) }),
      fc.record({
        kind: fc.constantFrom("local" as const, "foreign" as const),
        tenant: key("t", 3),
        scope,
        minimum: fc.integer({ min: 0, max: 4 }),
        remove: fc.boolean(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(2_000, 6_000, 1 << 20),
        async (steps, wholeTenantRules, maxBytes) => {
          const { clock, source, cache } = setup({ wholeTenantRules, maxBytes });
          let next = 0;
          for (const s of steps) {
            if (s.kind === "evaluate") {
              const index = await cache.get(s.tenant, s.orders, source);
              const current = source.tenants.get(s.tenant) ?? { version: 0, defaultMinimum: 0, rules: [] };
              const truth = buildRuleIndex({ version: current.version, defaultMinimum: current.defaultMinimum, rules: current.rules });
              for (const order of s.orders) expect(resolveQuota(index, order)).toEqual(resolveQuota(truth, order));
              continue;
            }
            if (s.scope.accountId === null && s.scope.supplierId === null) continue;
            const change: { upserted?: IndexedRule[]; deletedIds?: string[] } = {};
            const version = source.write(s.tenant, (t) => {
              const at = t.rules.findIndex(
                (rule) => rule.accountId === s.scope.accountId && rule.supplierId === s.scope.supplierId && rule.storeId === s.scope.storeId,
              );
              if (s.remove) {
                if (at >= 0) change.deletedIds = t.rules.splice(at, 1).map((rule) => rule.id);
              } else {
                const rule: IndexedRule = {
                  id: at >= 0 ? t.rules[at].id : `qr_${String(next++).padStart(4, "0")}`,
                  ...s.scope,
                  minimum: s.minimum * 100,
                  enforcement: s.minimum % 2 ? "WARN" : "BLOCK",
                };
                if (at >= 0) t.rules[at] = rule;
                else t.rules.push(rule);
                change.upserted = [rule];
              }
              t.defaultMinimum = s.minimum;
            });
            // A local write is applied here at once; a foreign one is seen once the freshness bound has passed.
            if (s.kind === "local") cache.applyWrite(s.tenant, version, { ...change, defaultMinimum: s.minimum });
            else clock.now += 1000;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
