import type { OperationTotals } from "../api/totals";
import { refusalFigure } from "./refusals";
import { t } from "../shared/i18n";

/** An Operation's figures as the Totals page shows them, each a label and its value in words. */
export function totalsFigures(totals: OperationTotals, money: (amount: number) => string): { label: string; value: string }[] {
  return [
    { label: t("totals.orders"), value: t("totals.orderCount", { count: totals.orders }) },
    { label: t("totals.amount"), value: money(totals.amount) },
    { label: t("totals.accountsOrdered"), value: t("totals.accountCount", { count: totals.accounts }) },
    { label: t("totals.cancelled"), value: totals.cancelled ? t("totals.orderCount", { count: totals.cancelled }) : t("totals.none") },
    { label: t("totals.refused"), value: refusalFigure(totals.refusals) },
    { label: t("totals.linesOrdered"), value: t("totals.lineCount", { count: totals.lines.ordered }) },
    { label: t("totals.belowRecommended"), value: t("totals.lineCount", { count: totals.lines.belowRecommended }) },
  ];
}

/** How far a line's orders reach its recommended quantity: below it (to watch), at or above it, or without one. */
export type LineProgress = "below" | "reached" | "none";
export const lineProgress = (line: { orderedQuantity?: number; recommendedQuantity: number | null }): LineProgress =>
  line.recommendedQuantity === null ? "none" : (line.orderedQuantity ?? 0) < line.recommendedQuantity ? "below" : "reached";

/** Lines below their recommended quantity first (the furthest from it first), then the others as the API sorted them. */
export function belowRecommendedFirst<L extends { orderedQuantity?: number; recommendedQuantity: number | null }>(lines: readonly L[]): L[] {
  const share = (line: L) => (line.orderedQuantity ?? 0) / (line.recommendedQuantity ?? 1);
  const below = lines.filter((line) => lineProgress(line) === "below").sort((a, b) => share(a) - share(b));
  return [...below, ...lines.filter((line) => lineProgress(line) !== "below")];
}
