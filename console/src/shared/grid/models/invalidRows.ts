import { t } from "../../i18n";

/** A row a save cannot send: how the grid names it, its place (-1: outside the current view), and what is wrong, in the grid's words. */
export interface InvalidRow {
  label: string;
  place: number;
  messages: string[];
}

/** Rows named in the sentence; the others are counted. */
const NAMED = 3;

const rowText = ({ label, place, messages }: InvalidRow) =>
  t("grid.invalidRow", { label: label || t("grid.aNewRow"), outside: place < 0 ? "yes" : "no", row: place + 1, messages: [...new Set(messages)].join("; ") });

/**
 * Why Save sent nothing, naming the rows and their reasons whole: "Not saved: fix SKU-7 (row 205):
 * Min 50 is greater than Max 10." (the first rows named, the rest counted).
 */
export function invalidRowsText(rows: readonly InvalidRow[]): string {
  const named = rows.slice(0, NAMED).map(rowText).join(" · ");
  return t("grid.notSaved", { count: rows.length, named, more: Math.max(0, rows.length - NAMED) });
}
