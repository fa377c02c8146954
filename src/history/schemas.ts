import { sql } from "drizzle-orm";
import * as z from "zod";
import { RESOURCE_TYPES } from "../platform/data/changes";
import type { ListDefinition } from "../platform/data/pagination";
import { changeRecords, changeSets } from "../platform/data/tables";
import { dateTime, identifierText, listEnvelope, queryInteger } from "../platform/schema/fields";
import { pageQueryShape } from "../platform/schema/list-query";

/** Newest first: a set's id follows its time, and its records their place in it. */
export const historyList: ListDefinition = {
  name: "history",
  sortable: { at: changeSets.id },
  id: sql`${changeRecords.ordinal}`,
  defaultSort: "-at",
  maxLimit: 500,
};

const fieldChange = z
  .object({
    field: z.string(),
    previous: z.unknown().optional().describe("What it was; absent when the resource was created."),
    next: z.unknown().optional().describe("What it became; absent when the resource was deleted."),
  })
  .meta({ id: "FieldChange" });

export const changeRecordRepresentation = z
  .object({
    id: z.string().describe("chg_…: its change set's id and its place in it."),
    resourceType: z.enum(RESOURCE_TYPES),
    resourceId: z.string().describe("The resource's id: a line's variantExternalId, an attachment's accountId, the default's \"default\"."),
    operationId: z.string().optional().describe("The Operation a change to an Operation, its lines or its attachments belongs to."),
    version: z.number().int().optional().describe("The Operation's version after the change."),
    action: z.enum(["created", "updated", "deleted"]),
    changes: z
      .array(fieldChange)
      .describe(
        'Only the fields that changed; a created resource has every field with previous absent, a deleted one every field with next absent. Secrets show as "[redacted]".',
      ),
    actor: z.string().describe("As on events: key:<keyId>, user:<userId>, schedule or cli."),
    actorKeyId: z
      .string()
      .optional()
      .describe(
        "The key the change was made with, also when actor names the key's user (absent for the schedule, the command line, and changes recorded before keys were kept).",
      ),
    requestId: z.string().optional(),
    reason: z.string().optional().describe("svc-change-reason, as the request sent it."),
    at: z.string(),
  })
  .meta({
    id: "ChangeRecord",
    examples: [
      {
        id: "chg_01JQ5D9E1F3G5H7J9K1M3N5P7Q-0",
        resourceType: "line",
        resourceId: "SKU-123",
        operationId: "op_01JQ3V8K2M5N7P9R1T3W5Y7Z9B",
        version: 7,
        action: "updated",
        changes: [{ field: "maxQuantity", previous: 50, next: 5 }],
        actor: "key:key_01JQ3V9A4C6E8G0J2K4N6Q8S0T",
        requestId: "6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f",
        reason: "Supplier allocation cut",
        at: "2026-03-01T07:00:00.000Z",
      },
    ],
  });
export type ChangeRecordRepresentation = z.output<typeof changeRecordRepresentation>;

export const historyPage = listEnvelope(changeRecordRepresentation).meta({ id: "ChangeRecordPage" });

const { limit, nextToken, sort } = pageQueryShape(historyList);
const sharedFilters = {
  limit,
  nextToken,
  sort: sort.describe("-at: newest first (the default); at: oldest first."),
  field: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z]+$/, "must be a field name")
    .optional()
    .describe("Only records that change this field (e.g. maxQuantity)."),
  actorKeyId: identifierText(100).optional().describe("Only changes made with this key, whether the actor names the key or its user."),
  actorUserId: identifierText(128).optional().describe("Only changes made by this user (actor user:<userId>)."),
  from: dateTime.optional().describe("Only changes at or after this date-time."),
  to: dateTime.optional().describe("Only changes at or before this date-time."),
};

/** asOf: a version of the Operation (its history), for its lines or accounts as they were then. */
export const asOfQuery = queryInteger(1, Number.MAX_SAFE_INTEGER)
  .optional()
  .describe(
    "A version of the Operation: its lines (or accounts) as they were then, with the same filters, sort and pages (OPERATOR keys) (past 90 days: from the archive, slower). A version its history does not cover: 404 version_not_found.",
  );

export const historyQuery = z.strictObject({
  ...sharedFilters,
  resourceType: z.enum(RESOURCE_TYPES).optional().describe("Only records of this kind of resource."),
  resourceId: identifierText(128).optional().describe("Only records of this resource id (with resourceType to name one kind)."),
  operationId: identifierText(100).optional().describe("Only the changes of this Operation, its lines and its attachments."),
});
export type HistoryQuery = z.output<typeof historyQuery>;

export const operationHistoryQuery = z.strictObject({
  ...sharedFilters,
  resourceType: z
    .enum(["operation", "line", "attachment", "approval", "order", "allocation", "account_cap"])
    .optional()
    .describe("Only records of the Operation itself, of its lines, of its attachments, or of its approvals."),
  variantExternalId: identifierText(128).optional().describe("Only the records of this line."),
});
export type OperationHistoryQuery = z.output<typeof operationHistoryQuery>;

const fieldChanges = z.array(fieldChange);

export const diffQuery = z.strictObject({
  from: queryInteger(1, Number.MAX_SAFE_INTEGER).describe("The version compared from (previous values)."),
  to: queryInteger(1, Number.MAX_SAFE_INTEGER).optional().describe("The version compared to (next values); the current version when omitted."),
  limit: queryInteger(1, 1000, 50).describe("Lines per page, 1–1000."),
  nextToken: z.string().min(1).max(2000).optional().describe("Opaque token from the previous page."),
});
export type DiffQuery = z.output<typeof diffQuery>;

export const operationDiff = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    operation: fieldChanges.describe("The Operation's fields that differ (on the first page; empty on the next ones)."),
    accounts: z
      .array(z.object({ accountId: z.string(), change: z.enum(["attached", "detached"]) }))
      .describe("Accounts attached or detached between the two versions (on the first page; empty on the next ones)."),
    items: z
      .array(z.object({ variantExternalId: z.string(), change: z.enum(["added", "removed", "changed"]), changes: fieldChanges }))
      .describe(
        "The lines that differ, by variantExternalId: added (every field, no previous), removed (every field, no next), changed (the fields that differ).",
      ),
    nextToken: z.string().nullable().describe("Send it back as nextToken, with the same from and to, for the next page of lines; null on the last page."),
  })
  .meta({
    id: "OperationDiff",
    examples: [
      {
        from: 5,
        to: 7,
        operation: [{ field: "status", previous: "DRAFT", next: "ACTIVE" }],
        accounts: [{ accountId: "acc-2001", change: "attached" }],
        items: [
          { variantExternalId: "SKU-123", change: "changed", changes: [{ field: "maxQuantity", previous: 50, next: 5 }] },
          { variantExternalId: "SKU-124", change: "added", changes: [{ field: "maxQuantity", next: 12 }] },
        ],
        nextToken: null,
      },
    ],
  });
