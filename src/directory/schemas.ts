import * as z from "zod";
import { atMostCharacters, boundedText, externalKey, identifierText, keyedBatch, listEnvelope } from "../platform/schema/fields";
import { commaList, pageQueryShape } from "../platform/schema/list-query";
import type { ListDefinition } from "../platform/data/pagination";
import { accounts } from "./tables";
import { deprecatedAlias } from "../platform/http/deprecation";

/** Accounts per directory PUT, and users per account. */
export const MAX_DIRECTORY_ACCOUNTS_PER_CALL = 5000;
export const MAX_USERS_PER_ACCOUNT = 200;

export const directoryList: ListDefinition = {
  name: "accounts",
  sortable: { accountId: accounts.accountId, name: accounts.nameSearch },
  id: accounts.accountId,
  defaultSort: "accountId",
  maxLimit: 1000,
};

const emailAddress = z
  .string()
  .trim()
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/, "must be an email address");

const accountUser = z.strictObject({ userId: externalKey, email: emailAddress });
export type AccountUser = z.output<typeof accountUser>;

const directoryAccountInput = z.strictObject({
  accountId: externalKey,
  name: z.string().trim().min(1).superRefine(atMostCharacters(500)).meta({ maxLength: 500 }),
  users: keyedBatch(accountUser, { field: "userId", keyOf: (user) => user.userId, min: 0, max: MAX_USERS_PER_ACCOUNT, what: "user" })
    .default([])
    .describe("Replaces the account's users; omitted means none."),
});
export type DirectoryAccountInput = z.output<typeof directoryAccountInput>;

export const putDirectoryBody = keyedBatch(directoryAccountInput, {
  field: "accountId",
  keyOf: (account) => account.accountId,
  max: MAX_DIRECTORY_ACCOUNTS_PER_CALL,
  what: "account",
})
  .describe(
    `Up to ${MAX_DIRECTORY_ACCOUNTS_PER_CALL} accounts, upserted by accountId. An accountId may appear once per call, a userId once per account (a repeat is 400 validation_failed, code duplicate_key).`,
  )
  .meta({
    id: "AccountsUpsert",
    examples: [
      [
        { accountId: "acc-2001", name: "Maison Dubois", users: [{ userId: "u-3001", email: "claire@dubois.example" }] },
        { accountId: "acc-2002", name: "Nordic Living" },
      ],
    ],
  });

const text = (description: string) => boundedText(200).optional().describe(description);

/** A case-insensitive substring filter on account names. */
export const accountName = text("Case-insensitive substring of the account name.");

/** The filters of every account list (the directory's and an Operation's attachments): see accountFilters. */
export const accountFilterShape = {
  accountIds: commaList("Comma list of accountIds.", 2000),
  accountId: deprecatedAlias(commaList("Alias of accountIds.", 2000), { since: "2026-11-23", use: "accountIds" }),
  userId: identifierText(200).optional().describe("Accounts whose users include this userId."),
  email: text("Accounts with a user of this email (exact, ignoring case)."),
};
export type AccountFilters = { accountIds?: string[]; accountId?: string[]; userId?: string; email?: string };

export const listDirectoryQuery = z.strictObject({
  ...pageQueryShape(directoryList),
  ...accountFilterShape,
  name: accountName,
});
export type ListDirectoryQuery = z.output<typeof listDirectoryQuery>;

export const userRepresentation = z.object({ userId: z.string(), email: z.string() }).meta({ id: "AccountUser" });

export const directoryAccountRepresentation = z
  .object({
    accountId: z.string(),
    name: z.string(),
    users: z.array(userRepresentation),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({
    id: "Account",
    examples: [
      {
        accountId: "acc-2001",
        name: "Maison Dubois",
        users: [{ userId: "u-3001", email: "claire@dubois.example" }],
        createdAt: "2026-01-12T09:00:00Z",
        updatedAt: "2026-02-03T14:20:00Z",
      },
    ],
  });

export const accountPage = listEnvelope(directoryAccountRepresentation).meta({ id: "AccountPage" });

export const putDirectoryResponse = z
  .object({ created: z.number().int(), updated: z.number().int() })
  .meta({ id: "AccountsUpsertResult", examples: [{ created: 1, updated: 1 }] });
