import { describe, expect, it } from "vitest";
import { formatChange, formatValue, when } from "../../console/src/shared/format";

describe("values in words", () => {
  it("writes dates and times in one 24-hour style, and nothing as —", () => {
    expect(when("2026-03-01T19:05:09.123Z")).toBe("2026-03-01 19:05:09");
    expect(formatValue("2098-01-01T00:00:00Z")).toBe("2098-01-01 00:00:00");
    expect(formatValue(null)).toBe("—");
    expect(formatValue("")).toBe("—");
    expect(formatValue([])).toBe("—");
    expect(formatValue({ en: "Spring", fr: "Printemps" })).toBe("Spring (en) · Printemps (fr)");
    expect(formatChange({ field: "recommendedQuantity", previous: null, next: 5 })).toBe("recommendedQuantity — → 5");
  });
});
