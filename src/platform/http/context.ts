import type { Context, Hono } from "hono";
import { openDb, type Db } from "../data/database";
import type { Env } from "../core/env";
import type { ListContext } from "../data/pagination";
import type { Principal, RequestScope } from "../core/principal";
import { authorOf, type ChangeAuthor, type Writer } from "../data/changes";
import type { TenantPlacement } from "../data/tenancy";
import { newTrace, type RequestTrace } from "../data/trace";
import type { BackgroundRead } from "../core/refreshing-cache";

/** What a request carries beside its input, set once by the app's middleware. */
export interface AppVariables {
  requestId: string;
  /** What the request did so far (its log line and x-d1-bookmark are made from it). */
  trace: RequestTrace;
  /** The control database (keys, the tenant directory), as this request sees it. */
  control: Db;
  /** The request's tenant shard, set once the key is known: every read and write of tenant data. */
  db: Db;
  principal: Principal;
  /** Where the principal's tenant lives, and whether it is being moved. */
  placement: TenantPlacement;
  scope: RequestScope;
  /** svc-change-reason, checked, on a route that writes (its change records keep it as their reason). */
  changeReason?: string | null;
}

export interface AppBindings {
  Bindings: Env;
  Variables: AppVariables;
}

export type App = Hono<AppBindings>;

/**
 * The tenant's shard on its primary, for a write computed from what it reads (a bulk rule write):
 * its read must be the latest state, not a replica's.
 */
export function tenantPrimaryDb(c: Context<AppBindings>): Db {
  return openDb(c.env, c.var.principal.shard, "first-primary", c.var.trace);
}

/** Runs a read of the tenant's shard after the answer (waitUntil), on a handle of its own: a cache refresh. */
export function inShardBackground(c: Context<AppBindings>): BackgroundRead<Db> {
  return (read) => {
    c.executionCtx.waitUntil(read(openDb(c.env, c.var.principal.shard, "first-unconstrained", newTrace())));
  };
}

/** Who the request's change records name, and why: its key's actor, its id and svc-change-reason. */
export function changeAuthorOf(c: Context<AppBindings>): ChangeAuthor {
  return authorOf(c.var.principal, { requestId: c.var.requestId, reason: c.var.changeReason ?? null });
}

/** The request as a writer of its tenant's data: on `db` (its session by default), its change records naming its author. */
export function writerOf(c: Context<AppBindings>, db: Db = c.var.db): Writer {
  return { db, principal: c.var.principal, author: changeAuthorOf(c) };
}

/** What a list reads with, from the request: its database, the token secret and the caller. */
export function listContextOf(c: Context<AppBindings>): ListContext {
  return { db: c.var.db, archive: c.env.HISTORY_ARCHIVE, secret: c.env.PAGINATION_SECRET, principal: c.var.principal };
}
