import { describe, expect, it } from "vitest";
import { discrepancyWords } from "../../console/src/labels/discrepancies";

describe("the API's codes in words", () => {
  it("says discrepancy codes in words", () => {
    expect(discrepancyWords("above_max")).toBe("Above maximum");
    expect(discrepancyWords("missing_required")).toBe("Required, missing");
    expect(discrepancyWords("over_budget")).toBe("over budget");
  });
});
