import type { OperationTotals } from "../api/totals";
import { plural } from "../shared/format";
import { refusalFigure } from "./refusals";

/** An Operation's figures as the Totals page shows them, each a label and its value in words. */
export function totalsFigures(totals: OperationTotals, money: (amount: number) => string): { label: string; value: string }[] {
  return [
    { label: "Orders", value: plural(totals.orders, "order") },
    { label: "Amount", value: money(totals.amount) },
    { label: "Accounts that ordered", value: plural(totals.accounts, "account") },
    { label: "Cancelled", value: totals.cancelled ? plural(totals.cancelled, "order") : "none" },
    { label: "Refused", value: refusalFigure(totals.refusals) },
    { label: "Lines ordered", value: plural(totals.lines.ordered, "line") },
    { label: "Below recommended", value: plural(totals.lines.belowRecommended, "line") },
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
