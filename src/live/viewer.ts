import { and, eq } from "drizzle-orm";
import { accountUsers } from "../directory/tables";
import type { LiveViewer } from "../operations/coordinator/protocol";
import type { Principal } from "../platform/core/principal";
import type { Db } from "../platform/data/database";
import { apiKeys } from "../platform/data/tables";

/** The most accounts an ACCOUNT key's live connection hears orders of. */
const MAX_ACCOUNTS = 200;

/**
 * Who a live connection will be, read when its ticket is issued: the key's name for others to see
 * (never a fragment of it), and for an ACCOUNT key the accounts whose orders it may hear of.
 */
export async function liveViewerOf(control: Db, shard: Db, principal: Principal, operationId: string): Promise<LiveViewer> {
  const [[key], accounts] = await Promise.all([
    control.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.id, principal.keyId)).limit(1),
    principal.role === "ACCOUNT"
      ? shard
          .select({ accountId: accountUsers.accountId })
          .from(accountUsers)
          .where(and(eq(accountUsers.tenantId, principal.tenantId), eq(accountUsers.userId, principal.userId ?? "")))
          .limit(MAX_ACCOUNTS)
      : Promise.resolve([]),
  ]);
  return {
    tenantId: principal.tenantId,
    operationId,
    shard: principal.shard,
    keyId: principal.keyId,
    role: principal.role,
    userId: principal.userId,
    name: key?.name ?? principal.userId ?? (principal.role === "OPERATOR" ? "An operator" : "A buyer"),
    accountIds: accounts.map((account) => account.accountId),
  };
}
