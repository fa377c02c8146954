import { useAccountNames, useUserEmails } from "../api/directory";
import { useKeysById, type Key } from "../api/keys";
import { useOperation } from "../api/operations";
import { useRule } from "../api/rules";
import { useSession } from "../shared/context";
import { Link, useDebounced } from "../shared/ui";
import { accountName, actorName, needsEmail, userOfActor, type People } from "./people";
import { t } from "../shared/i18n";

/**
 * Resources as people know them, wherever the API answers an id: an Operation by its code, a rule by
 * its scope, an account by its name, a key by its name, an actor or a user by a key's name or the
 * user's email (people.ts says how; these components read what it needs).
 */

/** A key as the Keys page lists it: its name, else its first characters (the one place they identify it). */
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

/**
 * What naming people needs, read for `userIds` (the users actors or values name): the tenant's keys,
 * and the emails of those users no key of theirs names.
 */
export function usePeople(userIds: readonly string[] = []): People {
  const keys = useKeysById();
  const known: People = { keys: keys.data };
  const emails = useUserEmails(userIds.filter((userId) => needsEmail(userId, known)));
  const found = new Map([...emails].flatMap(([userId, email]) => (email ? [[userId, email] as const] : [])));
  return { keys: keys.data, emails: found };
}

/** Who made a change, a decision or an event (`key:<id>`, `user:<id>`, `schedule`, `cli`; `actorKeyId` when the record names its key), in words. */
export function ActorName({ actor, actorKeyId }: { actor: string; actorKeyId?: string }) {
  const keys = useKeysById();
  const user = userOfActor(actor, { keys: keys.data }, actorKeyId);
  return <span>{actorName(actor, usePeople(user ? [user] : []), actorKeyId)}</span>;
}

/**
 * A link to an Operation, named by its code (its id until the code is read, or when it was deleted).
 * `code` is the code already at hand (a list reads its rows' codes at once: useOperationCodes), null
 * when the Operation is gone; undefined reads it here.
 */
export function OperationName({ id, code }: { id: string; code?: string | null }) {
  const operation = useOperation(id, { enabled: code === undefined });
  if (code === null) return <span title={t("changes.deleted")}>{id}</span>;
  return <Link to={`/console/operations/${id}`}>{code ?? operation.data?.code ?? id}</Link>;
}

/** An account by its name and id ("Maison Dupont, A-100"); `names` are the names a list read for its rows, read here otherwise. */
export function AccountName({ id, names }: { id: string; names?: ReadonlyMap<string, string | null> }) {
  const read = useAccountNames(names ? [] : [id]);
  return <>{accountName(id, names ?? read)}</>;
}

/** The directory's name of an account id being typed, read once the typing pauses: its name, null when the directory has none, undefined until known. */
export function useTypedAccountName(typed: string): string | null | undefined {
  const id = useDebounced(typed.trim(), 300);
  const names = useAccountNames(id ? [id] : []);
  return id && names ? (names.get(id) ?? null) : undefined;
}

/** A typed account id's hint: its name in the directory, or that the directory does not hold it. */
export const accountHint = (name: string | null | undefined) => (name === null ? t("common.notInDirectory") : name);

type Scope = { accountId?: string | null; supplierId?: string | null; storeId?: string | null };

/** A rule's scope in words: "account Maison Dupont, A-1 · supplier S-2 · every store" (the account by its name once `names` holds it). */
export function scopeLabel(rule: Scope, names?: ReadonlyMap<string, string | null>) {
  return [
    rule.accountId ? t("scope.account", { account: accountName(rule.accountId, names) }) : t("scope.anyAccount"),
    rule.supplierId ? t("scope.supplier", { supplier: rule.supplierId }) : t("scope.anySupplier"),
    rule.storeId ? t("scope.store", { store: rule.storeId }) : t("scope.everyStore"),
  ].join(" · ");
}

/** A rule's scope in words, its account's name read here. */
export function useScopeLabel(rule: Scope | undefined) {
  const names = useAccountNames(rule?.accountId ? [rule.accountId] : []);
  return rule ? scopeLabel(rule, names) : "";
}

/** A link to a rule, named by its scope; `known` is the scope already at hand (a deleted rule's record), read from the API otherwise. */
export function RuleName({ id, known }: { id: string; known?: Scope }) {
  const rule = useRule(known ? null : id);
  const scope = known ?? rule.data;
  const label = useScopeLabel(scope ?? undefined);
  return <Link to={`/console/quota-rules/${id}`}>{scope ? label : id}</Link>;
}
