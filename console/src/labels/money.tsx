import type { ReactNode } from "react";
import { useDisplaySettings } from "../api/settings";
import { useSession } from "../shared/context";
import { toRefusal } from "../shared/session";
import { Link, ProblemView } from "../shared/ui";
import { currentLanguage, t, tx } from "../shared/i18n";

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
          {t("common.tryAgain")}
        </button>
      </ProblemView>
    );
  return (
    <p role="status" className="muted">
      {t("common.loading")}
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

/** An amount in words, in the console's language: "€180.00" (180,00 € in French) in the tenant's currency, else the minor units as held ("18000"). */
export function formatMoney(amount: number, currency: string | null): string {
  if (!currency) return String(amount);
  const digits = minorDigits(currency);
  // Intl formats a decimal string exactly as written.
  return new Intl.NumberFormat(currentLanguage(), { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    majorText(amount, digits) as Intl.StringNumericLiteral,
  );
}

/** An amount as the API holds it (minor units of the tenant's currency), shown as people read it. */
export function Money({ amount }: { amount: number }) {
  const currency = useCurrency();
  return <span className="money">{formatMoney(amount, currency)}</span>;
}

/**
 * While the tenant has no currency, where amounts are shown: they are the minor units the API holds
 * (18000, not €180.00), and Settings is where a currency is set (an OPERATOR key's page).
 */
export function CurrencyNote() {
  const currency = useCurrency();
  const { session } = useSession();
  if (currency) return null;
  return (
    <p className="muted note currency-note">
      {t("common.minorUnits")}{" "}
      {session.role === "OPERATOR"
        ? tx("common.setCurrency", { settings: <Link to="/console/settings">{t("app.nav.settings")}</Link> })
        : t("common.operatorSetsCurrency")}
    </p>
  );
}

/** The unit an amount is typed in: "EUR", or "minor units" while no currency is set. */
export const moneyUnit = (currency: string | null) => currency ?? t("common.minorUnitsUnit");

/** An amount as an input shows it: "180.00" in major units, or the minor units as held. */
export const moneyInputText = (amount: number, currency: string | null) => (currency ? majorText(amount, minorDigits(currency)) : String(amount));

/**
 * A typed or pasted amount as plain decimal text, the way a spreadsheet or a price tag writes it:
 * "€1,234.50", "1 234,50 €", "EUR 1.234,50" and "1234.5" all read 1234.50 in euros. A currency sign
 * or code is taken only once a currency is set (minor units have none). Of "," and "." the last is the
 * decimal point when both appear; alone, a comma is a thousands separator only in groups of three
 * ("1,234"), else the decimal point ("12,5"); several dots in groups of three are thousands ("1.234.567").
 */
export function plainAmount(text: string, currency: string | null): string {
  let plain = text.trim().replace(/[\s\u00a0\u202f']/g, "");
  if (currency) plain = plain.replace(/\p{Sc}/gu, "").replace(new RegExp(`^${currency}|${currency}$`, "i"), "");
  const comma = plain.lastIndexOf(",");
  const dot = plain.lastIndexOf(".");
  if (comma >= 0 && dot >= 0) {
    const [thousands, point] = comma > dot ? [".", ","] : [",", "."];
    const [whole, fraction] = [plain.slice(0, Math.max(comma, dot)), plain.slice(Math.max(comma, dot) + 1)];
    // Thousands in groups of three only: "12.34,5" is not an amount.
    if (!new RegExp(`^\\d{1,3}(\\${thousands}\\d{3})*$`).test(whole) || point === thousands) return plain;
    return `${whole.replaceAll(thousands, "")}.${fraction}`;
  }
  if (comma >= 0) return /^\d{1,3}(,\d{3})+$/.test(plain) ? plain.replaceAll(",", "") : plain.replace(",", ".");
  if (/^\d{1,3}(\.\d{3}){2,}$/.test(plain)) return plain.replaceAll(".", "");
  return plain;
}

/**
 * What is wrong with a typed amount, in words, or undefined when it is one: the API takes integers
 * of minor units from 0 to 2^53 − 1, so "1.234" in EUR (a tenth of a cent) is refused, not rounded.
 */
export function moneyProblem(text: string, currency: string | null): string | undefined {
  const trimmed = text.trim();
  const plain = plainAmount(text, currency);
  const digits = currency ? minorDigits(currency) : 0;
  if (!/^\d+(\.\d*)?$|^\.\d+$/.test(plain))
    return t(currency ? "common.amountIn" : "common.amountMinor", { currency: currency ?? "", example: moneyInputText(18000, currency) });
  const decimals = plain.split(".")[1] ?? "";
  if (decimals.length > digits)
    return t("common.tooManyDecimals", { unit: currency ?? t("common.minorUnitsUnit"), digits, typed: trimmed, count: decimals.length });
  if (!Number.isSafeInteger(minorOf(plain, digits))) return t("common.atMost", { most: moneyInputText(Number.MAX_SAFE_INTEGER, currency) });
  return undefined;
}

/** "180.5" with 2 digits → 18050: the digits joined as text, then read once (exact within 2^53). */
const minorOf = (text: string, digits: number) => {
  const [whole, fraction = ""] = text.split(".");
  return Number(`${whole || "0"}${fraction.padEnd(digits, "0")}`);
};

/** What was typed, as minor units (NaN when it is not an amount of the currency: "1.234" in EUR, "-5", "abc"); "€1,234.50" is 123450. */
export function parseMoney(text: string, currency: string | null): number {
  if (moneyProblem(text, currency)) return Number.NaN;
  return minorOf(plainAmount(text, currency), currency ? minorDigits(currency) : 0);
}
