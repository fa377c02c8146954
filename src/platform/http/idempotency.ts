import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppBindings } from "./context";
import type { Env } from "../core/env";
import { sha256Hex } from "../core/crypto";
import { primaryDb, type Db } from "../data/database";
import { shardNames } from "../core/shards";
import { afterCommit } from "../core/after-commit";
import { ApiError } from "../core/errors";
import { idempotencyKeys } from "../data/tables";
import { isTenantMovingFailure, notFenced, readPlacement } from "../data/tenancy";
import { nowIso } from "../core/time";
import { idPrefixes, isWellFormedId } from "../core/ids";

export const IDEMPOTENCY_RETENTION_MS = 48 * 60 * 60 * 1000;
const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const REPLAYED_HEADERS = ["content-type", "location", "etag", "warning", "cache-control"];

/** A claim this old is taken over: the request that made it died before it could answer. */
export const IDEMPOTENCY_CLAIM_TIMEOUT_MS = 60_000;

/**
 * Members of a route's JSON answer that are secrets shown once (an issued key, a signing secret).
 * The stored answer never holds them: a replay answers without them, with a Warning saying so.
 */
export interface ShownOnce {
  /** Top-level members of the answer's JSON object. */
  fields: readonly string[];
  /** The Warning's text, given the answer without its secrets: what was withheld, and what to do if the first answer was lost. */
  warning: (answer: Record<string, unknown>) => string;
}

/**
 * The answer as it may be kept for 48 h: without the secrets `shownOnce` names, and with the
 * Warning a replay carries when it withheld one. Any other answer is kept as it is.
 */
function storableAnswer(
  body: string | null,
  headers: Record<string, string>,
  shownOnce: ShownOnce | undefined,
): { body: string | null; headers: Record<string, string> } {
  if (!shownOnce || body === null || !headers["content-type"]?.includes("json")) return { body, headers };
  const answer: unknown = JSON.parse(body);
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return { body, headers };
  const withheld = shownOnce.fields.filter((field) => field in answer);
  if (!withheld.length) return { body, headers };
  const kept = Object.fromEntries(Object.entries(answer).filter(([field]) => !withheld.includes(field)));
  return { body: JSON.stringify(kept), headers: { ...headers, warning: `299 - "${shownOnce.warning(kept)}"` } };
}

/**
 * Idempotency-Key (documented on every route that takes it): the first request with a key runs and
 * its answer is stored; a replay by the same caller (tenant, role, user) with the same method, path
 * and body gets that answer; anything else with the key is 422. Keys are the caller's own: another
 * user of the tenant with the same key runs its own request. A route's secrets shown once
 * (`shownOnce`) are never stored, hence never replayed.
 */
export const idempotency = (shownOnce?: ShownOnce) =>
  createMiddleware<AppBindings>(async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (key === undefined || !UNSAFE_METHODS.has(c.req.method)) return next();
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new ApiError("validation_failed", "Idempotency-Key must be 1–255 visible ASCII characters.", {
        errors: [{ field: "header.Idempotency-Key", code: "invalid_string", message: "1–255 visible ASCII characters" }],
      });
    }
    const { tenantId, role, userId } = c.var.principal;
    const caller = `${role}:${userId ?? ""}`;
    const url = new URL(c.req.url);
    const fingerprint = await sha256Hex(`${c.req.method} ${url.pathname}${url.search}\n${await c.req.text()}`);
    const db = c.var.db;
    const now = nowIso();
    const expiredBefore = new Date(Date.now() - IDEMPOTENCY_RETENTION_MS).toISOString();
    const abandonedBefore = new Date(Date.now() - IDEMPOTENCY_CLAIM_TIMEOUT_MS).toISOString();

    const claimed = await db
      .insert(idempotencyKeys)
      .values({ tenantId, caller, idempotencyKey: key, fingerprint, state: "PENDING", createdAt: now, requestId: c.var.requestId })
      .onConflictDoUpdate({
        target: [idempotencyKeys.tenantId, idempotencyKeys.caller, idempotencyKeys.idempotencyKey],
        set: {
          fingerprint,
          state: "PENDING",
          responseStatus: null,
          responseHeaders: null,
          responseBody: null,
          createdAt: now,
          requestId: c.var.requestId,
          committedSet: null,
        },
        // Expired answers, and claims whose request died without answering and without writing, are taken over.
        setWhere: sql`${idempotencyKeys.createdAt} < ${expiredBefore}
        or (${idempotencyKeys.state} = 'PENDING' and ${idempotencyKeys.createdAt} < ${abandonedBefore} and ${idempotencyKeys.committedSet} is null)`,
      })
      .returning({ key: idempotencyKeys.idempotencyKey });

    const where = and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.caller, caller), eq(idempotencyKeys.idempotencyKey, key));
    if (!claimed.length) {
      const [stored] = await db.select().from(idempotencyKeys).where(where);
      if (!stored || stored.fingerprint !== fingerprint) {
        throw new ApiError("idempotency_key_reused", "This Idempotency-Key was used with a different request.");
      }
      if (stored.state === "PENDING" && stored.committedSet !== null && stored.createdAt < abandonedBefore) {
        // Its write committed, then the request was cut off before it stored its answer: it is not run again.
        throw answerLost(stored.committedSet);
      }
      if (stored.state === "PENDING") {
        throw new ApiError("idempotency_in_progress", "The first request with this Idempotency-Key has not finished.", undefined, {
          "retry-after": "1",
        });
      }
      return new Response(stored.responseBody, {
        status: stored.responseStatus ?? 200,
        headers: { ...stored.responseHeaders, "idempotent-replayed": "true", "x-request-id": c.var.requestId },
      });
    }

    // The claim's release or answer goes where the claim is now: a move may have taken it to another shard meanwhile.
    const onClaim = (write: (db: Db) => Promise<unknown>, fenced = false) => onTenantShard(c, write, fenced);
    // A claim whose write committed stays: the request is never run again.
    const release = (fenced: boolean) => onClaim((db) => db.delete(idempotencyKeys).where(and(where, isNull(idempotencyKeys.committedSet))), fenced);
    try {
      await next();
    } catch (error) {
      await release(isTenantMovingFailure(error) || (error instanceof ApiError && error.problem.code === "tenant_moving"));
      throw error;
    }
    const response = c.res;
    // What follows runs after the request's own write, if it made one: a failure to record is logged and the answer stands.
    if (response.status >= 500) {
      // Nothing was promised: let the client retry with the same key (a claim left behind is taken over after 60 s).
      // 503 is only ever a move's fence (tenant_moving).
      await afterCommit(c.var.requestId, "releasing the Idempotency-Key of a failed request (taken over after 60 s)", () => release(response.status === 503));
      return;
    }
    // Unrecorded, the claim stays PENDING: a replay answers 409 idempotency_in_progress; after 60 s, it runs
    // as a new request if its write did not commit, and answers 409 idempotency_answer_lost if it did.
    await afterCommit(c.var.requestId, "recording the answer of an Idempotency-Key (the claim is taken over after 60 s)", async () => {
      const answered: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) answered[name] = value;
      }
      const { body, headers } = storableAnswer(response.status === 204 ? null : await response.clone().text(), answered, shownOnce);
      await onClaim((db) =>
        db.update(idempotencyKeys).set({ state: "DONE", responseStatus: response.status, responseHeaders: headers, responseBody: body }).where(where),
      );
    });
  });

