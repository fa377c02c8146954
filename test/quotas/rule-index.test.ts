import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildRuleIndex,
  explainQuota,
  MAX_LISTED_STORE_MISMATCHES,
  resolveQuota,
  type IndexedRule,
  type QuotaSourceKind,
  type QuotaTarget,
} from "../../src/common/rule-index";

/**
 * The reference: API.md §7 read literally. Filter all rules per level by "every set key equals the
 * order's", sort by (-minimum, id), take the first of the first non-empty level.
 */
function referenceResolve(rules: IndexedRule[], defaultMinimum: number, order: QuotaTarget) {
  const keyMatches = (ruleValue: string | null, orderValue: string | null) => ruleValue === null || ruleValue === orderValue;
  const levels: [QuotaSourceKind, (r: IndexedRule) => boolean][] = [
    ["ACCOUNT_SUPPLIER", (r) => r.accountId !== null && r.supplierId !== null],
    ["ACCOUNT", (r) => r.accountId !== null && r.supplierId === null],
    ["SUPPLIER", (r) => r.accountId === null && r.supplierId !== null],
  ];
  for (const [kind, atLevel] of levels) {
    const matching = rules
      .filter(atLevel)
      .filter((r) => keyMatches(r.accountId, order.accountId) && keyMatches(r.supplierId, order.supplierId) && keyMatches(r.storeId, order.storeId))
      .sort((a, b) => b.minimum - a.minimum || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (matching.length) return { kind, ruleId: matching[0].id, minimum: matching[0].minimum, enforcement: matching[0].enforcement };
  }
  return { kind: "DEFAULT" as const, ruleId: null, minimum: defaultMinimum, enforcement: "BLOCK" };
}

function rule(id: string, accountId: string | null, supplierId: string | null, storeId: string | null, minimum: number): IndexedRule {
  return { id, accountId, supplierId, storeId, minimum, enforcement: "BLOCK" };
}

function resolve(rules: IndexedRule[], order: QuotaTarget, defaultMinimum = 0) {
  const { kind, rule: winner, minimum } = resolveQuota(buildRuleIndex({ version: 1, defaultMinimum, rules }), order);
  return { kind, ruleId: winner?.id ?? null, minimum };
}

describe("rule index: resolution steps", () => {
  const rules = [rule("qr_1", "A", "S", null, 100), rule("qr_2", "A", null, null, 200), rule("qr_3", null, "S", null, 300), rule("qr_4", null, "T", null, 400)];

  it("Account+Supplier beats Account-only and Supplier-only whatever the minimums", () => {
    expect(resolve(rules, { accountId: "A", supplierId: "S", storeId: null })).toEqual({ kind: "ACCOUNT_SUPPLIER", ruleId: "qr_1", minimum: 100 });
  });
  it("Account-only beats Supplier-only", () => {
    expect(resolve(rules, { accountId: "A", supplierId: "T", storeId: null })).toEqual({ kind: "ACCOUNT", ruleId: "qr_2", minimum: 200 });
  });
  it("Supplier-only applies to any account", () => {
    expect(resolve(rules, { accountId: "B", supplierId: "S", storeId: null })).toEqual({ kind: "SUPPLIER", ruleId: "qr_3", minimum: 300 });
  });
  it("the default applies when nothing matches", () => {
    expect(resolve(rules, { accountId: "B", supplierId: "U", storeId: null }, 7)).toEqual({ kind: "DEFAULT", ruleId: null, minimum: 7 });
  });
  it("an order without supplier only sees Account-only rules and the default", () => {
    expect(resolve(rules, { accountId: "A", supplierId: null, storeId: null })).toEqual({ kind: "ACCOUNT", ruleId: "qr_2", minimum: 200 });
    expect(resolve([rule("qr_1", "A", "S", null, 1), rule("qr_3", null, "S", null, 3)], { accountId: "A", supplierId: null, storeId: null }, 9)).toEqual({
      kind: "DEFAULT",
      ruleId: null,
      minimum: 9,
    });
  });
});

describe("rule index: stores and tie-breaks", () => {
  it("a store rule only matches its store; a null-store rule matches every store and none", () => {
    const rules = [rule("qr_1", "A", null, "st_1", 500), rule("qr_2", "A", null, null, 100)];
    expect(resolve(rules, { accountId: "A", supplierId: null, storeId: "st_1" }).ruleId).toBe("qr_1");
    expect(resolve(rules, { accountId: "A", supplierId: null, storeId: "st_2" }).ruleId).toBe("qr_2");
    expect(resolve(rules, { accountId: "A", supplierId: null, storeId: null }).ruleId).toBe("qr_2");
  });
  it("the highest minimum wins within a level, the store-wide rule included", () => {
    const rules = [rule("qr_1", "A", null, "st_1", 100), rule("qr_2", "A", null, null, 500)];
    expect(resolve(rules, { accountId: "A", supplierId: null, storeId: "st_1" }).ruleId).toBe("qr_2");
  });
  it("equal minimums: the smallest id wins, whatever the insertion order", () => {
    const rules = [rule("qr_B", "A", null, "st_1", 100), rule("qr_A", "A", null, null, 100)];
    expect(resolve(rules, { accountId: "A", supplierId: null, storeId: "st_1" }).ruleId).toBe("qr_A");
    expect(resolve([...rules].reverse(), { accountId: "A", supplierId: null, storeId: "st_1" }).ruleId).toBe("qr_A");
  });
  it("a store rule of another store does not make its level non-empty", () => {
    const rules = [rule("qr_1", "A", "S", "st_9", 900), rule("qr_2", null, "S", null, 10)];
    expect(resolve(rules, { accountId: "A", supplierId: "S", storeId: "st_1" })).toEqual({ kind: "SUPPLIER", ruleId: "qr_2", minimum: 10 });
  });
  it("minimums up to 2^53-1 compare exactly", () => {
    const max = Number.MAX_SAFE_INTEGER;
    const rules = [rule("qr_1", "A", null, null, max - 1), rule("qr_2", "A", null, "st", max)];
    expect(resolve(rules, { accountId: "A", supplierId: null, storeId: "st" }).ruleId).toBe("qr_2");
  });
});

describe("rule index: explanation", () => {
  it("says why each candidate lost", () => {
    const rules = [
      rule("qr_1", "A", "S", null, 300),
      rule("qr_2", "A", "S", "st_1", 300),
      rule("qr_3", "A", "S", "st_2", 900),
      rule("qr_4", "A", null, null, 50),
      rule("qr_5", null, "S", "st_1", 70),
      rule("qr_6", "A", "S", "st_1", 100), // same scope as qr_2: impossible in the database, still explained
    ];
    const explanation = explainQuota(buildRuleIndex({ version: 1, defaultMinimum: 5, rules }), { accountId: "A", supplierId: "S", storeId: "st_1" });
    expect(explanation.decidedBy).toEqual({ kind: "ACCOUNT_SUPPLIER", ruleId: "qr_1" });
    const outcomes = explanation.levels.map((level) => [level.level, level.candidates.map((c) => [c.ruleId, c.outcome])]);
    expect(outcomes).toEqual([
      [
        "ACCOUNT_SUPPLIER",
        [
          ["qr_1", "selected"],
          ["qr_2", "tie_older_rule_wins"],
          ["qr_6", "lower_minimum"],
          ["qr_3", "store_mismatch"],
        ],
      ],
      ["ACCOUNT", [["qr_4", "shadowed_by_higher_level"]]],
      ["SUPPLIER", [["qr_5", "shadowed_by_higher_level"]]],
    ]);
    expect(explanation.default).toEqual({ minimum: 5, outcome: "shadowed_by_higher_level" });
  });

  it("marks levels an order without supplier cannot use and lists the default as selected", () => {
    const explanation = explainQuota(buildRuleIndex({ version: 1, defaultMinimum: 5, rules: [rule("qr_1", null, "S", null, 1)] }), {
      accountId: "A",
      supplierId: null,
      storeId: null,
    });
    expect(explanation.levels.map((l) => [l.level, l.applicable, l.candidates.length])).toEqual([
      ["ACCOUNT_SUPPLIER", false, 0],
      ["ACCOUNT", true, 0],
      ["SUPPLIER", false, 0],
    ]);
    expect(explanation.default.outcome).toBe("selected");
    expect(explanation.decidedBy).toEqual({ kind: "DEFAULT", ruleId: null });
  });

  it("caps the listed store mismatches and counts the rest", () => {
    const rules = Array.from({ length: 25 }, (_, i) => rule(`qr_${String(i).padStart(2, "0")}`, "A", null, `st_${i}`, i));
    const explanation = explainQuota(buildRuleIndex({ version: 1, defaultMinimum: 0, rules }), { accountId: "A", supplierId: null, storeId: "st_3" });
    const account = explanation.levels[1];
    expect(account.candidates[0]).toMatchObject({ ruleId: "qr_03", outcome: "selected" });
    expect(account.candidates.length).toBe(1 + MAX_LISTED_STORE_MISMATCHES);
    expect(account.omittedStoreMismatches).toBe(24 - MAX_LISTED_STORE_MISMATCHES);
  });
});

describe("rule index: property against the reference", () => {
  // Small alphabets so random orders hit rules, levels collide and minimums tie often.
  const key = (values: string[]) => fc.option(fc.constantFrom(...values), { nil: null, freq: 3 });
  const accounts = ["A1", "A2", "A3"];
  const suppliers = ["S1", "S2", "S3"];
  const stores = ["st_1", "st_2"];
  const ruleArbitrary = fc
    .record({
      id: fc.stringMatching(/^qr_[0-9A-Z]{1,4}$/),
      accountId: key(accounts),
      supplierId: key(suppliers),
      storeId: key(stores),
      minimum: fc.oneof(fc.constantFrom(0, 100, 200, Number.MAX_SAFE_INTEGER), fc.nat()),
      enforcement: fc.constantFrom("BLOCK" as const, "WARN" as const),
    })
    .filter((r) => r.accountId !== null || r.supplierId !== null);
  // Unique ids as in the database; scopes may repeat, which the database forbids: the index must still agree.
  const rulesArbitrary = fc.uniqueArray(ruleArbitrary, { maxLength: 40, selector: (r) => r.id });
  const orderArbitrary = fc.record({
    accountId: fc.constantFrom(...accounts, "A-none"),
    supplierId: fc.option(fc.constantFrom(...suppliers, "S-none"), { nil: null }),
    storeId: fc.option(fc.constantFrom(...stores, "st-none"), { nil: null }),
  });

  it("resolves every order as the filter-and-sort reference does", () => {
    fc.assert(
      fc.property(rulesArbitrary, fc.array(orderArbitrary, { minLength: 1, maxLength: 20 }), fc.nat(), (rules, orders, defaultMinimum) => {
        const index = buildRuleIndex({ version: 1, defaultMinimum, rules });
        for (const order of orders) {
          const { kind, rule: winner, minimum, enforcement } = resolveQuota(index, order);
          expect({ kind, ruleId: winner?.id ?? null, minimum, enforcement }).toEqual(referenceResolve(rules, defaultMinimum, order));
        }
      }),
      { numRuns: 5000 },
    );
  });

  it("explains every matching rule of the order's keys exactly once, consistently with the decision", () => {
    fc.assert(
      fc.property(rulesArbitrary, orderArbitrary, (rules, order) => {
        const index = buildRuleIndex({ version: 1, defaultMinimum: 0, rules });
        const explanation = explainQuota(index, order);
        const reference = referenceResolve(rules, 0, order);
        expect(explanation.decidedBy).toEqual({ kind: reference.kind, ruleId: reference.ruleId });
        const listed = explanation.levels.flatMap((level) => level.candidates.filter((c) => c.outcome !== "store_mismatch"));
        const matching = rules.filter(
          (r) =>
            (r.accountId === null || r.accountId === order.accountId) &&
            (r.supplierId === null || r.supplierId === order.supplierId) &&
            (r.storeId === null || r.storeId === order.storeId),
        );
        expect(listed.map((c) => c.ruleId).sort()).toEqual(matching.map((r) => r.id).sort());
        expect(listed.filter((c) => c.outcome === "selected").map((c) => c.ruleId)).toEqual(reference.ruleId ? [reference.ruleId] : []);
        for (const c of listed) {
          if (c.outcome === "lower_minimum") expect(c.minimum).toBeLessThan(reference.minimum);
          if (c.outcome === "tie_older_rule_wins") expect(c.minimum === reference.minimum && c.ruleId > reference.ruleId!).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
