import * as z from "zod";
import { localeTag, localizedText, localizedTextPatch } from "../platform/core/locale";
import { commaEnumList, commaList, pageQueryShape } from "../platform/schema/list-query";
import type { ListDefinition } from "../platform/data/pagination";
import { boundedText, dateTime, externalKey, listEnvelope } from "../platform/schema/fields";
import { operations } from "./tables";
import { deprecatedAlias } from "../platform/http/deprecation";

export const operationList: ListDefinition = {
  name: "operations",
  sortable: {
    name: operations.nameSort,
    code: operations.code,
    startDate: operations.startDate,
    endDate: operations.endDate,
    createdAt: operations.createdAt,
    status: operations.status,
  },
  id: operations.id,
  defaultSort: "-createdAt",
  maxLimit: 500,
};

export const OPERATION_STATUSES = ["DRAFT", "ACTIVE", "INACTIVE"] as const;
export const OPERATION_TYPES = ["PUBLIC", "PRIVATE"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

const ownerIds = z.array(externalKey).max(100).describe("Users who own the Operation.");

/**
 * Scheduled times lie before this: the Operation's Durable Object keeps each one as an alarm, and
 * the platform refuses alarms a few centuries out (a time of 2300 would be saved and never armed).
 */
export const SCHEDULE_HORIZON = "2100-01-01T00:00:00Z";

/** A scheduled time must lie ahead when it is set, and before the horizon. */
const scheduledTime = (what: string) =>
  dateTime
    .refine((value) => Date.parse(value) > Date.now(), "must be in the future")
    .refine((value) => value < SCHEDULE_HORIZON, `must be before ${SCHEDULE_HORIZON}`)
    .nullable()
    .optional()
    .describe(`${what} (to the second). Must be in the future and before ${SCHEDULE_HORIZON} when set; null clears it.`);

const scheduleBody = z
  .strictObject({
    activateAt: scheduledTime("When a DRAFT or INACTIVE Operation becomes ACTIVE"),
    deactivateAt: scheduledTime("When an ACTIVE Operation becomes INACTIVE"),
  })
  .refine((schedule) => !schedule.activateAt || !schedule.deactivateAt || schedule.deactivateAt > schedule.activateAt, {
    message: "deactivateAt must be after activateAt",
    path: ["deactivateAt"],
  })
  .nullable()
  .optional()
  .describe(
    "Scheduled status changes, made within 60 s of their time through the same rules as a manual change (actor schedule); a change the rules refuse records operation.schedule_failed. A time that has run is cleared. null clears the schedule.",
  );
export type ScheduleBody = z.output<typeof scheduleBody>;

export const createOperationBody = z
  .strictObject({
    code: externalKey.describe("Unique per tenant."),
    externalId: externalKey.nullable().optional(),
    name: localizedText,
    description: localizedText.optional(),
    type: z.enum(OPERATION_TYPES),
    startDate: dateTime,
    endDate: dateTime,
    ownerIds: ownerIds.optional(),
    schedule: scheduleBody,
  })
  .refine((body) => body.startDate <= body.endDate, { message: "startDate must not be after endDate", path: ["startDate"] })
  .meta({
    id: "OperationCreate",
    examples: [
      {
        code: "SPRING-2026",
        externalId: "crm-4711",
        name: { en: "Spring collection 2026", fr: "Collection printemps 2026" },
        description: { en: "Pre-orders for the spring range." },
        type: "PRIVATE",
        startDate: "2026-03-01T00:00:00Z",
        endDate: "2026-04-30T23:59:59Z",
        ownerIds: ["u-1001"],
      },
    ],
  });

export type OperationCreate = z.output<typeof createOperationBody>;
export const patchOperationBody = z
  .strictObject({
    code: externalKey.optional(),
    externalId: externalKey.nullable().optional(),
    name: localizedTextPatch.optional(),
    description: localizedTextPatch.optional(),
    type: z.enum(OPERATION_TYPES).optional(),
    startDate: dateTime.optional(),
    endDate: dateTime.optional(),
    ownerIds: ownerIds.optional(),
    schedule: scheduleBody.describe(
      "Merge patch: a key set to null clears that time, an omitted key keeps it; null clears both. deactivateAt must stay after activateAt.",
    ),
  })
  .refine((body) => !body.startDate || !body.endDate || body.startDate <= body.endDate, {
    message: "startDate must not be after endDate",
    path: ["startDate"],
  })
  .describe("JSON Merge Patch (RFC 7396): localized maps merge by locale, null removes a locale; other fields replace.")
  .meta({ id: "OperationPatch", examples: [{ name: { de: "Frühjahrskollektion 2026", fr: null }, endDate: "2026-05-15T23:59:59Z" }] });
export type OperationPatch = z.output<typeof patchOperationBody>;

export const statusChangeBody = z.strictObject({ status: z.enum(OPERATION_STATUSES) }).meta({ id: "OperationStatusChange", examples: [{ status: "ACTIVE" }] });

export const listOperationsQuery = z.strictObject({
  ...pageQueryShape(operationList),
  status: commaEnumList(OPERATION_STATUSES, "Comma list of statuses."),
  ids: commaList("Comma list of identifiers, of the kind idType names."),
  operationId: deprecatedAlias(commaList("Alias of ids."), { since: "2026-11-23", use: "ids" }),
  idType: z.enum(["id", "code", "externalId"]).default("id").describe("What ids holds."),
  name: boundedText(200).optional().describe("Case-insensitive substring of the name in any locale (or in `locale`)."),
  operationName: deprecatedAlias(boundedText(200).optional().describe("Alias of name."), { since: "2026-11-23", use: "name" }),
  type: z.enum(OPERATION_TYPES).optional(),
  startDateFrom: dateTime.optional().describe("startDate ≥ this (inclusive)."),
  startDateTo: dateTime.optional().describe("startDate ≤ this (inclusive)."),
  endDateFrom: dateTime.optional().describe("endDate ≥ this (inclusive)."),
  endDateTo: dateTime.optional().describe("endDate ≤ this (inclusive)."),
  ownerIds: commaList("Comma list of owner user ids; matches Operations owned by any of them."),
  locale: localeTag.optional().describe("Restricts the name filter and the name sort to this locale."),
});
export type ListOperationsQuery = z.output<typeof listOperationsQuery>;

/** The example of the OpenAPI document, which the front representation shows localized. */
export const OPERATION_EXAMPLE = {
  id: "op_01JQ3V8K2M5N7P9R1T3W5Y7Z9B",
  code: "SPRING-2026",
  externalId: "crm-4711",
  name: { en: "Spring collection 2026", fr: "Collection printemps 2026" },
  description: { en: "Pre-orders for the spring range." },
  type: "PRIVATE",
  status: "ACTIVE",
  startDate: "2026-03-01T00:00:00Z",
  endDate: "2026-04-30T23:59:59Z",
  schedule: { activateAt: null, deactivateAt: "2026-04-30T23:59:59Z" },
  ownerIds: ["u-1001"],
  lineCount: 120,
  accountCount: 35,
  version: 7,
  createdAt: "2026-02-10T08:15:00Z",
  updatedAt: "2026-02-27T16:42:10Z",
} as const;

export const operationRepresentation = z
  .object({
    id: z.string(),
    code: z.string(),
    externalId: z.string().nullable(),
    name: z.record(z.string(), z.string()),
    description: z.record(z.string(), z.string()),
    type: z.enum(OPERATION_TYPES),
    status: z.enum(OPERATION_STATUSES),
    startDate: z.string(),
    endDate: z.string(),
    schedule: z
      .object({ activateAt: z.string().nullable(), deactivateAt: z.string().nullable() })
      .nullable()
      .describe("Scheduled status changes still to run; null when none."),
    ownerIds: z.array(z.string()),
    lineCount: z.number().int(),
    accountCount: z.number().int(),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Operation", examples: [OPERATION_EXAMPLE] });
export type OperationRepresentation = z.infer<typeof operationRepresentation>;

export const operationPage = listEnvelope(operationRepresentation).meta({ id: "OperationPage" });
