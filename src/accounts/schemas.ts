import { z } from "zod";
import { commaEnumList, commaList, pageQueryShape } from "../platform/pagination";
import { externalKey, noRepeatedKeys } from "../platform/schemas";
import { attachmentList, directoryList } from "./queries";

/** Account ids per attach/detach call, and accounts per directory PUT (API.md §6, §11). */
export const MAX_ACCOUNT_IDS_PER_CALL = 2000;
export const MAX_DIRECTORY_ACCOUNTS_PER_CALL = 5000;
export const MAX_USERS_PER_ACCOUNT = 200;

export const OPERATION_ACCOUNT_STATUSES = ["NOT_STARTED", "CART_CREATED", "ORDERED"] as const;

const emailAddress = z
  .string()
  .trim()
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/, "must be an email address");

const accountUser = z.strictObject({ userId: externalKey, email: emailAddress });
export type AccountUser = z.output<typeof accountUser>;

const directoryAccountInput = z.strictObject({
  accountId: externalKey,
  name: z.string().trim().min(1).max(500),
  users: z
    .array(accountUser)
    .max(MAX_USERS_PER_ACCOUNT)
    .superRefine(noRepeatedKeys((user: AccountUser) => user.userId, "userId"))
    .default([])
    .describe("Replaces the account's users; omitted means none."),
});
export type DirectoryAccountInput = z.output<typeof directoryAccountInput>;

export const putDirectoryBody = z
  .array(directoryAccountInput)
  .min(1, "send at least one account")
  .max(MAX_DIRECTORY_ACCOUNTS_PER_CALL)
  .superRefine(noRepeatedKeys((account: DirectoryAccountInput) => account.accountId, "accountId"))
  .describe(
    `Up to ${MAX_DIRECTORY_ACCOUNTS_PER_CALL} accounts, upserted by accountId. An accountId may appear once per call, a userId once per account (a repeat is 400 validation_failed, code duplicate_key).`,
  );

export const accountIdsBody = z
  .array(externalKey)
  .min(1, "send at least one accountId")
  .max(MAX_ACCOUNT_IDS_PER_CALL)
  .describe(`Up to ${MAX_ACCOUNT_IDS_PER_CALL} accountIds; repeats count once.`);

const text = (description: string) => z.string().min(1).max(200).optional().describe(description);

const accountName = text("Case-insensitive substring of the account name.");

/** The filters of both account lists (accounts/queries.ts accountFilters). */
const accountFilterShape = {
  accountIds: commaList("Comma list of accountIds.", 2000),
  accountId: commaList("Alias of accountIds.", 2000),
  userId: text("Accounts whose users include this userId."),
  email: text("Accounts with a user of this email (exact, ignoring case)."),
};

export const listDirectoryQuery = z.strictObject({
  ...pageQueryShape(directoryList),
  ...accountFilterShape,
  name: accountName,
});
export type ListDirectoryQuery = z.output<typeof listDirectoryQuery>;

export const listAttachmentsQuery = z.strictObject({
  ...pageQueryShape(attachmentList),
  ...accountFilterShape,
  accountName,
  operationStatus: commaEnumList(OPERATION_ACCOUNT_STATUSES, "Comma list of NOT_STARTED, CART_CREATED, ORDERED."),
});
export type ListAttachmentsQuery = z.output<typeof listAttachmentsQuery>;

const userRepresentation = z.object({ userId: z.string(), email: z.string() });

export const directoryAccountRepresentation = z.object({
  accountId: z.string(),
  name: z.string(),
  users: z.array(userRepresentation),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const attachmentRepresentation = z.object({
  accountId: z.string(),
  accountName: z.string(),
  users: z.array(userRepresentation),
  operationStatus: z.enum(OPERATION_ACCOUNT_STATUSES),
  attachedAt: z.string(),
  attachedBy: z.string(),
});

export const putDirectoryResponse = z.object({ created: z.number().int(), updated: z.number().int() });
export const attachResponse = z.object({
  attached: z.number().int(),
  alreadyAttached: z.number().int(),
  accountCount: z.number().int(),
});
export const detachResponse = z.object({
  detached: z.number().int(),
  notAttached: z.array(z.string()),
  accountCount: z.number().int(),
});
