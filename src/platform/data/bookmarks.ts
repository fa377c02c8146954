import { ApiError } from "../core/errors";
import type { ShardName } from "../core/shards";

/** Where a D1 session starts: a bookmark (it sees every write up to it), or a constraint. */
export type SessionStart = string | "first-primary" | "first-unconstrained";

/** What a D1 bookmark looks like: dash-separated hex fields. */
const BOOKMARK = /^[0-9a-f]{1,64}(-[0-9a-f]{1,64}){1,7}$/i;

/**
 * x-d1-bookmark names its shard ("SHARD_2:0000000b-…"): a bookmark is a point in one database's
 * history, and means nothing to another (after a tenant moves, the client's last one is the old shard's).
 */
export function bookmarkHeader(shard: ShardName, bookmark: string): string {
  return `${shard}:${bookmark}`;
}

function invalidBookmark(): ApiError {
  return new ApiError("validation_failed", "x-d1-bookmark must be the x-d1-bookmark header of a previous answer.", {
    errors: [{ field: "header.x-d1-bookmark", code: "invalid_string", message: "not a bookmark of this API" }],
  });
}

/**
 * The session start of a request of a tenant on `shard` with this x-d1-bookmark header: its
 * bookmark when it is this shard's; the primary when it is another shard of this deployment's
 * (`shards`: the tenant moved since, and the primary has every write); anywhere when there is none.
 * A bare bookmark is taken as the shard's. A bookmark naming any other database (the control
 * database, a shard this deployment does not have) was never an answer of this API: 400.
 */
export function sessionStart(header: string | undefined, shard: ShardName, shards: readonly ShardName[]): SessionStart {
  if (header === undefined || header === "") return "first-unconstrained";
  const separator = header.indexOf(":");
  const named = separator < 0 ? shard : header.slice(0, separator);
  const bookmark = header.slice(separator + 1);
  if (!shards.includes(named as ShardName) || !BOOKMARK.test(bookmark)) throw invalidBookmark();
  return named === shard ? bookmark : "first-primary";
}

/** Whether a session start is a bookmark (a point the answer must not go back before). */
export function isBookmark(start: SessionStart): boolean {
  return start !== "first-primary" && start !== "first-unconstrained";
}
