import type { Cells } from "../shared/grid/models/draft";
import { numberValue, textValue, type SheetCodec, type SheetColumn } from "../shared/excel/sheet";
import { minorDigits, parseMoney } from "../labels/money";
import type { QuotaRule } from "../api/rules";
import { t } from "../shared/i18n";

/** The CSV's columns (RULE_CSV_COLUMNS in src/quotas/schemas.ts): the minimum in minor units, as the API holds it. */
const COLUMNS: readonly SheetColumn[] = [
  { name: "id" },
  { name: "accountId" },
  { name: "supplierId" },
  { name: "storeId" },
  { name: "minimum", number: true },
  { name: "enforcement" },
];
const SCOPE = ["accountId", "supplierId", "storeId"] as const;

/**
 * A file's minimum, in minor units, as the grid's text in `currency` (its major units), exactly: the
 * digits move, nothing is divided (18000 → "180.00" in EUR, 12.5 → "0.125", which the grid refuses).
 * Anything but a plain number stays as written, for the grid to refuse.
 */
export function minorToGridText(text: string, currency: string | null): string {
  const parts = /^(\d*)(?:\.(\d+))?$/.exec(text);
  if (!currency || !parts || text === "" || text === ".") return text;
  const [, whole = "", fraction = ""] = parts;
  const point = fraction.length + minorDigits(currency);
  const digits = `${whole}${fraction}`.replace(/^0+/, "").padStart(point + 1, "0");
  return point === 0 ? digits : `${digits.slice(0, -point)}.${digits.slice(-point)}`;
}

/** A rule's scope in a sentence ("A-1 / (any) / S-3", "(alle)" in German), "" when it has neither an account nor a supplier (such a row is always new). */
const scopeKey = (cells: Cells) => {
  const [account, supplier, store] = SCOPE.map((field) => (cells[field] ?? "").trim());
  const any = t("excel.anyScope");
  return account || supplier ? [account, supplier, store].map((id) => id || any).join(" / ") : "";
};

/** The rules grid as an Excel sheet in the grid's `currency`: a row goes to the rule of its scope, as the CSV import upserts (its id is ignored). */
export function rulesSheet(currency: string | null): SheetCodec<QuotaRule> {
  return {
    sheet: () => t("excel.sheetRules"),
    columns: COLUMNS,
    required: ["minimum"],
    keyName: "scope",
    valuesOf: ({ stored, cells }) => {
      const minor = parseMoney(cells.minimum, currency);
      return [
        stored?.id ?? null,
        ...SCOPE.map((field) => textValue(cells[field].trim())),
        Number.isNaN(minor) ? numberValue(cells.minimum.trim()) : minor,
        textValue(cells.enforcement.trim()),
      ];
    },
    cellsOf: (texts) => {
      const cells = new Map([...texts].filter(([name]) => name !== "id"));
      const minimum = cells.get("minimum");
      if (minimum !== undefined) cells.set("minimum", minorToGridText(minimum, currency));
      return cells;
    },
    keyOf: scopeKey,
  };
}
