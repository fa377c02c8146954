import { t } from "../shared/i18n";

/**
 * A refused order in words, from its order.blocked event: who, for how much, which minimum refused it
 * (a rule, linked by its scope, or the tenant default) and by how much. An order falls into one quota
 * order per supplier; each one below its BLOCK minimum is one refusal.
 */

/** One supplier's share of a placement, refused below its minimum. */
export interface Refusal {
  accountId: string;
  /** null: the lines without a supplier. */
  supplierId: string | null;
  storeId: string | null;
  amount: number;
  minimum: number;
  shortfall: number;
  /** The rule that set the minimum; null: the tenant default. */
  ruleId: string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const text = (value: unknown) => (typeof value === "string" ? value : null);
const integer = (value: unknown) => (typeof value === "number" && Number.isInteger(value) ? value : 0);

/** The refusals an order.blocked event's data holds (its orders[] and results[], same positions); none from data of another shape. */
export function refusalsOf(data: unknown): Refusal[] {
  if (!isRecord(data) || !Array.isArray(data.orders) || !Array.isArray(data.results)) return [];
  const { orders, results } = data;
  return results.flatMap((result, i) => {
    const order = orders[i];
    if (!isRecord(result) || !isRecord(order) || result.allowed !== false) return [];
    const source = isRecord(result.source) ? result.source : {};
    return [
      {
        accountId: text(order.accountId) ?? text(data.accountId) ?? "",
        supplierId: text(order.supplierId),
        storeId: text(order.storeId),
        amount: integer(result.amount),
        minimum: integer(result.effectiveMinimum),
        shortfall: integer(result.shortfall),
        ruleId: source.kind === "DEFAULT" ? null : text(source.ruleId),
      },
    ];
  });
}

/** A sentence in pieces: text, and where the minimum's rule stands (a link, once its scope is read). */
export type Piece = string | { rule: string } | { default: true };

/** Where the sentence's source stands in it (a mark no translation holds). */
const SOURCE = "\u{F0002}";

/** "Maison Dupont, A-100 ordered €420.00 from supplier S-1: €80.00 short of the €500.00 minimum of the rule …". */
export function refusalPieces(refusal: Refusal, who: string, money: (amount: number) => string): Piece[] {
  const [before, after] = t("totals.refusal", {
    who,
    amount: money(refusal.amount),
    // "_": none (a select of the message).
    supplier: refusal.supplierId ?? "_",
    store: refusal.storeId ?? "_",
    shortfall: money(refusal.shortfall),
    minimum: money(refusal.minimum),
    source: SOURCE,
  }).split(SOURCE);
  return [before, refusal.ruleId === null ? { default: true } : { rule: refusal.ruleId }, after];
}

/** The pieces as plain text, the rule named by `ruleWords` (its scope, once read). */
export const piecesText = (pieces: Piece[], ruleWords: (ruleId: string) => string) =>
  pieces
    .map((piece) => (typeof piece === "string" ? piece : "rule" in piece ? t("totals.theRule", { scope: ruleWords(piece.rule) }) : t("totals.theDefault")))
    .join("");

/** An Operation's refusals counted in words: "37 refused below a minimum", "none". */
export function refusalCount(refusals: { quota: number; allocation: number }): string {
  const parts = [
    refusals.quota > 0 && t("totals.refusedBelowMinimum", { count: refusals.quota }),
    refusals.allocation > 0 && t("totals.refusedBeyondAllocation", { count: refusals.allocation }),
  ].filter((part): part is string => Boolean(part));
  return parts.length ? parts.join(", ") : t("totals.none");
}

/** The refusals as one figure: "37 below a minimum", "none". */
export function refusalFigure(refusals: { quota: number; allocation: number }): string {
  const parts = [
    refusals.quota > 0 && t("totals.belowMinimum", { count: refusals.quota }),
    refusals.allocation > 0 && t("totals.beyondAllocation", { count: refusals.allocation }),
  ].filter((part): part is string => Boolean(part));
  return parts.length ? parts.join(", ") : t("totals.none");
}
