import { describe, expect, it } from "vitest";
import { formatChange, formatValue, plural, when } from "../../console/src/shared/format";

describe("values in words", () => {
  it("counts with their nouns", () => {
    expect(plural(1, "line")).toBe("1 line");
    expect(plural(200, "line")).toBe("200 lines");
    expect(plural(2, "valid rejection")).toBe("2 valid rejections");
  });

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
