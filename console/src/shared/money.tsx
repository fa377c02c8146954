import { useDisplaySettings } from "../desk/api";

/**
 * Amounts as people read them. The API holds every amount as an integer of minor units (cents);
 * once the tenant says its currency (`/v1/settings/display`), the console shows and takes them in
 * major units of it (18000 → €180.00), and says the unit where there is none (minor units).
 */

/** The tenant's currency, or null while it is unknown or unset. */
export function useCurrency(): string | null {
  return useDisplaySettings().data?.currency ?? null;
}

/** How many minor units make a major one, as a power of ten (EUR 2, JPY 0, BHD 3). */
export const minorDigits = (currency: string) => new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** An amount in words: "€180.00" in the tenant's currency, else the minor units as held ("18000"). */
export function formatMoney(amount: number, currency: string | null): string {
  if (!currency) return String(amount);
  const digits = minorDigits(currency);
  return new Intl.NumberFormat("en", { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    amount / 10 ** digits,
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
export const moneyInputText = (amount: number, currency: string | null) =>
  currency ? (amount / 10 ** minorDigits(currency)).toFixed(minorDigits(currency)) : String(amount);

/** What was typed, as minor units (NaN when it is not an amount of the currency: "1.234" in EUR, "-5", "abc"). */
export function parseMoney(text: string, currency: string | null): number {
  const trimmed = text.trim();
  const digits = currency ? minorDigits(currency) : 0;
  const pattern = digits > 0 ? new RegExp(`^\\d+(\\.\\d{0,${digits}})?$`) : /^\d+$/;
  if (!pattern.test(trimmed)) return Number.NaN;
  const [whole, fraction = ""] = trimmed.split(".");
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, "0") || 0);
}
