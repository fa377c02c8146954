import type { ShardName } from "./shards";

export type Role = "OPERATOR" | "ACCOUNT";

export interface Principal {
  tenantId: string;
  role: Role;
  /** The user the key acts for: always set for ACCOUNT keys (a customer user), set for OPERATOR keys issued with one. */
  userId: string | null;
  keyId: string;
  tenantDefaultLocale: string;
  /** The shard database holding the tenant's rows (from the tenant directory). */
  shard: ShardName;
}

export interface RequestScope {
  locale: string | null;
  storeId: string | null;
  storeView: string | null;
}

/**
 * Who the principal is, as events, change records and approvals name it: its key's user when the key
 * has one (every ACCOUNT key; an OPERATOR key issued with a user), else its key. So one person's
 * keys are one actor, and the author of a version is never taken for another approver.
 */
export function actorOf(principal: Principal): string {
  return principal.userId !== null ? `user:${principal.userId}` : `key:${principal.keyId}`;
}
