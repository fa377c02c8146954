import { z } from "zod";
import { toIsoSeconds } from "./time";

/** Largest quantity the API stores (API.md §2): a signed 32-bit integer. */
export const MAX_QUANTITY = 2_147_483_647;

export const quantity = z.number().int().min(0).max(MAX_QUANTITY);
export const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** External identifiers chosen by clients (codes, SKUs, account ids). */
export const externalKey = z.string().trim().min(1).max(200);

/** ISO-8601 date-time (or date) → the stored layout, to the second, in UTC. */
export const dateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/, "must be an ISO-8601 date-time")
  .refine((v) => !Number.isNaN(Date.parse(v)), "must be a real date")
  .transform((v) => toIsoSeconds(v))
  .refine((v) => v >= "0001-01-01T00:00:00Z" && v <= "9999-12-31T23:59:59Z", "out of range");

export const pathId = (description: string) => z.string().min(1).max(100).describe(description);

export const operationIdParam = z.strictObject({ operationId: pathId("The Operation's id.") });

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextToken: z.string().nullable() });
