import { useKeysById, type Key } from "../api/desk";
import { useOperation } from "../api/operations";
import { useRule } from "../api/rules";
import { useSession } from "../shared/context";
import { Link } from "../shared/ui";

/**
 * Resources as people know them, wherever the API answers an id: an Operation by its code, a rule by
 * its scope, a key by its name (or its first characters), an actor by its key's name or its user.
 */

/** A key as a person knows it: its name, else its first characters. */
export const keyLabel = (key: Pick<Key, "name" | "prefix" | "id">) => key.name ?? (key.prefix ? `${key.prefix}…` : key.id);

/**
 * The id of the key this tab is signed in with: the key whose prefix (its visible start, which tells
 * a tenant's keys apart) the signed-in key starts with; the longest such prefix if two would.
 */
export function useSignedInKeyId(): string | undefined {
  const { session } = useSession();
  const keys = useKeysById();
  let found: Key | undefined;
  for (const key of keys.data?.values() ?? []) {
    if (key.prefix && session.apiKey.startsWith(key.prefix) && key.prefix.length > (found?.prefix?.length ?? 0)) found = key;
  }
  return found?.id;
}

/** Who made a change or an event (`key:<id>`, `user:<id>`, `schedule`, `cli`), in words. */
export function ActorName({ actor }: { actor: string }) {
  const keys = useKeysById();
  const [kind, id] = actor.includes(":") ? [actor.slice(0, actor.indexOf(":")), actor.slice(actor.indexOf(":") + 1)] : [actor, ""];
  if (kind === "key") {
    const key = keys.data?.get(id);
    return <span title={id}>{key ? `${keyLabel(key)} (key)` : `key ${id}`}</span>;
  }
  if (kind === "user") return <span>user {id}</span>;
  if (kind === "schedule") return <span>the schedule</span>;
  if (kind === "cli") return <span>the command line</span>;
  return <span>{actor}</span>;
}

/**
 * A link to an Operation, named by its code (its id until the code is read, or when it was deleted).
 * `code` is the code already at hand (a list reads its rows' codes at once: useOperationCodes), null
 * when the Operation is gone; undefined reads it here.
 */
export function OperationName({ id, code }: { id: string; code?: string | null }) {
  const operation = useOperation(id, { enabled: code === undefined });
  if (code === null) return <span title="deleted">{id}</span>;
  return <Link to={`/console/operations/${id}`}>{code ?? operation.data?.code ?? id}</Link>;
}

/** A rule's scope in words: "account A-1 · supplier S-2 · every store". */
export function scopeLabel(rule: { accountId?: string | null; supplierId?: string | null; storeId?: string | null }) {
  return [
    rule.accountId ? `account ${rule.accountId}` : "any account",
    rule.supplierId ? `supplier ${rule.supplierId}` : "any supplier",
    rule.storeId ? `store ${rule.storeId}` : "every store",
  ].join(" · ");
}

/** A link to a rule, named by its scope; `known` is the scope already at hand (a deleted rule's record), read from the API otherwise. */
export function RuleName({ id, known }: { id: string; known?: Parameters<typeof scopeLabel>[0] }) {
  const rule = useRule(known ? null : id);
  const scope = known ?? rule.data;
  return <Link to={`/console/quota-rules/${id}`}>{scope ? scopeLabel(scope) : id}</Link>;
}
