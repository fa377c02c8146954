import * as z from "zod";

/** ISO 4217 codes as the runtime's Intl knows them (the console formats amounts with the same Intl). */
const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

const currency = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 currency code in capitals, e.g. EUR")
  .refine((code) => CURRENCIES.has(code), "is not an ISO 4217 currency")
  .nullable()
  .describe("The ISO 4217 currency the tenant's amounts (minimums, order amounts) are minor units of; null: not said (amounts are shown as held).");

export const displaySettingsBody = z.strictObject({ currency }).meta({ id: "DisplaySettingsWrite", examples: [{ currency: "EUR" }] });
export type DisplaySettings = z.output<typeof displaySettingsBody>;

export const displaySettingsRepresentation = z
  .object({ currency: z.string().nullable().describe("ISO 4217; null: not said.") })
  .meta({ id: "DisplaySettings", examples: [{ currency: "EUR" }] });
