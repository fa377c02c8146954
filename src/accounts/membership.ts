import { and, eq } from "drizzle-orm";
import { inJsonList, type Db } from "../platform/db";
import { accountUsers } from "../platform/schema";

/** Of `accountIds`, those whose directory users include `userId` (the ACCOUNT-key permission rule). */
export async function accountsOfUser(db: Db, tenantId: string, userId: string, accountIds: string[]): Promise<Set<string>> {
  if (!accountIds.length) return new Set();
  const rows = await db
    .select({ accountId: accountUsers.accountId })
    .from(accountUsers)
    .where(and(eq(accountUsers.tenantId, tenantId), eq(accountUsers.userId, userId), inJsonList(accountUsers.accountId, accountIds)));
  return new Set(rows.map((row) => row.accountId));
}
