import { describe, expect, it } from "vitest";
import type { Line } from "../../console/src/api/operations";
import { effectsOf, withLiveLines } from "../../console/src/operations/live/liveChanges";
import type { ChangedMessage } from "../../console/src/operations/live/liveClient";
import { queryKeys } from "../../console/src/shared/queryKeys";

const line = (variantExternalId: string, maxQuantity = 10) =>
  ({
    variantExternalId,
    variantId: null,
    variantName: { en: variantExternalId },
    minQuantity: 1,
    maxQuantity,
    recommendedQuantity: null,
    quantityIncrement: 1,
    updatedAt: "2098-01-01T00:00:00Z",
  }) as Line;
const changed = (what: ChangedMessage["what"], fields: Partial<ChangedMessage> = {}): ChangedMessage => ({
  type: "changed",
  seq: 1,
  version: 5,
  actor: "key:k1",
  what,
  counts: {},
  ...fields,
});
const OP = "op_1";
const effects = (message: Parameters<typeof effectsOf>[2]) => effectsOf(queryKeys, OP, message);
const keysOf = (message: Parameters<typeof effectsOf>[2]) => effects(message).stale.map((key) => JSON.stringify(key));
const has = (message: Parameters<typeof effectsOf>[2], key: readonly unknown[]) => keysOf(message).includes(JSON.stringify(key));

describe("what a change told live means for the page", () => {
  it("takes the lines sent, reads those only named, and reads them all when none are named", () => {
    const sent = effects(changed("lines", { counts: { updated: 1 }, lineKeys: ["A", "B"], lines: [line("A", 12), { variantExternalId: "B", removed: true }] }));
    expect(sent).toMatchObject({ version: 5, lines: [line("A", 12)], removed: ["B"], linesToRead: [], allLines: false });
    expect(effects(changed("orders", { lineKeys: ["A"] }))).toMatchObject({ linesToRead: ["A"], allLines: false });
    expect(effects(changed("lines", { counts: { updated: 900 } }))).toMatchObject({ lines: [], allLines: true });
    // A revert changes lines unnamed; a patch of the Operation's fields changes none.
    expect(effects(changed("operation", { counts: { lines: 3 } })).allLines).toBe(true);
    expect(effects(changed("operation")).allLines).toBe(false);
  });

  it("reads again what the change made stale, and nothing else", () => {
    const operation = queryKeys.operation(OP);
    const orders = queryKeys.orders.of(OP);
    const totals = queryKeys.totals.of(OP);
    expect(has(changed("orders", { lineKeys: ["A"] }), orders) && has(changed("orders"), totals)).toBe(true);
    expect(has(changed("orders"), operation)).toBe(false);
    // Only a count of lines moves the header: an update of values leaves it (its version moves without a read).
    expect(has(changed("lines", { counts: { updated: 1 } }), operation)).toBe(false);
    expect(has(changed("lines", { counts: { created: 1 } }), operation)).toBe(true);
    expect(has(changed("lines", { counts: { updated: 1 } }), orders)).toBe(false);
    expect(has(changed("status"), operation) && has(changed("status"), queryKeys.operations.all)).toBe(true);
    expect(has(changed("status"), totals)).toBe(false);
    expect(has(changed("accounts"), queryKeys.attachments.of(OP)) && has(changed("accounts"), operation)).toBe(true);
    expect(has(changed("allocation"), queryKeys.allocations.of(OP)) && has(changed("orders"), queryKeys.allocations.of(OP))).toBe(true);
    expect(has(changed("lines", { counts: { updated: 1 } }), queryKeys.allocations.of(OP))).toBe(false);
    const reload = effects({ type: "reload" });
    expect(reload).toMatchObject({ version: null, allLines: true });
    for (const key of [operation, orders, totals, queryKeys.attachments.of(OP), queryKeys.history.all]) expect(has({ type: "reload" }, key)).toBe(true);
  });
});

describe("a cached view of the lines, with the lines told live", () => {
  const pages = (...items: Line[][]) => ({
    pages: items.map((page, i) => ({ items: page, nextToken: i < items.length - 1 ? `p${i + 1}` : null })),
    pageParams: items.map((_, i) => i),
  });
  const codes = (data: { pages: { items: Line[] }[] } | null) =>
    data?.pages.map((page) => page.items.map((item) => `${item.variantExternalId}:${item.maxQuantity}`));
  const byVariant = { sort: "variantExternalId", filter: "" };

  it("puts each line in its new state where it stands, drops the removed, and keeps the pages not touched", () => {
    const before = pages([line("A"), line("B")], [line("C"), line("D")]);
    const after = withLiveLines(before, byVariant, [line("C", 40)], ["A"]);
    expect(codes(after)).toEqual([["B:10"], ["C:40", "D:10"]]);
    expect(withLiveLines(before, byVariant, [line("B", 7)], [])?.pages[1]).toBe(before.pages[1]);
  });

  it("puts a new line in its place by variant, either way, and leaves one past a page not read yet to that page", () => {
    expect(codes(withLiveLines(pages([line("A"), line("C")], [line("E")]), byVariant, [line("B"), line("F")], []))).toEqual([
      ["A:10", "B:10", "C:10"],
      ["E:10", "F:10"],
    ]);
    expect(codes(withLiveLines(pages([line("E"), line("C")], [line("A")]), { sort: "-variantExternalId", filter: "" }, [line("D")], []))).toEqual([
      ["E:10", "D:10", "C:10"],
      ["A:10"],
    ]);
    const unread = { pages: [{ items: [line("A"), line("B")], nextToken: "p1" }], pageParams: [0] };
    expect(codes(withLiveLines(unread, byVariant, [line("Z")], []))).toEqual([["A:10", "B:10"]]);
    expect(codes(withLiveLines({ pages: [{ items: [], nextToken: null }], pageParams: [0] }, byVariant, [line("A")], []))).toEqual([["A:10"]]);
  });

  it("asks for the view again when a new line's place is the server's to say (a search, another sort)", () => {
    const before = pages([line("A")]);
    expect(withLiveLines(before, { sort: "variantExternalId", filter: "Item" }, [line("B")], [])).toBeNull();
    expect(withLiveLines(before, { sort: "-maxQuantity", filter: "" }, [line("B")], [])).toBeNull();
    // A line it holds is updated in any view.
    expect(codes(withLiveLines(before, { sort: "-maxQuantity", filter: "Item" }, [line("A", 3)], []))).toEqual([["A:3"]]);
  });
});
