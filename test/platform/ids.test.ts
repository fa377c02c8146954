import { afterEach, describe, expect, it, vi } from "vitest";
import { newId, timeOfId } from "../../src/platform/core/ids";

describe("ids", () => {
  afterEach(() => vi.restoreAllMocks());

  it("increase strictly, within a millisecond and across a small clock step back", () => {
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    const ids = [newId("chg"), newId("chg"), newId("chg")];
    clock.mockReturnValue(now - 500);
    ids.push(newId("chg"));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(timeOfId(ids[3])).toBe(now);
  });

  it("carry their creation's time after a clock that ran a day ahead comes back", () => {
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now + 86_400_000);
    expect(timeOfId(newId("chg"))).toBe(now + 86_400_000);
    clock.mockReturnValue(now);
    expect(timeOfId(newId("chg"))).toBe(now);
  });
});
