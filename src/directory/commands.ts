import { and, eq } from "drizzle-orm";
import { changeOf, changeStatements, recordedFields, recordsOf, type Writer } from "../platform/data/changes";
import { inJsonChunks, insertFromJson, runBatch, type Statement } from "../platform/data/sql";
import { appendEvent } from "../platform/data/events";
import { accounts, accountUsers } from "./tables";
import { nowIso } from "../platform/core/time";
import { forgetMemberships } from "./membership-cache";
import { findDirectoryAccounts, type DirectoryFields } from "./queries";
import type { DirectoryAccountInput } from "./schemas";

/** A directory account's fields as history records them. */
const ACCOUNT_FIELDS = recordedFields<DirectoryFields>(["name", "users"]);
const directoryFieldsOf = (account: DirectoryAccountInput): DirectoryFields => ({
  name: account.name,
  users: account.users.map((user) => ({ userId: user.userId, email: user.email })),
});

/**
 * Upserts directory accounts and replaces their users (account_users rows deleted and re-inserted)
 * in one batch; every statement carries its rows as one JSON parameter per chunk.
 */
export async function upsertDirectory({ db, principal, author }: Writer, input: DirectoryAccountInput[], options: { dryRun: boolean }) {
  const tenantId = principal.tenantId;
  const accountIds = input.map((account) => account.accountId);
  const existing = await findDirectoryAccounts(db, tenantId, accountIds);
  const now = nowIso();
  const users = input.flatMap((account) => account.users.map((user) => ({ accountId: account.accountId, ...user })));
  const updated = accountIds.filter((id) => existing.has(id)).length;
  const created = accountIds.length - updated;
  const statements: Statement[] = [
    ...insertFromJson(
      accounts,
      input,
      [
        [accounts.tenantId, tenantId],
        [accounts.accountId, (account) => account.accountId],
        [accounts.name, (account) => account.name],
        [accounts.nameSearch, (account) => account.name.toLowerCase()],
        [accounts.users, (account) => account.users.map((user) => ({ userId: user.userId, email: user.email }))],
        [accounts.createdAt, now],
        [accounts.updatedAt, now],
      ],
      { target: [accounts.tenantId, accounts.accountId], update: [accounts.name, accounts.nameSearch, accounts.users, accounts.updatedAt] },
    ),
    ...inJsonChunks(accountUsers.accountId, accountIds).map((accountIsIn) =>
      db.delete(accountUsers).where(and(eq(accountUsers.tenantId, tenantId), accountIsIn)),
    ),
    ...insertFromJson(accountUsers, users, [
      [accountUsers.tenantId, tenantId],
      [accountUsers.accountId, (user) => user.accountId],
      [accountUsers.userId, (user) => user.userId],
      [accountUsers.emailLower, (user) => user.email.toLowerCase()],
    ]),
    appendEvent(db, {
      tenantId,
      type: "directory.upserted",
      actor: author.actor,
      data: { created, updated, users: users.length },
    }),
    ...changeStatements(db, {
      tenantId,
      author,
      records: recordsOf(
        input.map((account) => changeOf("account", account.accountId, existing.get(account.accountId) ?? null, directoryFieldsOf(account), ACCOUNT_FIELDS)),
      ),
    }),
  ];
  if (!options.dryRun) {
    await runBatch(db, statements);
    forgetMemberships(tenantId);
  }
  return { created, updated };
}