/** The 409 for a claim whose write committed (a change set, the cart or order it created, or the order.blocked event of a refusal) and whose answer was lost. */
function answerLost(committedId: string): ApiError {
  const carriedOut = "The request with this Idempotency-Key was carried out, but the server stopped before it could answer. It is not run again:";
  if (isWellFormedId(idPrefixes.cart, committedId)) {
    return new ApiError("idempotency_answer_lost", `${carriedOut} it created cart ${committedId} (GET /v1/carts/${committedId}).`, { cartId: committedId });
  }
  if (isWellFormedId(idPrefixes.order, committedId)) {
    return new ApiError("idempotency_answer_lost", `${carriedOut} it created order ${committedId} (GET /v1/orders/${committedId}).`, { orderId: committedId });
  }
  if (isWellFormedId(idPrefixes.event, committedId)) {
    return new ApiError(
      "idempotency_answer_lost",
      `${carriedOut} it refused the order below its minimum (422 quota_min_not_met) and recorded event ${committedId} (order.blocked, in GET /v1/events). Send the order again with a new Idempotency-Key to have it evaluated again.`,
      { eventId: committedId },
    );
  }
  return new ApiError(
    "idempotency_answer_lost",
    `${carriedOut} what it changed is in GET /v1/history, in the records whose ids begin with ${committedId} (its change set).`,
    { changeSetId: committedId },
  );
}

/** How long a claim's release or answer waits for a move's fence to lift: a fence lasts at most 2 s. */
export const CLAIM_FOLLOWS_MOVE_MS = 5_000;
const FOLLOW_POLL_MS = 200;

/**
 * Writes a request's claim on its tenant's shard. A claim made just before a move fenced the tenant
 * (its write then refused: 503 tenant_moving) is on the old shard, fenced, and about to be copied to
 * the new one with the move's last changes: the write waits for the fence to lift, then goes to the
 * shard the directory names (the new one, or the old one again if the cutover was called off). So a
 * client retrying with its Idempotency-Key gets exactly one effect, not a claim left PENDING for 60 s.
 */
async function onTenantShard(c: Context<AppBindings>, write: (db: Db) => Promise<unknown>, fenced: boolean): Promise<void> {
  // A request a fence refused goes by the directory from the start: the shard it ran on may be the old
  // copy, fenced LEFT, which takes deletes (a release there would leave the claim's copy PENDING).
  if (!fenced) {
    try {
      await write(c.var.db);
      return;
    } catch (error) {
      if (!isTenantMovingFailure(error)) throw error;
    }
  }
  const { tenantId } = c.var.principal;
  const deadline = Date.now() + CLAIM_FOLLOWS_MOVE_MS;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0 || !fenced) await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
    const placement = await readPlacement({ nearest: primaryDb(c.env, "CONTROL") }, tenantId);
    if (!placement) return;
    try {
      await write(primaryDb(c.env, placement.shard));
      return;
    } catch (error) {
      if (!isTenantMovingFailure(error) || Date.now() > deadline) throw error;
    }
  }
}

/**
 * Drops stored answers past their retention (run by the cron trigger). Expired keys are also
 * reclaimed when reused, so this only keeps the table from growing without bound.
 */
export async function purgeExpiredIdempotencyKeys(env: Env, now = Date.now()): Promise<number> {
  const expiredBefore = new Date(now - IDEMPOTENCY_RETENTION_MS).toISOString();
  const purged = await Promise.all(
    shardNames(env).map(async (shard) => {
      // A fenced tenant's rows here are a move's: the old copy it keeps (to go back to, equal to the new one) or the copy it is making.
      const db = primaryDb(env, shard);
      const result = await db.delete(idempotencyKeys).where(and(lt(idempotencyKeys.createdAt, expiredBefore), notFenced(db, idempotencyKeys.tenantId)));
      return result.meta.changes ?? 0;
    }),
  );
  return purged.reduce((sum, count) => sum + count, 0);
}
