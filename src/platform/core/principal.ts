import type { ShardName } from "./shards";

export type Role = "OPERATOR" | "ACCOUNT";

export interface Principal {
  tenantId: string;
  role: Role;
  /** Set for ACCOUNT keys: the customer user the key acts for. */
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

/** The actor recorded on events and attachments. */
export function actorOf(principal: Principal): string {
  return principal.role === "ACCOUNT" ? `user:${principal.userId}` : `key:${principal.keyId}`;
}
