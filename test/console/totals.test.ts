import { describe, expect, it } from "vitest";
import { piecesText, refusalCount, refusalFigure, refusalPieces, refusalsOf } from "../../console/src/labels/refusals";
import { belowRecommendedFirst, lineProgress, totalsFigures } from "../../console/src/labels/totals";
import { dailyBars, dailySummary } from "../../console/src/operations/dailyChart";

const euros = (amount: number) => `€${(amount / 100).toFixed(2)}`;

/** An order.blocked event's data as the API records it: one quota order per supplier, its result beside it. */
const blocked = {
  accountId: "A-100",
  cartId: null,
  storeId: "store-paris",
  orders: [
    { accountId: "A-100", supplierId: "S-1", storeId: "store-paris", amount: 42000 },
    { accountId: "A-100", supplierId: "S-2", storeId: "store-paris", amount: 90000 },
    { accountId: "A-100", supplierId: null, storeId: "store-paris", amount: 1500 },
  ],
  results: [
    {
      allowed: false,
      reason: "quota_min_not_met",
      effectiveMinimum: 50000,
      amount: 42000,
      shortfall: 8000,
      source: { kind: "ACCOUNT_SUPPLIER", ruleId: "qr_1" },
      enforcement: "BLOCK",
    },
    { allowed: true, reason: null, effectiveMinimum: 10000, amount: 90000, shortfall: 0, source: { kind: "SUPPLIER", ruleId: "qr_2" }, enforcement: "BLOCK" },
    {
      allowed: false,
      reason: "quota_min_not_met",
      effectiveMinimum: 2000,
      amount: 1500,
      shortfall: 500,
      source: { kind: "DEFAULT", ruleId: null },
      enforcement: "BLOCK",
    },
  ],
};

describe("a refused order in words", () => {
  it("finds each supplier's order below its minimum, and nothing in data of another shape", () => {
    expect(refusalsOf(blocked)).toEqual([
      { accountId: "A-100", supplierId: "S-1", storeId: "store-paris", amount: 42000, minimum: 50000, shortfall: 8000, ruleId: "qr_1" },
      { accountId: "A-100", supplierId: null, storeId: "store-paris", amount: 1500, minimum: 2000, shortfall: 500, ruleId: null },
    ]);
    expect(refusalsOf(null)).toEqual([]);
    expect(refusalsOf({ orders: "x", results: [] })).toEqual([]);
  });

  it("says who, for how much, by how much and which minimum: a rule by its scope, or the tenant default", () => {
    const [byRule, byDefault] = refusalsOf(blocked);
    const scope = (ruleId: string) => (ruleId === "qr_1" ? "account Maison Dupont, A-100 · supplier S-1 · every store" : ruleId);
    expect(piecesText(refusalPieces(byRule, "Maison Dupont, A-100", euros), scope)).toBe(
      "Maison Dupont, A-100 ordered €420.00 from supplier S-1 for store store-paris: €80.00 short of the €500.00 minimum of the rule account Maison Dupont, A-100 · supplier S-1 · every store.",
    );
    expect(refusalPieces(byRule, "x", euros)[1]).toEqual({ rule: "qr_1" });
    expect(piecesText(refusalPieces({ ...byDefault, storeId: null }, "A-100", euros), scope)).toBe(
      "A-100 ordered €15.00 without a supplier: €5.00 short of the €20.00 minimum of the tenant default.",
    );
  });

  it("counts the refusals in words", () => {
    expect(refusalCount({ quota: 0, allocation: 0 })).toBe("none");
    expect(refusalCount({ quota: 1, allocation: 0 })).toBe("1 order refused below a minimum");
    expect(refusalCount({ quota: 37, allocation: 2 })).toBe("37 orders refused below a minimum, 2 orders refused beyond an allocation");
    expect(refusalFigure({ quota: 37, allocation: 2 })).toBe("37 below a minimum, 2 beyond an allocation");
    expect(refusalFigure({ quota: 0, allocation: 0 })).toBe("none");
  });
});

describe("an Operation's figures", () => {
  it("says each figure in words, the amount in the tenant's currency", () => {
    const figures = totalsFigures(
      {
        orders: 412,
        cancelled: 0,
        accounts: 1,
        amount: 18_450_000,
        refusals: { quota: 37, allocation: 0 },
        lines: { ordered: 4120, belowRecommended: 2310, exhausted: 0 },
        asOf: "2026-03-20T09:00:00.000Z",
      },
      euros,
    );
    expect(Object.fromEntries(figures.map(({ label, value }) => [label, value]))).toEqual({
      Orders: "412 orders",
      Amount: "€184500.00",
      "Accounts that ordered": "1 account",
      Cancelled: "none",
      Refused: "37 below a minimum",
      "Lines ordered": "4,120 lines",
      "Below recommended": "2,310 lines",
    });
  });

  it("puts the lines below their recommended quantity first, the furthest from it first", () => {
    const lines = [
      { variantExternalId: "none", orderedQuantity: 0, recommendedQuantity: null },
      { variantExternalId: "half", orderedQuantity: 5, recommendedQuantity: 10 },
      { variantExternalId: "done", orderedQuantity: 12, recommendedQuantity: 10 },
      { variantExternalId: "zero", orderedQuantity: 0, recommendedQuantity: 4 },
      { variantExternalId: "unread", recommendedQuantity: 2 },
    ];
    expect(belowRecommendedFirst(lines).map((line) => line.variantExternalId)).toEqual(["zero", "unread", "half", "none", "done"]);
    expect(lines.map(lineProgress)).toEqual(["none", "below", "reached", "below", "below"]);
  });
});

describe("the chart of orders and refusals per day", () => {
  const days = [
    { day: "2026-03-19", orders: 30, refusals: { quota: 4, allocation: 1 } },
    { day: "2026-03-20", orders: 0, refusals: { quota: 0, allocation: 0 } },
    { day: "2026-03-21", orders: 15, refusals: { quota: 0, allocation: 0 } },
  ];

  it("draws each day's pair of bars against the busiest figure", () => {
    const { max, bars } = dailyBars(days, 300, 102);
    expect(max).toBe(30);
    expect(bars.map(({ day, orders, refusals }) => [day, orders, refusals])).toEqual([
      ["2026-03-19", 30, 5],
      ["2026-03-20", 0, 0],
      ["2026-03-21", 15, 0],
    ]);
    // The plot is 100 high (102 less the axis): the busiest day's bar fills it, half as many half of it.
    expect(bars.map((bar) => bar.ordersTop)).toEqual([0, 100, 50]);
    expect(bars[0].refusalsTop).toBeCloseTo(100 - (5 / 30) * 100);
    expect(bars[1].x).toBeGreaterThan(bars[0].x + 2 * bars[0].width - 1);
    expect(dailyBars([], 300, 102)).toEqual({ max: 1, bars: [] });
  });

  it("says it in a sentence", () => {
    expect(dailySummary(days)).toBe("Orders and refusals per day from 2026-03-19 to 2026-03-21: 45 orders, 5 refusals; the most orders on 2026-03-19 (30).");
    expect(dailySummary([])).toBe("No day to show.");
  });
});
