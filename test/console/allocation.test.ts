import { describe, expect, it } from "vitest";
import { belowOrderedText, capsRefused, figureText, orderedByAccount, orderedText, poolText, shortfallText } from "../../console/src/labels/allocation";
import { lineAccess } from "../../console/src/operations/lineAccess";
import { versionChain } from "../../console/src/shared/versionChain";

describe("a pool in words", () => {
  it("reads the pool and what is left, grouped: the server's figure while the pool is the stored one, else what the typed pool leaves", () => {
    expect(poolText("2000", 360, 1640)).toBe("2,000 · 1,640 left");
    expect(poolText("2500", 360)).toBe("2,500 · 2,140 left");
    expect(poolText("360", 360, 0)).toBe("360 · none left");
    expect(poolText("40", undefined)).toBe("40");
  });

  it("reads empty, a value that is not a whole number, or one below what is ordered as typed (its error says why)", () => {
    expect(poolText("", 10)).toBe("");
    expect(poolText("1.5", 10)).toBe("1.5");
    expect(poolText("5", 10)).toBe("5");
    expect(figureText("12000")).toBe("12,000");
    expect(figureText("abc")).toBe("abc");
  });

  it("says why a pool or a cap cannot be below what is ordered, in the grid's words", () => {
    expect(belowOrderedText({ field: "poolQuantity", value: 29, ordered: 1030 })).toBe("Pool 29 is below the 1,030 already ordered.");
    expect(belowOrderedText({ field: "maxPerAccount", value: 10, ordered: 30 })).toBe(
      "Per account 10 is below the 30 already ordered by an account without a cap of its own.",
    );
    expect(belowOrderedText({ field: "maxQuantity", value: 5, ordered: 8 }, "Maison Dupont, A-100")).toBe(
      "Cap 5 is below the 8 already ordered by Maison Dupont, A-100.",
    );
  });
});

describe("an order asking more than is left, in words", () => {
  it("says what is left of the pool and of the account's cap, and what fits", () => {
    expect(shortfallText({ poolRemaining: 15, accountRemaining: 5, nearestValid: 5 })).toBe("Only 15 left in the pool, 5 left to this account; at most 5 fits");
    expect(shortfallText({ poolRemaining: 20, accountRemaining: null, nearestValid: 18 })).toBe("Only 20 left in the pool; at most 18 fits");
    expect(shortfallText({ poolRemaining: null, accountRemaining: 2000, nearestValid: 1998 })).toBe("Only 2,000 left to this account; at most 1,998 fits");
  });

  it("says when nothing is left, or nothing valid fits", () => {
    expect(shortfallText({ poolRemaining: 0, accountRemaining: 3, nearestValid: null })).toBe("None left in the pool, 3 left to this account; none fits");
    expect(shortfallText({ poolRemaining: 4, accountRemaining: 0, nearestValid: 0 })).toBe("Only 4 left in the pool, none left to this account; none fits");
    expect(shortfallText({ nearestValid: null })).toBe("None fits");
  });
});

describe("what an account ordered of a line, as far as the console knows", () => {
  const listed = new Map([
    ["A-100", 12],
    ["A-200", 0],
  ]);

  it("is exact for an account with a cap of its own, and for the others once those account for every unit ordered", () => {
    expect(orderedByAccount(40, listed, "A-100")).toEqual({ exact: true, ordered: 12 });
    expect(orderedByAccount(12, listed, "A-300")).toEqual({ exact: true, ordered: 0 });
    expect(orderedByAccount(0, new Map(), "A-300")).toEqual({ exact: true, ordered: 0 });
  });

  it("is a bound otherwise: at most what the listed accounts leave of the line", () => {
    const bound = orderedByAccount(40, listed, "A-300");
    expect(bound).toEqual({ exact: false, ordered: 28 });
    expect(orderedText(bound)).toBe("at most 28");
    expect(orderedText({ exact: true, ordered: 1200 })).toBe("1,200");
  });
});

describe("a refused save of caps, on its caps", () => {
  const chunk = [
    { variantExternalId: "SKU-1", accountId: "A-100", maxQuantity: 5 },
    { variantExternalId: "SKU-1", accountId: "A-200", maxQuantity: 9 },
    { variantExternalId: "SKU-2", accountId: "A-100", maxQuantity: 1 },
    { variantExternalId: "GONE", accountId: "A-300", maxQuantity: 1 },
  ];
  const named = (accountId: string) => (accountId === "A-100" ? "Maison Dupont, A-100" : accountId);

  it("puts each cap below what its account ordered on that cap, by line and account", () => {
    const problem = {
      code: "allocation_below_ordered",
      lines: [{ variantExternalId: "SKU-1", accountId: "A-100", field: "maxQuantity", value: 5, ordered: 8 }],
    };
    expect(capsRefused({ problem }, chunk, named)).toEqual([[chunk[0], "Cap 5 is below the 8 already ordered by Maison Dupont, A-100."]]);
  });

  it("names the accounts outside the directory and the variants that are not lines", () => {
    expect(capsRefused({ problem: { code: "unknown_accounts", unknownAccountIds: ["A-200"] } }, chunk, named)).toEqual([
      [chunk[1], "A-200 is not in the directory."],
    ]);
    expect(capsRefused({ problem: { code: "unknown_variants", unknownVariantExternalIds: ["GONE"] } }, chunk, named)).toEqual([
      [chunk[3], "GONE is not a line of this Operation."],
    ]);
    expect(capsRefused({ problem: { code: "version_mismatch" } }, chunk, named)).toEqual([]);
  });
});

describe("what of the lines may be changed", () => {
  it("everything in DRAFT; only pools and caps per account once the Operation left it, and says so; nothing for an ACCOUNT key", () => {
    expect(lineAccess("DRAFT", true)).toEqual({ lines: true, allocations: true, note: null });
    const active = lineAccess("ACTIVE", true);
    expect(active).toMatchObject({ lines: false, allocations: true });
    expect(active.note).toMatch(/^This Operation is ACTIVE: only Pool and Per account change now/);
    expect(lineAccess("INACTIVE", true).allocations).toBe(true);
    expect(lineAccess("ACTIVE", false)).toMatchObject({ lines: false, allocations: false, note: expect.stringMatching(/^Read-only: an ACCOUNT key/) });
  });
});

describe("the If-Match of a save in chunks", () => {
  it("starts at the page's version, moves on with each chunk that made one, and reads it again after a write it cannot count", async () => {
    let reads = 0;
    const chain = versionChain(7, async () => {
      reads++;
      return 11;
    });
    expect(await chain.ifMatch()).toBe('"7"');
    chain.moved(1);
    expect(await chain.ifMatch()).toBe('"8"');
    chain.moved(0);
    expect(await chain.ifMatch()).toBe('"8"');
    chain.lost();
    expect(await chain.ifMatch()).toBe('"11"');
    expect(await chain.ifMatch()).toBe('"11"');
    expect(reads).toBe(1);
  });
});
