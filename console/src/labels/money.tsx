import type { ReactNode } from "react";
import { useDisplaySettings } from "../api/desk";
import { toRefusal } from "../shared/session";
import { ProblemView } from "../shared/ui";

/**
 * Amounts as people read them. The API holds every amount as an integer of minor units (cents);
 * once the tenant says its currency (`/v1/settings/display`), the console shows and takes them in
 * major units of it (18000 → €180.00), and says the unit where there is none (minor units).
 */

/** The tenant's currency, or null while it is unknown or unset. */
export function useCurrency(): string | null {
  return useDisplaySettings().data?.currency ?? null;
}

/**
 * Shows its pages once the tenant's currency is known. Until then "100" in an amount field could
 * mean €100.00 or 100 cents, and a page typed into that early would send the wrong one.
 */
export function AmountsReady({ children }: { children: ReactNode }) {
  const display = useDisplaySettings();
  if (display.isSuccess) return children;
  if (display.isError)
    return (
      <ProblemView refusal={toRefusal(display.error)}>
        <button type="button" onClick={() => void display.refetch()}>
          Try again
        </button>
      </ProblemView>
    );
  return (
    <p role="status" className="muted">
      Loading…
    </p>
  );
}

/** How many minor units make a major one, as a power of ten (EUR 2, JPY 0, BHD 3). */
export const minorDigits = (currency: string) => new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

/**
 * Minor units as the decimal text of major units, exactly (digits moved, no division: a float
 * would turn some large amounts into their neighbours): 18000 → "180.00", 5 → "0.05" (EUR).
 */
export function majorText(amount: number, digits: number): string {
  const sign = amount < 0 ? "-" : "";
  const text = String(Math.abs(amount)).padStart(digits + 1, "0");
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** An amount in words: "€180.00" in the tenant's currency, else the minor units as held ("18000"). */
export function formatMoney(amount: number, currency: string | null): string {
  if (!currency) return String(amount);
  const digits = minorDigits(currency);
  // Intl formats a decimal string exactly as written.
  return new Intl.NumberFormat("en", { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    majorText(amount, digits) as Intl.StringNumericLiteral,
  );
}

/** An amount as the API holds it (minor units of the tenant's currency), shown as people read it. */
export function Money({ amount }: { amount: number }) {
  const currency = useCurrency();
  return <span className="money">{formatMoney(amount, currency)}</span>;
}

/** The unit an amount is typed in: "EUR", or "minor units" while no currency is set. */
export const moneyUnit = (currency: string | null) => currency ?? "minor units";

/** An amount as an input shows it: "180.00" in major units, or the minor units as held. */
export const moneyInputText = (amount: number, currency: string | null) => (currency ? majorText(amount, minorDigits(currency)) : String(amount));

/**
 * What is wrong with a typed amount, in words, or undefined when it is one: the API takes integers
 * of minor units from 0 to 2^53 − 1, so "1.234" in EUR (a tenth of a cent) is refused, not rounded.
 */
export function moneyProblem(text: string, currency: string | null): string | undefined {
  const trimmed = text.trim();
  const digits = currency ? minorDigits(currency) : 0;
  const unit = currency ? `an amount in ${currency}` : "a whole number of minor units";
  if (!/^\d+(\.\d*)?$|^\.\d+$/.test(trimmed)) return `${unit} ≥ 0, such as ${moneyInputText(18000, currency)}`;
  const decimals = trimmed.split(".")[1] ?? "";
  if (decimals.length > digits) {
    const allowed = digits === 0 ? `${currency ?? "minor units"} have no decimals` : `${currency} has ${digits} decimals at most`;
    return `${allowed}: ${trimmed} has ${decimals.length}`;
  }
  if (!Number.isSafeInteger(minorOf(trimmed, digits))) return `at most ${moneyInputText(Number.MAX_SAFE_INTEGER, currency)}`;
  return undefined;
}

/** "180.5" with 2 digits → 18050: the digits joined as text, then read once (exact within 2^53). */
const minorOf = (text: string, digits: number) => {
  const [whole, fraction = ""] = text.split(".");
  return Number(`${whole || "0"}${fraction.padEnd(digits, "0")}`);
};

/** What was typed, as minor units (NaN when it is not an amount of the currency: "1.234" in EUR, "-5", "abc"). */
export function parseMoney(text: string, currency: string | null): number {
  if (moneyProblem(text, currency)) return Number.NaN;
  return minorOf(text.trim(), currency ? minorDigits(currency) : 0);
}
