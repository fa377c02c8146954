import { z } from "zod";
import { localeTag, localizedText, localizedTextPatch } from "../platform/locale";
import { commaEnumList, commaList, pageQueryShape, type ListDefinition } from "../platform/pagination";
import { dateTime, externalKey } from "../platform/fields";
import { operations } from "../platform/tables";

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
  })
  .refine((body) => body.startDate <= body.endDate, { message: "startDate must not be after endDate", path: ["startDate"] });

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
  })
  .refine((body) => !body.startDate || !body.endDate || body.startDate <= body.endDate, {
    message: "startDate must not be after endDate",
    path: ["startDate"],
  })
  .describe("JSON Merge Patch (RFC 7396): localized maps merge by locale, null removes a locale; other fields replace.");
export type OperationPatch = z.output<typeof patchOperationBody>;

export const statusChangeBody = z.strictObject({ status: z.enum(OPERATION_STATUSES) });

export const listOperationsQuery = z.strictObject({
  ...pageQueryShape(operationList),
  status: commaEnumList(OPERATION_STATUSES, "Comma list of statuses."),
  ids: commaList("Comma list of identifiers, of the kind idType names."),
  operationId: commaList("Alias of ids."),
  idType: z.enum(["id", "code", "externalId"]).default("id").describe("What ids holds."),
  name: z.string().min(1).max(200).optional().describe("Case-insensitive substring of the name in any locale (or in `locale`)."),
  operationName: z.string().min(1).max(200).optional().describe("Alias of name."),
  type: z.enum(OPERATION_TYPES).optional(),
  startDateFrom: dateTime.optional().describe("startDate ≥ this (inclusive)."),
  startDateTo: dateTime.optional().describe("startDate ≤ this (inclusive)."),
  endDateFrom: dateTime.optional().describe("endDate ≥ this (inclusive)."),
  endDateTo: dateTime.optional().describe("endDate ≤ this (inclusive)."),
  ownerIds: commaList("Comma list of owner user ids; matches Operations owned by any of them."),
  locale: localeTag.optional().describe("Restricts the name filter and the name sort to this locale."),
});
export type ListOperationsQuery = z.output<typeof listOperationsQuery>;

export const operationRepresentation = z.object({
  id: z.string(),
  code: z.string(),
  externalId: z.string().nullable(),
  name: z.record(z.string(), z.string()),
  description: z.record(z.string(), z.string()),
  type: z.enum(OPERATION_TYPES),
  status: z.enum(OPERATION_STATUSES),
  startDate: z.string(),
  endDate: z.string(),
  ownerIds: z.array(z.string()),
  lineCount: z.number().int(),
  accountCount: z.number().int(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type OperationRepresentation = z.infer<typeof operationRepresentation>;
