import * as z from "zod";
import { toIsoSeconds } from "./time";

/** Largest quantity the API stores: a signed 32-bit integer. */
export const MAX_QUANTITY = 2_147_483_647;

export const quantity = z.number().int().min(0).max(MAX_QUANTITY);
/** A pack size: quantities come in multiples of it. */
export const quantityIncrement = z.number().int().min(1).max(MAX_QUANTITY);
export const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** No control character (NUL, newline, tab…) may be stored in an identifier or a code. */
const NO_CONTROL_CHARACTERS = /^[^\p{Cc}]*$/u;

/** External identifiers chosen by clients (codes, SKUs, account ids): 1–128 characters, none a control character. */
export const externalKey = z.string().trim().min(1).max(128).regex(NO_CONTROL_CHARACTERS, "must not contain control characters");

/**
 * What the OpenAPI document shows for a query value that arrives as text and is parsed by its schema
 * (platform/openapi.ts reads this metadata key): the value it stands for, and for a comma list the
 * serialization (`style: form, explode: false`: `status=ACTIVE,DRAFT`) a generated client uses.
 * Validation never sees it: the server still parses the text.
 */
export interface DocumentedQuery {
  schema: Record<string, unknown>;
  style?: "form";
  explode?: boolean;
}

export const documentedQuery = (documented: DocumentedQuery) => ({ documentedQuery: documented });

/**
 * An integer in a query string: decimal digits only (no `0x10`, `1e2`, `10.0`, sign or spaces),
 * then bounded like any integer; absent, it is `defaultValue` when one is given.
 */
export function queryInteger(min: number, max: number, defaultValue?: number) {
  const integer = z
    .string()
    .regex(/^\d{1,16}$/, "must be a decimal integer (digits only)")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta(
      documentedQuery({
        schema: {
          type: "integer",
          minimum: min,
          maximum: max,
          ...(defaultValue !== undefined && { default: defaultValue }),
          description: "Decimal digits only (no sign, exponent, fraction or hex).",
        },
      }),
    );
  return defaultValue === undefined ? integer : integer.default(defaultValue);
}

/** ISO-8601 date-time (or date) → the stored layout, to the second, in UTC. */
export const dateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/, "must be an ISO-8601 date-time")
  .refine((v) => !Number.isNaN(Date.parse(v)), "must be a real date")
  .transform((v) => toIsoSeconds(v))
  .refine((v) => v >= "0001-01-01T00:00:00Z" && v <= "9999-12-31T23:59:59Z", "out of range")
  .meta({ examples: ["2026-03-01T00:00:00Z"] });

export const pathId = (description: string) =>
  z.string().min(1).max(100).regex(NO_CONTROL_CHARACTERS, "must not contain control characters").describe(description);

export const operationIdParam = z.strictObject({ operationId: pathId("The Operation's id.") });

/** A page of a list: name it where it is made (`listEnvelope(line).meta({ id: "LinePage" })`), like any other answer. */
export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    nextToken: z
      .string()
      .nullable()
      .describe("Send it back as nextToken, with the same filters and sort, for the next page; null on the last page.")
      .meta({ examples: ["eyJrIjpbIjIwMjYtMDMtMDFUMDA6MDA6MDBaIl0sImIiOiI0ZjFjIn0.kX2v9Qm7"] }),
  });

/**
 * A body that is one of two shapes, told apart by whether `key` is present: validation reports the
 * errors of the shape the client meant (a plain union would report both). Its validating transform
 * has no JSON Schema of its own, so the OpenAPI document shows a oneOf of the two shapes, which
 * must be named with `.meta({ id })` (platform/openapi.ts reads `oneOfComponents`).
 */
export function eitherBody<A extends z.ZodType, B extends z.ZodType>(key: string, withKey: A, withoutKey: B) {
  const oneOfComponents = [withKey, withoutKey].map((shape) => {
    const id = z.globalRegistry.get(shape)?.id;
    if (!id) throw new Error("eitherBody: name both shapes with .meta({ id }), so the OpenAPI document can show them.");
    return id;
  });
  return z
    .unknown()
    .transform((value, ctx): z.output<A> | z.output<B> => {
      const hasKey = value !== null && typeof value === "object" && !Array.isArray(value) && key in value;
      const result = (hasKey ? withKey : withoutKey).safeParse(value);
      if (result.success) return result.data as z.output<A> | z.output<B>;
      for (const issue of result.error.issues) ctx.addIssue({ ...issue } as never);
      return z.NEVER;
    })
    .meta({ oneOfComponents });
}

/**
 * A refinement for arrays keyed by one field (use with `.superRefine(...)`): every repeated key is an
 * issue (code duplicate_key) at the repeat's index, naming the index it repeats, so the client can
 * fix them all at once.
 */
export function noRepeatedKeys<T>(keyOf: (item: T) => string, field: string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    const firstIndex = new Map<string, number>();
    items.forEach((item, index) => {
      const key = keyOf(item);
      const first = firstIndex.get(key);
      if (first === undefined) firstIndex.set(key, index);
      else {
        ctx.addIssue({
          code: "custom",
          path: [index, field],
          message: `${key} repeats the item at index ${first}; send each ${field} once`,
          params: { code: "duplicate_key" },
        });
      }
    });
  };
}

/**
 * A batch of items keyed by `field`: 1–`max` items (the minimum is `min`), each key once; a repeat
 * is 400 validation_failed with code duplicate_key at the repeat's index.
 */
export function keyedBatch<Item extends z.ZodType>(
  item: Item,
  options: { field: string; keyOf: (item: z.output<Item>) => string; max?: number; min?: number; what: string },
) {
  let batch = z.array(item);
  if (options.min !== 0) batch = batch.min(options.min ?? 1, `send at least one ${options.what}`);
  if (options.max !== undefined) batch = batch.max(options.max);
  return batch.superRefine(noRepeatedKeys(options.keyOf, options.field));
}

/** A query flag: "true" or "false" (absent: false). */
export function queryFlag(description: string) {
  return z
    .enum(["true", "false"])
    .optional()
    .transform((value) => value === "true")
    .meta(documentedQuery({ schema: { type: "boolean", default: false } }))
    .describe(description);
}

/** ?dryRun=true on a batch write: every check runs and the answer is the real call's, but nothing changes. */
export const dryRunQuery = z.strictObject({
  dryRun: queryFlag(
    "true runs every check and answers exactly what the call would (status, counts, errors[]), with the header svc-dry-run: true, and changes nothing: no row, no version, no event.",
  ),
});
export type DryRunQuery = z.output<typeof dryRunQuery>;
