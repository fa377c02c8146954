import { describe, expect, it } from "vitest";
import { inFieldLabels } from "../../console/src/labels/fields";
import { invalidRowsText } from "../../console/src/shared/grid/models/invalidRows";

describe("a grid's refusals in its own words", () => {
  it("says the server's messages in the grid's words", () => {
    expect(inFieldLabels("minQuantity 50 is greater than maxQuantity 10")).toBe("Min 50 is greater than Max 10");
    expect(inFieldLabels("recommendedQuantity 12 is outside [1, 10]")).toBe("Recommended 12 is outside [1, 10]");
    expect(inFieldLabels("maxQuantity 7 is not a multiple of quantityIncrement 2")).toBe("Max 7 is not a multiple of Pack 2");
    expect(inFieldLabels("the status is not DRAFT")).toBe("the status is not DRAFT");
  });

  it("names the rows a save refused, where they are, and their reasons whole", () => {
    expect(invalidRowsText([{ label: "SKU-7", place: 204, messages: ["Min 50 is greater than Max 10", "Min 50 is greater than Max 10"] }])).toBe(
      "Not saved: fix this row first. SKU-7 (row 205): Min 50 is greater than Max 10.",
    );
    const many = [
      { label: "SKU-1", place: 0, messages: ["a whole number ≥ 0"] },
      { label: "", place: 9, messages: ["a line needs a Variant"] },
      { label: "SKU-3", place: -1, messages: ["a pack size is at least 1"] },
      { label: "SKU-4", place: 12, messages: ["x"] },
      { label: "SKU-5", place: 13, messages: ["y"] },
    ];
    expect(invalidRowsText(many)).toBe(
      "Not saved: fix these 5 rows first. SKU-1 (row 1): a whole number ≥ 0 · a new row (row 10): a line needs a Variant · SKU-3 (outside this view): a pack size is at least 1 · and 2 more rows.",
    );
  });
});
