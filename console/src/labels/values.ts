import { formatValue, isEmptyValue, type FieldChange } from "../shared/format";
import { accountName, actorName, parseActor, userName, type People } from "./people";

/**
 * A recorded field's value as people read it, by what the field holds: an amount in the tenant's
 * currency, users and approvers by their names, an account by its name, dates in the console's one
 * style, nothing as "—" (formatValue does the rest).
 */

/** What naming values needs: how to write an amount, and the people and accounts read so far. */
export interface ValueNames {
  money: (amount: number) => string;
  people: People;
  accounts?: ReadonlyMap<string, string | null>;
}

const AMOUNTS = new Set(["minimum"]);
const USERS = new Set(["ownerIds", "userId"]);
const ACTORS = new Set(["approver"]);
const ACCOUNTS = new Set(["accountId", "accountIds"]);

export function fieldValueText(field: string, value: unknown, names: ValueNames): string {
  if (isEmptyValue(value)) return formatValue(value);
  if (AMOUNTS.has(field) && typeof value === "number") return names.money(value);
  const each = (write: (text: string) => string) =>
    (Array.isArray(value) ? value : [value]).map((item) => (typeof item === "string" ? write(item) : formatValue(item))).join(", ");
  if (USERS.has(field)) return each((userId) => userName(userId, names.people));
  if (ACTORS.has(field)) return each((actor) => actorName(actor, names.people));
  if (ACCOUNTS.has(field)) return each((accountId) => accountName(accountId, names.accounts));
  return formatValue(value);
}

const valuesOf = (changes: readonly FieldChange[], fields: ReadonlySet<string>) =>
  changes.flatMap((change) => (fields.has(change.field) ? [change.previous, change.next] : [])).flatMap((value) => (Array.isArray(value) ? value : [value]));

/** The users some changes name (owners, a key's user, an approver acting as a user): whose emails naming them may need. */
export const usersNamedIn = (changes: readonly FieldChange[]) => [
  ...valuesOf(changes, USERS).filter((value): value is string => typeof value === "string"),
  ...valuesOf(changes, ACTORS).flatMap((value) => (typeof value === "string" && parseActor(value).kind === "user" ? [parseActor(value).id] : [])),
];

/** The accounts some changes name. */
export const accountsNamedIn = (changes: readonly FieldChange[]) => valuesOf(changes, ACCOUNTS).filter((value): value is string => typeof value === "string");
