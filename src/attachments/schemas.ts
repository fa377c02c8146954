import * as z from "zod";
import { externalKey, listEnvelope } from "../platform/schema/fields";
import { commaEnumList, pageQueryShape } from "../platform/schema/list-query";
import type { ListDefinition } from "../platform/data/pagination";
import { accounts } from "../directory/tables";
import { operationAccounts } from "../operations/tables";
import { accountFilterShape, accountName, userRepresentation } from "../directory/schemas";
import { asOfQuery } from "../history/schemas";

/** Account ids per attach/detach call. */
/** The columns of an attachments CSV export; an import (attach) reads accountId and ignores the others, so an export imports back. */
export const ATTACHMENT_CSV_COLUMNS = ["accountId", "accountName", "operationStatus", "attachedAt"] as const;

export const MAX_ACCOUNT_IDS_PER_CALL = 2000;

/** An attached account's progress in the Operation; it only moves forward. */
export const OPERATION_ACCOUNT_STATUSES = ["NOT_STARTED", "CART_CREATED", "ORDERED"] as const;

export const attachmentList: ListDefinition = {
  name: "operation-accounts",
  sortable: {
    accountId: operationAccounts.accountId,
    accountName: accounts.nameSearch,
    attachedAt: operationAccounts.attachedAt,
  },
  id: operationAccounts.accountId,
  defaultSort: "accountId",
  maxLimit: 1000,
};

export const accountIdsBody = z
  .array(externalKey)
  .min(1, "send at least one accountId")
  .max(MAX_ACCOUNT_IDS_PER_CALL)
  .describe(`Up to ${MAX_ACCOUNT_IDS_PER_CALL} accountIds; repeats count once.`)
  .meta({ id: "AccountIds", examples: [["acc-2001", "acc-2002"]] });

export const listAttachmentsQuery = z.strictObject({
  ...pageQueryShape(attachmentList),
  ...accountFilterShape,
  accountName,
  operationStatus: commaEnumList(OPERATION_ACCOUNT_STATUSES, "Comma list of NOT_STARTED, CART_CREATED, ORDERED."),
});
export type ListAttachmentsQuery = z.output<typeof listAttachmentsQuery>;
export const listAttachmentsAsOfQuery = listAttachmentsQuery.extend({ asOf: asOfQuery });

export const attachmentRepresentation = z
  .object({
    accountId: z.string(),
    accountName: z.string(),
    users: z.array(userRepresentation),
    operationStatus: z.enum(OPERATION_ACCOUNT_STATUSES),
    attachedAt: z.string(),
    attachedBy: z.string(),
  })
  .meta({
    id: "Attachment",
    examples: [
      {
        accountId: "acc-2001",
        accountName: "Maison Dubois",
        users: [{ userId: "u-3001", email: "claire@dubois.example" }],
        operationStatus: "CART_CREATED",
        attachedAt: "2026-02-12T11:30:00Z",
        attachedBy: "key:key_01JQ3V9A4C6E8G0J2K4N6Q8S0T",
      },
    ],
  });

export const attachmentPage = listEnvelope(attachmentRepresentation).meta({ id: "AttachmentPage" });

export const attachResponse = z
  .object({
    attached: z.number().int(),
    alreadyAttached: z.number().int(),
    accountCount: z.number().int(),
  })
  .meta({ id: "AttachResult", examples: [{ attached: 1, alreadyAttached: 1, accountCount: 36 }] });
export const detachResponse = z
  .object({
    detached: z.number().int(),
    notAttached: z.array(z.string()),
    accountCount: z.number().int(),
  })
  .meta({ id: "DetachResult", examples: [{ detached: 1, notAttached: ["acc-2002"], accountCount: 35 }] });
