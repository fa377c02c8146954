import * as z from "zod";
import { ISO_4217_CODES } from "./currencies";

const currency = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 currency code in capitals, e.g. EUR")
  .refine((code) => ISO_4217_CODES.has(code), "is not a current ISO 4217 code")
  .nullable()
  .describe("The ISO 4217 currency the tenant's amounts (minimums, order amounts) are minor units of; null: not said (amounts are shown as held).");

export const displaySettingsBody = z.strictObject({ currency }).meta({ id: "DisplaySettingsWrite", examples: [{ currency: "EUR" }] });
export type DisplaySettings = z.output<typeof displaySettingsBody>;

export const displaySettingsRepresentation = z
  .object({ currency: z.string().nullable().describe("ISO 4217; null: not said.") })
  .meta({ id: "DisplaySettings", examples: [{ currency: "EUR" }] });
