import { day } from "../shared/format";
import { t } from "../shared/i18n";

/**
 * Who and whose, as people know them (pure: the pages read the keys and the directory, this names
 * them). An actor is `key:<keyId>`, `user:<userId>`, `schedule` or `cli`; a key is named by its name,
 * else by its user; a user by the name of one of their keys, else their email in the directory, else
 * their id; an account by its name and id ("Maison Dupont, A-100"). Never a key's first characters.
 */

/** What naming needs of a key (the API's Key). */
export interface KnownKey {
  id: string;
  name: string | null;
  userId: string | null;
  role: string;
  createdAt: string;
}

/** What the page has read so far: the tenant's keys by id (undefined while unread), the users' emails. */
export interface People {
  keys?: ReadonlyMap<string, KnownKey>;
  emails?: ReadonlyMap<string, string>;
}

/** An actor's kind and id: `key:key_1` is ["key", "key_1"], `schedule` is ["schedule", ""]. */
export function parseActor(actor: string): { kind: string; id: string } {
  const colon = actor.indexOf(":");
  return colon < 0 ? { kind: actor, id: "" } : { kind: actor.slice(0, colon), id: actor.slice(colon + 1) };
}

/** A user's named key, the oldest if several: the name people gave the key they act with. */
function namedKeyOf(userId: string, people: People): KnownKey | undefined {
  let found: KnownKey | undefined;
  for (const key of people.keys?.values() ?? []) {
    if (key.userId === userId && key.name && (!found || key.createdAt < found.createdAt)) found = key;
  }
  return found;
}

/** A user: the name of a key of theirs, else their email, else their id. */
export function userName(userId: string, people: People): string {
  return namedKeyOf(userId, people)?.name ?? people.emails?.get(userId) ?? userId;
}

/** Whether naming `userId` needs their email (no key of theirs has a name), once the keys are read. */
export const needsEmail = (userId: string, people: People) => people.keys !== undefined && !namedKeyOf(userId, people);

/** A key: its name, else its user, else "an unnamed OPERATOR key of 2026-11-20". */
export function keyName(key: KnownKey, people: People): string {
  if (key.name) return key.name;
  if (key.userId) return userName(key.userId, people);
  return t("common.unnamedKey", { role: key.role, day: day(key.createdAt) });
}

/** The user an actor names, if any (for the email to read): `user:X`, or the user of the key it names. */
export function userOfActor(actor: string, people: People, actorKeyId?: string): string | undefined {
  const { kind, id } = parseActor(actor);
  const keyId = actorKeyId ?? (kind === "key" ? id : undefined);
  const key = keyId ? people.keys?.get(keyId) : undefined;
  if (key && !key.name) return key.userId ?? undefined;
  return kind === "user" ? id : undefined;
}

/**
 * Who made a change, a decision or an event, in words: the key's name (the record's own key when it
 * says it, `actorKeyId`), the user, "the schedule", "the command line"; "…" while the keys are unread.
 */
export function actorName(actor: string, people: People, actorKeyId?: string): string {
  const { kind, id } = parseActor(actor);
  const keyId = actorKeyId ?? (kind === "key" ? id : undefined);
  if (keyId) {
    const key = people.keys?.get(keyId);
    if (key) return keyName(key, people);
  }
  if (kind === "user") return userName(id, people);
  if (kind === "key") return people.keys ? t("common.keyGone") : "…";
  if (kind === "schedule") return t("common.theSchedule");
  if (kind === "cli") return t("common.theCommandLine");
  return actor;
}

/** An account as people know it: "Maison Dupont, A-100" (its id alone until its name is read, or when the directory has none). */
export function accountName(accountId: string, names: ReadonlyMap<string, string | null> | undefined): string {
  const name = names?.get(accountId);
  return name ? `${name}, ${accountId}` : accountId;
}
