import * as z from "zod";
import { canonicalIdentifier, characterCount, identifierProblem } from "../core/identifier-text.mjs";
import { toIsoSeconds } from "../core/time";

/** Largest quantity the API stores: a signed 32-bit integer. */
export const MAX_QUANTITY = 2_147_483_647;

export const quantity = z.number().int().min(0).max(MAX_QUANTITY);
/** A pack size: quantities come in multiples of it. */
export const quantityIncrement = z.number().int().min(1).max(MAX_QUANTITY);
export const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * A refinement that reports `problemOf(value)` as the field's one issue: nothing else is checked on
 * such a value (its length or layout would only restate the point, less clearly).
 */
function refuseWith(problemOf: (value: string) => string | undefined, code = "invalid_format") {
  return (value: string, ctx: z.RefinementCtx) => {
    const problem = problemOf(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem, params: { code }, continue: false });
  };
}

/**
 * The character check of identifierText, for text that holds ids before it is split (a comma list):
 * it runs before any trimming, which would take a leading U+FEFF off unseen.
 */
export const refuseUnseenCharacters = refuseWith(identifierProblem);

/** A check of text of at most `max` characters, counted as every limit of the API counts them (characterCount). */
export function atMostCharacters(max: number) {
  return refuseWith((value) => (characterCount(value) > max ? `must be at most ${max} characters` : undefined), "too_big");
}

/** Text of 1 to `max` characters (characterCount), documented with that maxLength. */
export function boundedText(max: number) {
  return z.string().min(1).superRefine(atMostCharacters(max)).meta({ maxLength: max });
}

/**
 * Text that names something — a code, an external id, an account, supplier, store or user id, the id
 * of one of the API's rows — wherever it enters: path, query, JSON body, CSV cell, header. A control
 * or format character or a lone surrogate is refused (identifier-text.mjs, the rule `npm run key`
 * shares); the text is then taken in NFC, so the stored and compared value is one spelling whatever
 * the client sent. Lengths count the NFC text. Every id schema of the API is built on this one.
 */
export function identifierText(maxLength: number, { trim = false } = {}) {
  const canonical = z.string().superRefine(refuseUnseenCharacters).overwrite(canonicalIdentifier);
  return (trim ? canonical.trim() : canonical).min(1).superRefine(atMostCharacters(maxLength)).meta({ maxLength });
}

/**
 * The pattern /v1 documents for ids (control characters refused). It only documents: the check of
 * identifierText runs first and refuses more (format characters, lone surrogates), a tightening the
 * accepted document keeps as it is (docs/versioning.md).
 */
const DOCUMENTED_ID_PATTERN = /^[^\p{Cc}]*$/u;

/** External identifiers chosen by clients (codes, SKUs, account ids): 1–128 characters, trimmed (see identifierText). */
export const externalKey = identifierText(128, { trim: true }).regex(DOCUMENTED_ID_PATTERN, "must not contain control characters");

/**
 * What the OpenAPI document shows for a query value that arrives as text and is parsed by its schema
 * (platform/http/openapi.ts reads this metadata key): the value it stands for, and for a comma list the
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

/** A date-time as the API takes it: a date, a time (seconds and their fraction optional) and a time zone. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/;
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");
const LATEST = Date.parse("9999-12-31T23:59:59Z");

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/**
 * Why `text` is not a date-time the API takes, or undefined. Each part is checked against the
 * calendar and the clock, since Date.parse rolls an impossible date over (2027-02-30 → March 2).
 */
function dateTimeProblem(text: string): string | undefined {
  const parts = DATE_TIME.exec(text);
  if (!parts) {
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return `must be a date-time, not a date alone: add the time and its time zone, e.g. ${text}T00:00:00Z`;
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) return `must carry a time zone: Z or ±hh:mm such as +01:00, e.g. ${text}Z`;
    return "must be an ISO-8601 date-time with a time zone, e.g. 2026-03-01T00:00:00Z";
  }
  const [year, month, day, hour, minute] = parts.slice(1, 6).map(Number);
  const [second, offsetHours, offsetMinutes] = parts.slice(6).map((part) => Number(part ?? 0));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return `${text.slice(0, 10)} is not a date on the calendar`;
  if (hour > 23 || minute > 59 || second > 59) return `${text.slice(11, 19).replace(/[^\d:]+$/, "")} is not a time of day`;
  if (offsetHours > 23 || offsetMinutes > 59) return `${text.slice(-6)} is not a time zone (at most ±23:59)`;
  const instant = Date.parse(text);
  if (!(instant >= EARLIEST && instant <= LATEST)) return "must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z";
  return undefined;
}

/**
 * The pattern /v1 documents for date-times. It only documents: the check before it is the rule (a
 * time zone required, a date alone refused, the date on the calendar), a tightening the accepted
 * document keeps as it is (docs/versioning.md).
 */
const DOCUMENTED_DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO-8601 date-time with its time zone, on the calendar → the stored layout, to the second, in UTC. The one date-time check of the API. */
export const dateTime = z
  .string()
  .superRefine(refuseWith(dateTimeProblem))
  .regex(DOCUMENTED_DATE_TIME_PATTERN, "must be an ISO-8601 date-time")
  .transform((v) => toIsoSeconds(v))
  .meta({
    id: "DateTime",
    description: "An ISO-8601 date-time with a time zone (Z or ±hh:mm), on a date that exists; kept to the second, in UTC.",
    examples: ["2026-03-01T00:00:00Z"],
  });

/** A UTC calendar day, YYYY-MM-DD, that exists on the calendar. */
export const calendarDay = z
  .string()
  .superRefine(
    refuseWith((text) => {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return "must be a day as YYYY-MM-DD, e.g. 2026-03-01";
      const [year, month, day] = text.split("-").map(Number);
      return month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) ? `${text} is not a date on the calendar` : undefined;
    }),
  )
  .meta({ description: "A UTC day, YYYY-MM-DD.", examples: ["2026-03-01"] });

/** The id of one of the API's rows in a path, a query or a body (see identifierText). */
export const pathId = (description: string) => identifierText(100).regex(DOCUMENTED_ID_PATTERN, "must not contain control characters").describe(description);

export const operationIdParam = z.strictObject({ operationId: pathId("The Operation's id.") });

/** Where the next page starts: one schema for every list, so the document describes it once. */
const nextTokenOfPage = z
  .string()
  .nullable()
  .describe("Send it back as nextToken, with the same filters and sort, for the next page; null on the last page.")
  .meta({ id: "NextToken", examples: ["eyJrIjpbIjIwMjYtMDMtMDFUMDA6MDA6MDBaIl0sImIiOiI0ZjFjIn0.kX2v9Qm7"] });

/** A page of a list: name it where it is made (`listEnvelope(line).meta({ id: "LinePage" })`), like any other answer. */
export const listEnvelope = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextToken: nextTokenOfPage });

/**
 * A body that is one of two shapes, told apart by whether `key` is present: validation reports the
 * errors of the shape the client meant (a plain union would report both). Its validating transform
 * has no JSON Schema of its own, so the OpenAPI document shows a oneOf of the two shapes, which
 * must be named with `.meta({ id })` (platform/http/openapi.ts reads `oneOfComponents`).
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
