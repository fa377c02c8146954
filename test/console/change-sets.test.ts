import { describe, expect, it } from "vitest";
import type { ChangeRecord } from "../../console/src/api/history";
import { entrySummary, groupChangeSets, revertsOf, setIdOf } from "../../console/src/labels/changeSets";

const at = "2026-11-28T10:00:00.000Z";
const record = (set: string, ordinal: number, fields: Partial<ChangeRecord> = {}): ChangeRecord => ({
  id: `chg_${set}-${ordinal}`,
  resourceType: "line",
  resourceId: `SKU-${set}-${ordinal}`,
  operationId: "op_1",
  version: 1,
  action: "created",
  changes: [{ field: "maxQuantity", next: 10 }],
  actor: "key:key_demo",
  at,
  ...fields,
});
const lines = (set: string, count: number, fields: Partial<ChangeRecord> = {}) => Array.from({ length: count }, (_, i) => record(set, count - 1 - i, fields));

describe("an Operation's history, one entry per change", () => {
  it("groups a set's records into one entry: a 200-line paste is one entry, not two pages", () => {
    const records = [
      ...lines("C", 3, { version: 3, action: "updated", reason: "Supplier cut" }),
      ...lines("B", 200, { version: 2 }),
      record("A", 0, { resourceType: "operation", resourceId: "op_1", version: 1 }),
    ];
    const { entries, heldBack } = groupChangeSets(records, { complete: true });
    expect(heldBack).toBe(0);
    expect(entries.map((entry) => [entry.id, entry.records.length, entry.version, entry.reason])).toEqual([
      ["chg_C", 3, 3, "Supplier cut"],
      ["chg_B", 200, 2, undefined],
      ["chg_A", 1, 1, undefined],
    ]);
    expect(entries.map((entry) => entrySummary(entry))).toEqual(["3 lines changed", "200 lines added", "Operation created"]);
  });

  it("holds back the last set while more pages may continue it", () => {
    const page = [...lines("B", 2), ...lines("A", 3)];
    const { entries, heldBack } = groupChangeSets(page, { complete: false });
    expect(entries.map((entry) => entry.id)).toEqual(["chg_B"]);
    expect(heldBack).toBe(3);
    expect(groupChangeSets(page, { complete: true }).entries.map((entry) => entry.id)).toEqual(["chg_B", "chg_A"]);
  });

  it("says a mixed change and a revert in words", () => {
    const mixed = [
      record("X", 0, { resourceType: "operation", action: "updated", changes: [{ field: "name", previous: {}, next: {} }] }),
      record("X", 1, { action: "updated" }),
      record("X", 2, { action: "deleted" }),
      record("X", 3, { action: "deleted" }),
      record("X", 4, { resourceType: "attachment", action: "created" }),
    ];
    expect(entrySummary({ records: mixed })).toBe("Operation changed (Name), 1 line changed, 2 lines removed, 1 account attached");
    expect(entrySummary({ records: lines("R", 3, { action: "updated" }) }, 2)).toBe("Reverted to version 2 (3 lines changed)");
  });

  it("knows a record's set, and which versions reverts made", () => {
    expect(setIdOf({ id: "chg_01M8GWEYRRD7Y0NGS3BPVGEN3K-12" })).toBe("chg_01M8GWEYRRD7Y0NGS3BPVGEN3K");
    const reverts = revertsOf([
      { type: "operation.reverted", data: { fromVersion: 4, toVersion: 2 } },
      { type: "lines.upserted", data: { fromVersion: 9, toVersion: 1 } },
    ]);
    expect([...reverts]).toEqual([[5, 2]]);
  });
});
