import { and, eq } from "drizzle-orm";
import { actorOf, type Principal } from "../platform/principal";
import { inJsonChunks, insertFromJson, jsonChunks, jsonField, type Db, type Statement } from "../platform/db";
import { appendEvent, commitBatch } from "../platform/events";
import { accounts, accountUsers } from "../platform/tables";
import { nowIso } from "../platform/time";
import { findDirectoryIds } from "./queries";
import type { DirectoryAccountInput } from "./schemas";

/**
 * Upserts directory accounts and replaces their users (account_users rows deleted and re-inserted)
 * in one batch; every statement carries its rows as one JSON parameter per chunk.
 */
export async function upsertDirectory(db: Db, principal: Principal, input: DirectoryAccountInput[], options: { dryRun: boolean }) {
  const tenantId = principal.tenantId;
  const accountIds = input.map((account) => account.accountId);
  const existing = await findDirectoryIds(db, tenantId, accountIds);
  const now = nowIso();
  const accountTuples = input.map((account) => [
    account.accountId,
    account.name,
    account.name.toLowerCase(),
    JSON.stringify(account.users.map((user) => ({ userId: user.userId, email: user.email }))),
  ]);
  const userTuples = input.flatMap((account) =>
    account.users.map((user) => [account.accountId, user.userId, user.email.toLowerCase()]),
  );
  const updated = accountIds.filter((id) => existing.has(id)).length;
  const created = accountIds.length - updated;
  const statements: Statement[] = [
    ...jsonChunks(accountTuples).map((chunk) =>
      insertFromJson(
        accounts,
        chunk,
        [
          [accounts.tenantId, tenantId],
          [accounts.accountId, jsonField(0)],
          [accounts.name, jsonField(1)],
          [accounts.nameSearch, jsonField(2)],
          [accounts.users, jsonField(3)],
          [accounts.createdAt, now],
          [accounts.updatedAt, now],
        ],
        { target: [accounts.tenantId, accounts.accountId], update: [accounts.name, accounts.nameSearch, accounts.users, accounts.updatedAt] },
      ),
    ),
    ...inJsonChunks(accountUsers.accountId, accountIds).map((accountIsIn) =>
      db.delete(accountUsers).where(and(eq(accountUsers.tenantId, tenantId), accountIsIn)),
    ),
    ...(userTuples.length ? jsonChunks(userTuples) : []).map((chunk) =>
      insertFromJson(accountUsers, chunk, [
        [accountUsers.tenantId, tenantId],
        [accountUsers.accountId, jsonField(0)],
        [accountUsers.userId, jsonField(1)],
        [accountUsers.emailLower, jsonField(2)],
      ]),
    ),
    appendEvent(db, {
      tenantId,
      type: "directory.upserted",
      actor: actorOf(principal),
      data: { created, updated, users: userTuples.length },
    }),
  ];
  if (!options.dryRun) await commitBatch(db, statements);
  return { created, updated };
}
