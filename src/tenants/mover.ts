import { DurableObject } from "cloudflare:workers";
import type { Env } from "../platform/core/env";
import { logFailure, type Problem } from "../platform/core/errors";
import { newId } from "../platform/core/ids";
import { shardNames, type ShardName } from "../platform/core/shards";
import { nowIso } from "../platform/core/time";
import { d1 } from "../platform/data/database";
import { forgetPlacement, PLACEMENT_CACHE_TTL_MS } from "../platform/data/tenancy";
import {
  applyChanges,
  CHANGES_PER_READ,
  CHUNK_ROWS,
  chainDigest,
  changedKeys,
  compareChunk,
  compareKeys,
  copyRows,
  CopyDiffers,
  deleteTenantRows,
  fenceOf,
  pendingChanges,
  liftFence,
  MOVE_PLANS,
  nextScope,
  purgeChanges,
  readLog,
  readRows,
  setFence,
  startCapture,
  stopCapture,
  totalTenantRows,
  type Target,
} from "./move";

/**
 * Where a move stands. PREPARING → COPYING → CATCHING_UP ⇄ VERIFYING → SWITCHING → SWITCHED (the old
 * copy is kept: the move can be reversed, and is REVERSED once a move back starts) → DROPPING →
 * COMPLETED; before SWITCHED, an abort or a failure goes ABORTING → ABORTED or FAILED, with the tenant
 * whole on its old shard.
 */
export type MoveStatus =
  | "PREPARING"
  | "COPYING"
  | "CATCHING_UP"
  | "VERIFYING"
  | "SWITCHING"
  | "SWITCHED"
  | "DROPPING"
  | "COMPLETED"
  | "REVERSED"
  | "ABORTING"
  | "ABORTED"
  | "FAILED";

/** Statuses after which nothing more happens. */
const FINAL: ReadonlySet<MoveStatus> = new Set(["COMPLETED", "REVERSED", "ABORTED", "FAILED"]);
/** Statuses an abort may stop: the directory still names the old shard. */
const ABORTABLE: ReadonlySet<MoveStatus> = new Set(["PREPARING", "COPYING", "CATCHING_UP", "VERIFYING"]);

/**
 * How a move paces itself. Every figure is a bound the move keeps, whatever the tenant's size: the
 * fence's is the published one (writes refused ≤ 2 s); the others trade the copy's speed for the
 * latency of the requests served meanwhile, and are what the bench measures (docs/tenants-and-shards.md).
 */
export const MOVE_PACE = {
  /**
   * Work per alarm, then `pauseMs` before the next. Within a step every chunk (a few statements of
   * CHUNK_ROWS rows) is followed by a rest of `restPerWork` times its own duration, so a request waits
   * behind one short statement at most, never behind a step's statements back to back. At 100,000
   * lines: p99 while moving 0.99× / 1.36× before (reads / writes) against 3.2× / 3.7× with 1000-row
   * chunks and no rests, for a move 6× longer (114 s against 19 s): `npm run bench -- moves`,
   * docs/tenants-and-shards.md.
   */
  stepMs: 100,
  pauseMs: 50,
  restPerWork: 1.5,
  /**
   * The work of one chunk this long or longer halves the next chunk's rows (down to MIN_CHUNK_ROWS);
   * under half of it, they double back (up to CHUNK_ROWS): no request waits this long behind the move
   * however big the tenant's tables and however slow the database. A guard, not the pace: at 20 ms a
   * loaded local database shrank every check's chunk to the fewest rows, and the check took 8× longer
   * with a worse p99 (more statements, each as slow).
   */
  chunkMs: 60,
  /** A cutover that has not switched the directory this long after fencing lifts the fence and tries again later. */
  fenceBudgetMs: 1_500,
  /** Cutovers tried before the move gives up (and aborts). */
  fenceAttempts: 5,
  /** The fence is tried once fewer log entries than this wait to be applied, and as few to be checked. */
  cutoverBelow: 1_000,
  /** The catch-up must get there within this long after the copy (or the check, or a recheck round) ends, else the move fails and aborts. */
  convergeMs: 120_000,
  /**
   * Rounds of rechecking the rows changed meanwhile, after the check of every row, before the move
   * gives up: each round covers what changed during the one before, so under writes the check can
   * keep up with they shrink fast (at 1.5 M lines: ~150,000 entries, then a few thousand, then the fence).
   */
  recheckRounds: 10,
  /** A step that fails (a database unreachable) is tried again after 1, 2, 4… s, this many times, then the move fails. */
  stepAttempts: 6,
  /** The old copy is kept this long after the switch by default: the move can be reversed until then. */
  keepSourceMinutes: 60,
  /** Finished moves a tenant's object remembers (GET by id). */
  remembered: 10,
} as const;

/** No old copy is dropped before every Worker instance has read the new placement (reads of a stale one still find rows). */
const DRAIN_MS = PLACEMENT_CACHE_TTL_MS + 1_000;
/** D1 statements a step makes at most in its clean-ups (an invocation may make 1000). */
const STATEMENTS_PER_STEP = 100;

export interface TableReport {
  table: string;
  rows: number;
  sha256: string;
}

/** A move as the API shows it: plain data (it crosses the Durable Object's RPC boundary). */
export interface TenantMove {
  id: string;
  from: ShardName;
  to: ShardName;
  reverseOf: string | null;
  status: MoveStatus;
  error: string | null;
  startedAt: string;
  switchedAt: string | null;
  finishedAt: string | null;
  keepSourceUntil: string | null;
  progress: { rowsEstimated: number; rowsCopied: number; changesApplied: number; rowsVerified: number };
  fence: { attempts: number; longestMs: number | null; lastMs: number | null };
  tables: TableReport[];
}

interface Cursor {
  table: number;
  /** The scope being read (the tenant, or an Operation); null: the next one is still to find. */
  scope: string | null;
  /** The scope read before it in this table (null: none yet). */
  previousScope: string | null;
  after: unknown[] | null;
  targetAfter: unknown[] | null;
}
const firstCursor = (): Cursor => ({ table: 0, scope: null, previousScope: null, after: null, targetAfter: null });

/** A move as its object keeps it: what the API shows, and where each part of the work stands. */
interface MoveRecord extends TenantMove {
  tenantId: string;
  keepSourceMs: number;
  /** When the old copy may be dropped (epoch ms). */
  dropAt: number | null;
  /** The fence the target had before the move (a tenant that left it once keeps one there); null until read. */
  targetFence: { wasThere: boolean; since: string } | null;
  copy: Cursor;
  verify: Cursor | null;
  /** Every log entry up to this one is applied to the target. */
  appliedSeq: number;
  /** The check of every row (the pass) started when the log stood here; null when none is running. */
  passStartSeq: number | null;
  /** Every row the log names up to here is known equal on both sides; null before the pass ends (a reverse: 0). */
  verifiedSeq: number | null;
  /**
   * A recheck round is running: the rows the log names from verifiedSeq up to here (changed while the
   * last pass or round ran) are checked again, a slice a step. Null (or absent, in moves stored before
   * rounds) when none is.
   */
  recheckUpTo?: number | null;
  /** Recheck rounds run so far (MOVE_PACE.recheckRounds at most). */
  recheckRounds?: number;
  /** The catch-up must have let the fence in by then (epoch ms); pushed back by every step of a recheck round that gets on. */
  convergeBy: number | null;
  /** When the running cutover fenced the source (epoch ms). */
  fencedAt: number | null;
  /** Steps failed in a row. */
  failures: number;
  /** Rows the next chunk reads (MOVE_PACE.chunkMs); absent from moves stored before it was kept: CHUNK_ROWS. */
  chunkRows?: number;
  /** Log entries the next slice of a recheck reads, sized like the chunks (up to CHANGES_PER_READ); absent: CHUNK_ROWS. */
  recheckEntries?: number;
}

/** What the object answers the Worker: a move, or a problem the API answers as it is. */
export type MoveOutcome = { ok: true; move: TenantMove } | { ok: false; problem: Problem };

const CURRENT = "move";
/** What a path may name instead of a move's id: the tenant's latest move. */
export const LATEST_MOVE = "latest";
const REMEMBERED = "remembered";

/** A cutover that took longer than the fence allows: lifted, tried again later. */
class FenceTooLong extends Error {}
/** A move that cannot go on: it aborts, and its status says FAILED with this reason. */
class MoveFailed extends Error {}

function representation(move: MoveRecord): TenantMove {
  return {
    id: move.id,
    from: move.from,
    to: move.to,
    reverseOf: move.reverseOf,
    status: move.status,
    error: move.error,
    startedAt: move.startedAt,
    switchedAt: move.switchedAt,
    finishedAt: move.finishedAt,
    keepSourceUntil: move.dropAt !== null && (move.status === "SWITCHED" || move.status === "DROPPING") ? new Date(move.dropAt).toISOString() : null,
    progress: { ...move.progress },
    fence: { ...move.fence },
    tables: move.tables.map((table) => ({ ...table })),
  };
}

/** The move a start asks for. */
export interface MoveRequest {
  tenantId: string;
  to: ShardName;
  keepSourceMinutes?: number;
}

/**
 * One object per tenant (named by it) runs the tenant's move, inside the Worker that serves it: a
 * durable job driving itself with its alarm, one bounded step per ring, its place kept in the object's
 * storage after every step, so a restart of the Worker resumes it where it stood (or, in the middle of
 * a cutover, lifts the fence first). Every call and every step runs inside blockConcurrencyWhile: the
 * input gate opens while a step awaits D1, and an abort must never land between two of its statements.
 * The object keeps nothing in memory between calls.
 */
export class TenantMover extends DurableObject<Env> {
  async start(request: MoveRequest): Promise<MoveOutcome> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const current = await this.current();
      if (current && !FINAL.has(current.status)) return moveInProgress(current);
      if (!shardNames(this.env).includes(request.to)) {
        return refused("validation_failed", `${request.to} is not a shard of this deployment (${shardNames(this.env).join(", ")}).`, {
          errors: [{ field: "body.to", code: "unknown_shard", message: `not a shard of this deployment: ${shardNames(this.env).join(", ")}` }],
        });
      }
      const entry = await this.directoryEntry(request.tenantId);
      if (!entry) return refused("not_found", `Tenant ${request.tenantId} not found.`);
      if (entry.state === "MOVING") return refused("move_in_progress", `Tenant ${request.tenantId} is being moved by an earlier version of the move command.`);
      if (entry.shard === request.to) return refused("invalid_transition", `The tenant is on ${request.to} already.`);
      return this.begin(newMove(request.tenantId, entry.shard, request.to, (request.keepSourceMinutes ?? MOVE_PACE.keepSourceMinutes) * 60_000, null), current);
    });
  }

  /** Moves the tenant back to where a switched move took it from: only the writes made since are copied. */
  async reverse(moveId: string): Promise<MoveOutcome> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const current = await this.current();
      moveId = named(moveId, current);
      if (!current || current.id !== moveId) return (await this.find(moveId)) ? notReversible(moveId, "it is no longer the latest") : unknownMove(moveId);
      if (current.status !== "SWITCHED")
        return notReversible(
          moveId,
          `it is ${current.status}${current.status === "DROPPING" || current.status === "COMPLETED" ? " (its old copy is gone)" : ""}`,
        );
      const back = newMove(current.tenantId, current.to, current.from, current.keepSourceMs, current.id);
      // The old copy was equal to the new one at the switch, and every write since is in the new shard's log.
      back.targetFence = { wasThere: true, since: nowIso() };
      back.verifiedSeq = 0;
      current.status = "REVERSED";
      current.finishedAt = nowIso();
      return this.begin(back, current);
    });
  }

  async abort(moveId: string): Promise<MoveOutcome> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const current = await this.current();
      moveId = named(moveId, current);
      if (!current || current.id !== moveId)
        return (await this.find(moveId)) ? refused("invalid_transition", `Move ${moveId} has ended.`) : unknownMove(moveId);
      if (current.status === "ABORTING") return { ok: true, move: representation(current) };
      if (!ABORTABLE.has(current.status)) {
        const why =
          current.status === "SWITCHING"
            ? "it is switching the directory this very moment: ask again in a second"
            : current.status === "SWITCHED"
              ? "it has switched the directory: reverse it to go back"
              : `it is ${current.status}`;
        return refused("invalid_transition", `Move ${moveId} cannot be aborted: ${why}.`);
      }
      current.status = "ABORTING";
      await this.save(current);
      await this.ctx.storage.setAlarm(Date.now());
      return { ok: true, move: representation(current) };
    });
  }

  async get(moveId: string): Promise<TenantMove | null> {
    return this.ctx.blockConcurrencyWhile(async () => this.find(moveId));
  }

  /**
   * One step of the move, then the alarm for the next. Never throws (the runtime would retry it on
   * its own schedule, and a throw inside blockConcurrencyWhile resets the object): a failed step is
   * tried again with a growing wait, and after MOVE_PACE.stepAttempts the move fails and aborts.
   */
  async alarm(): Promise<void> {
    await this.ctx.blockConcurrencyWhile(async () => {
      const move = await this.current();
      if (!move || FINAL.has(move.status)) return;
      const next = await this.step(move);
      await this.save(move);
      if (next !== null) await this.ctx.storage.setAlarm(next);
    });
  }

  private async step(move: MoveRecord): Promise<number | null> {
    const deadline = Date.now() + MOVE_PACE.stepMs;
    try {
      const next = await new MoveStep(this.env, move, () => this.save(move)).run(deadline);
      move.failures = 0;
      return next;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof MoveFailed || error instanceof CopyDiffers) return this.fail(move, message);
      logFailure(move.id, `tenant move ${move.tenantId} (${move.status})`, error);
      move.failures++;
      if ((ABORTABLE.has(move.status) || move.status === "SWITCHING") && move.failures >= MOVE_PACE.stepAttempts) {
        return this.fail(move, `${move.status} failed ${move.failures} times; the last error: ${message}`);
      }
      // An abort, or anything after the switch, has nothing to fall back to: it is retried until it passes (at most a minute apart).
      return Date.now() + Math.min(1_000 * 2 ** (move.failures - 1), 60_000);
    }
  }

  /** The move cannot go on: it aborts (before the switch) and will end FAILED. */
  private fail(move: MoveRecord, reason: string): number {
    move.error = reason;
    if (ABORTABLE.has(move.status) || move.status === "SWITCHING" || move.status === "ABORTING") move.status = "ABORTING";
    move.failures = 0;
    return Date.now();
  }

  private async begin(move: MoveRecord, previous: MoveRecord | undefined): Promise<MoveOutcome> {
    if (previous) {
      const remembered = (await this.ctx.storage.get<TenantMove[]>(REMEMBERED)) ?? [];
      await this.ctx.storage.put(REMEMBERED, [representation(previous), ...remembered].slice(0, MOVE_PACE.remembered));
    }
    await this.save(move);
    await this.ctx.storage.setAlarm(Date.now());
    return { ok: true, move: representation(move) };
  }

  private async current(): Promise<MoveRecord | undefined> {
    return this.ctx.storage.get<MoveRecord>(CURRENT);
  }

  private async find(moveId: string): Promise<TenantMove | null> {
    const current = await this.current();
    moveId = named(moveId, current);
    if (current?.id === moveId) return representation(current);
    return ((await this.ctx.storage.get<TenantMove[]>(REMEMBERED)) ?? []).find((move) => move.id === moveId) ?? null;
  }

  private async save(move: MoveRecord): Promise<void> {
    await this.ctx.storage.put(CURRENT, move);
  }

  private async directoryEntry(tenantId: string) {
    return d1(this.env, "CONTROL")
      .prepare("select shard, state from tenant_directory where tenant_id = ?")
      .bind(tenantId)
      .first<{ shard: ShardName; state: "ACTIVE" | "MOVING" }>();
  }
}

function newMove(tenantId: string, from: ShardName, to: ShardName, keepSourceMs: number, reverseOf: string | null): MoveRecord {
  return {
    id: newId("mov"),
    tenantId,
    from,
    to,
    reverseOf,
    status: "PREPARING",
    error: null,
    startedAt: nowIso(),
    switchedAt: null,
    finishedAt: null,
    keepSourceUntil: null,
    keepSourceMs,
    dropAt: null,
    progress: { rowsEstimated: 0, rowsCopied: 0, changesApplied: 0, rowsVerified: 0 },
    fence: { attempts: 0, longestMs: null, lastMs: null },
    tables: [],
    targetFence: null,
    copy: firstCursor(),
    verify: null,
    appliedSeq: 0,
    passStartSeq: null,
    verifiedSeq: null,
    convergeBy: null,
    fencedAt: null,
    failures: 0,
  };
}

/** The id a path names: `latest` is the latest move's (none: an id no move has). */
function named(moveId: string, current: MoveRecord | undefined): string {
  return moveId === LATEST_MOVE ? (current?.id ?? "") : moveId;
}

function refused(code: Problem["code"], detail: string, extras?: Problem["extras"]): MoveOutcome {
  return { ok: false, problem: { code, detail, extras } };
}
const unknownMove = (moveId: string) => refused("not_found", `Move ${moveId} not found.`);
const notReversible = (moveId: string, why: string) => refused("invalid_transition", `Move ${moveId} cannot be reversed: ${why}.`);
function moveInProgress(current: MoveRecord): MoveOutcome {
  const detail =
    current.status === "SWITCHED" || current.status === "DROPPING"
      ? `Move ${current.id} keeps the tenant's old copy on ${current.from} until ${new Date(current.dropAt ?? Date.now()).toISOString()}: reverse it, or start another once it is dropped.`
      : `Move ${current.id} (to ${current.to}) is ${current.status}: abort it, or wait for it to end.`;
  return refused("move_in_progress", detail, { moveId: current.id, moveStatus: current.status });
}

/**
 * The databases' time back to the tenant after each chunk of the move's work: as long as the chunk
 * took, times MOVE_PACE.restPerWork. Resting between chunks, not only between steps, keeps a request
 * from queueing behind a whole step's statements one after another.
 */
const restAfter = async (began: number) => {
  const rest = Math.min((Date.now() - began) * MOVE_PACE.restPerWork, MOVE_PACE.stepMs);
  if (rest >= 1) await new Promise((resolve) => setTimeout(resolve, rest));
};

/** The fewest rows a chunk reads, however slow: a move must still get through a big tenant. */
export const MIN_CHUNK_ROWS = 25;

/** The rows of the chunk after one of `rows` rows whose work took `tookMs` (`most` at most). */
export function nextChunkRows(rows: number, tookMs: number, most = CHUNK_ROWS): number {
  if (tookMs >= MOVE_PACE.chunkMs) return Math.max(MIN_CHUNK_ROWS, Math.floor(rows / 2));
  if (tookMs < MOVE_PACE.chunkMs / 2) return Math.min(most, rows * 2);
  return rows;
}

/** Whether a step switched the directory (a function: a status a step changes is read again). */
const switched = (move: MoveRecord) => move.status === "SWITCHED";

/** One step of one move: the databases it works on, and what it does in the move's current status. */
class MoveStep {
  private readonly source: D1Database;
  private readonly target: D1Database;

  constructor(
    private readonly env: Env,
    private readonly move: MoveRecord,
    private readonly save: () => Promise<void>,
  ) {
    this.source = d1(env, move.from);
    this.target = d1(env, move.to);
  }

  /** Does the status's work until `deadline`; answers when the next step is due (null: none). */
  async run(deadline: number): Promise<number | null> {
    const move = this.move;
    const pace = () => Date.now() + MOVE_PACE.pauseMs;
    switch (move.status) {
      case "PREPARING":
        return (await this.prepare(deadline)) ? Date.now() : pace();
      case "COPYING":
        await this.copy(deadline);
        return pace();
      case "CATCHING_UP":
        await this.catchUp(deadline);
        return switched(move) ? move.dropAt : pace();
      case "VERIFYING":
        await this.verify(deadline);
        return pace();
      case "SWITCHING":
        // A step died in the middle of a cutover (a restart): finish the switch it made, or lift its fence.
        await this.recoverCutover();
        return switched(move) ? move.dropAt : pace();
      case "SWITCHED":
        if (Date.now() < (move.dropAt ?? 0)) return move.dropAt;
        move.status = "DROPPING";
        return Date.now();
      case "DROPPING":
        return (await this.drop()) ? null : pace();
      case "ABORTING":
        return (await this.cleanUpAbort()) ? null : pace();
      default:
        return null;
    }
  }

  private targetOf(): Target {
    const fence = this.move.targetFence;
    if (!fence) throw new Error("the target's fence was never read");
    return { database: this.target, tenantId: this.move.tenantId, fence: { state: "LEFT", since: fence.since } };
  }

  /**
   * Fences the target (LEFT: a write routed there by a stale placement is refused, the shard's sweeps
   * leave the tenant alone, and the move may delete), empties it of the tenant, starts recording the
   * tenant's writes on the source, and counts what is to copy. A reverse has all that already: the old
   * copy is the target, and the source has recorded every write since the switch.
   */
  private async prepare(deadline: number): Promise<boolean> {
    const move = this.move;
    const moving = await d1(this.env, "CONTROL")
      .prepare("update tenant_directory set moving_to = ? where tenant_id = ? and shard = ?")
      .bind(move.to, move.tenantId, move.from)
      .run();
    if (!moving.meta.changes) throw new MoveFailed(`the tenant directory no longer places the tenant on ${move.from}`);
    if (move.reverseOf) {
      move.status = "CATCHING_UP";
      move.convergeBy = Date.now() + MOVE_PACE.convergeMs;
      return true;
    }
    if (!move.targetFence) {
      const existing = await fenceOf(this.target, move.tenantId);
      move.targetFence = { wasThere: existing !== null, since: existing?.since ?? nowIso() };
      await this.save();
      await setFence(this.target, move.tenantId, "LEFT", move.targetFence.since);
    }
    while (Date.now() < deadline) {
      if (await deleteTenantRows(this.target, move.tenantId, STATEMENTS_PER_STEP)) continue;
      await startCapture(this.source, move.tenantId, nowIso());
      move.progress.rowsEstimated = await totalTenantRows(this.env, move.from, move.tenantId);
      move.status = "COPYING";
      return true;
    }
    return false;
  }

  /** Copies chunk after chunk, table by table, until the deadline; then catches up. */
  private async copy(deadline: number): Promise<void> {
    const move = this.move;
    const target = this.targetOf();
    while (Date.now() < deadline) {
      const scope = await this.scopeOf(move.copy);
      if (scope === null) {
        move.status = "CATCHING_UP";
        move.convergeBy = Date.now() + MOVE_PACE.convergeMs;
        return;
      }
      const plan = MOVE_PLANS[move.copy.table];
      const limit = move.chunkRows ?? CHUNK_ROWS;
      const began = Date.now();
      const work = performance.now();
      const rows = await readRows(this.source, plan, scope, { after: move.copy.after, limit });
      await copyRows(target, plan, rows);
      move.chunkRows = nextChunkRows(limit, performance.now() - work);
      move.progress.rowsCopied += rows.length;
      this.advance(move.copy, rows.length === limit ? (JSON.parse(rows[rows.length - 1].cursor) as unknown[]) : null);
      await restAfter(began);
    }
  }

  /** The scope a cursor reads, moving on to the next scope, then the next table, when one is done; null: every table is. */
  private async scopeOf(cursor: Cursor): Promise<string | null> {
    while (cursor.table < MOVE_PLANS.length) {
      cursor.scope ??= await nextScope(this.source, MOVE_PLANS[cursor.table], this.move.tenantId, cursor.previousScope);
      if (cursor.scope !== null) return cursor.scope;
      cursor.table++;
      cursor.previousScope = null;
    }
    return null;
  }

  /** After a chunk: the rows after `after` in the same scope, or (null: the scope is done) the next scope. */
  private advance(cursor: Cursor, after: unknown[] | null, targetAfter: unknown[] | null = null): void {
    if (!after) {
      cursor.previousScope = cursor.scope;
      cursor.scope = null;
    }
    cursor.after = after;
    cursor.targetAfter = after && targetAfter;
  }

  /** Applies the log to the target until it is caught up or the deadline passes. */
  private async applyLog(deadline: number): Promise<void> {
    const move = this.move;
    const target = this.targetOf();
    do {
      const began = Date.now();
      const applied = await applyChanges(this.source, target, move.appliedSeq, 2_000);
      if (!applied.entries) return;
      move.appliedSeq = applied.lastSeq;
      move.progress.changesApplied += applied.entries;
      await restAfter(began);
    } while (Date.now() < deadline);
  }

  /** Log entries kept until here may go (applied, and checked or covered by a check still to come): one short statement's worth a step. */
  private async purgeLog(): Promise<void> {
    const move = this.move;
    const checkedUpTo = move.passStartSeq ?? move.verifiedSeq ?? move.appliedSeq;
    await purgeChanges(this.source, move.tenantId, Math.min(move.appliedSeq, checkedUpTo));
  }

  /**
   * Applies the writes made since the copy read each row, until few are left; then checks every row
   * once (VERIFYING), then the rows changed since, and when few of those are left too, cuts over. Fails
   * when it does not get there within MOVE_PACE.convergeMs.
   */
  private async catchUp(deadline: number): Promise<void> {
    const move = this.move;
    if (move.convergeBy !== null && Date.now() > move.convergeBy) {
      throw new MoveFailed(
        `the catch-up did not converge within ${MOVE_PACE.convergeMs / 1000} s: the tenant's writes kept more than ${MOVE_PACE.cutoverBelow} changes waiting`,
      );
    }
    await this.applyLog(deadline);
    await this.purgeLog();
    const waiting = await pendingChanges(this.source, move.tenantId, move.appliedSeq, MOVE_PACE.cutoverBelow);
    if (waiting >= MOVE_PACE.cutoverBelow) return;
    if (move.verifiedSeq === null) {
      move.passStartSeq = move.appliedSeq;
      move.verify = firstCursor();
      move.tables = [];
      move.status = "VERIFYING";
      return;
    }
    if ((move.recheckUpTo ?? null) === null) {
      const unchecked = await pendingChanges(this.source, move.tenantId, move.verifiedSeq, MOVE_PACE.cutoverBelow, move.appliedSeq);
      if (unchecked < MOVE_PACE.cutoverBelow) return this.cutover();
      // Too many to check inside the fence: a round checks them now, a slice a step.
      move.recheckRounds = (move.recheckRounds ?? 0) + 1;
      if (move.recheckRounds > MOVE_PACE.recheckRounds) {
        throw new MoveFailed(`the tenant's writes outpaced the check: ${MOVE_PACE.recheckRounds} rounds of rechecking the rows they changed did not catch up`);
      }
      move.recheckUpTo = move.appliedSeq;
    }
    await this.recheck(deadline);
  }

  /**
   * A recheck round, until the deadline: the rows the log names after verifiedSeq (up to the round's
   * end), a slice of the log at a time with a rest after each, like the check's chunks; those changed
   * again since the last catch-up are left to a later round or to the fence. Checked all at once, the
   * ~150,000 entries of a 1.5 M-line check held the shard 1.7 s.
   */
  private async recheck(deadline: number): Promise<void> {
    const move = this.move;
    const upTo = move.recheckUpTo!;
    let from = move.verifiedSeq!;
    do {
      const began = Date.now();
      const work = performance.now();
      const limit = move.recheckEntries ?? CHUNK_ROWS;
      const slice = await readLog(this.source, move.tenantId, from, limit, upTo);
      for (const plan of MOVE_PLANS) {
        const keys = slice.byTable.get(plan.name);
        if (keys) await compareKeys(this.source, this.target, plan, [...keys], () => this.changedSinceApplied(plan.name));
      }
      // A slice of log entries costs less than a chunk of rows (many name the same row): sized by its time, up to a catch-up's read.
      move.recheckEntries = nextChunkRows(limit, performance.now() - work, CHANGES_PER_READ);
      from = slice.entries ? slice.lastSeq : upTo;
      move.verifiedSeq = from;
      await restAfter(began);
    } while (from < upTo && Date.now() < deadline);
    if (from >= upTo) move.recheckUpTo = null;
    // A round that gets on is no failure to converge (each is a bounded stretch of the log, and there
    // are MOVE_PACE.recheckRounds at most); one held up behind a catch-up that does not get below
    // cutoverBelow is, and fails the move when convergeBy passes.
    move.convergeBy = Date.now() + MOVE_PACE.convergeMs;
  }

  /** The rows of one table the log names after the last entry applied (a check leaves them to later). */
  private async changedSinceApplied(table: string): Promise<Set<string>> {
    return (await changedKeys(this.source, this.move.tenantId, this.move.appliedSeq)).get(table) ?? new Set();
  }

  /**
   * The check of every row while the tenant is served: chunk by chunk, each table's rows on both sides
   * compared in order (counts and values), but for rows changed since the last catch-up, which the fence
   * checks. Catching up goes on between chunks. Each table's rows are also digested (SHA-256) for the report.
   */
  private async verify(deadline: number): Promise<void> {
    const move = this.move;
    const cursor = move.verify ?? firstCursor();
    move.verify = cursor;
    await this.applyLog(Date.now() + MOVE_PACE.stepMs / 5);
    // At least one chunk a step, even when catching up took the whole step: under steady writes a
    // step that only catches up would leave the check crawling (200 rows a second at 1.5 M lines).
    do {
      const scope = await this.scopeOf(cursor);
      if (scope === null) {
        move.verifiedSeq = move.passStartSeq;
        move.passStartSeq = null;
        move.verify = null;
        move.status = "CATCHING_UP";
        move.convergeBy = Date.now() + MOVE_PACE.convergeMs;
        return;
      }
      const plan = MOVE_PLANS[cursor.table];
      const limit = move.chunkRows ?? CHUNK_ROWS;
      let began = Date.now();
      let work = performance.now();
      let longest = 0;
      // Between reading the source's rows and the target's, a rest too: a chunk's check is three statements.
      const chunk = await compareChunk(this.source, this.target, plan, scope, { after: cursor.after, targetAfter: cursor.targetAfter }, limit, async () => {
        longest = Math.max(longest, performance.now() - work);
        await restAfter(began);
        began = Date.now();
        work = performance.now();
        return this.changedSinceApplied(plan.name);
      });
      move.chunkRows = nextChunkRows(limit, Math.max(longest, performance.now() - work));
      let report = move.tables.find((table) => table.table === plan.name);
      if (!report) {
        report = { table: plan.name, rows: 0, sha256: "" };
        move.tables.push(report);
      }
      report.rows += chunk.compared.length;
      if (chunk.compared.length) report.sha256 = await chainDigest(report.sha256, chunk.compared);
      move.progress.rowsVerified += chunk.compared.length;
      this.advance(cursor, chunk.done ? null : chunk.cursor.after, chunk.cursor.targetAfter);
      await restAfter(began);
    } while (Date.now() < deadline);
  }

  /**
   * The cutover, in one step: fence the source (its writes answer 503 tenant_moving from now on),
   * apply the last entries, check every row changed since the last check, switch the directory, lift
   * the target's fence (starting its log, for a reverse), leave the source fenced LEFT. If the fence
   * would last longer than MOVE_PACE.fenceBudgetMs, it is lifted before the switch and the catch-up
   * goes on; the whole fence, switch included, is what `fence.lastMs` reports.
   */
  private async cutover(): Promise<void> {
    const move = this.move;
    const fencedAt = Date.now();
    move.fencedAt = fencedAt;
    move.status = "SWITCHING";
    move.fence.attempts++;
    await this.save();
    await setFence(this.source, move.tenantId, "MOVING", new Date(fencedAt).toISOString());
    const withinBudget = () => {
      if (Date.now() - fencedAt > MOVE_PACE.fenceBudgetMs) throw new FenceTooLong();
    };
    try {
      for (;;) {
        const applied = await applyChanges(this.source, this.targetOf(), move.appliedSeq, 2_000);
        if (!applied.entries) break;
        move.appliedSeq = applied.lastSeq;
        move.progress.changesApplied += applied.entries;
        withinBudget();
      }
      const unchecked = await changedKeys(this.source, move.tenantId, move.verifiedSeq ?? 0);
      await Promise.all(MOVE_PLANS.map((plan) => compareKeys(this.source, this.target, plan, [...(unchecked.get(plan.name) ?? [])])));
      withinBudget();
      const switched = await d1(this.env, "CONTROL")
        .prepare("update tenant_directory set shard = ?, state = 'ACTIVE', moving_to = null, moved_at = ? where tenant_id = ? and shard = ?")
        .bind(move.to, nowIso(), move.tenantId, move.from)
        .run();
      if (!switched.meta.changes) throw new MoveFailed(`the tenant directory no longer places the tenant on ${move.from}`);
    } catch (error) {
      await liftFence(this.source, move.tenantId);
      move.fence.lastMs = Date.now() - fencedAt;
      move.status = "CATCHING_UP";
      if (!(error instanceof FenceTooLong)) throw error;
      if (move.fence.attempts >= MOVE_PACE.fenceAttempts) {
        throw new MoveFailed(`${move.fence.attempts} cutovers could not finish within the fence's ${MOVE_PACE.fenceBudgetMs} ms`);
      }
      return;
    }
    await this.afterSwitch(fencedAt);
  }

  /** The directory names the target: it takes the tenant's writes (and logs them, so the move can be reversed); the source keeps its copy, fenced. */
  private async afterSwitch(fencedAt: number): Promise<void> {
    const move = this.move;
    await this.target.batch([
      this.target.prepare("delete from tenant_fences where tenant_id = ?").bind(move.tenantId),
      this.target.prepare("delete from move_changes where tenant_id = ?").bind(move.tenantId),
      this.target.prepare("insert into move_captures (tenant_id, since) values (?, ?) on conflict (tenant_id) do nothing").bind(move.tenantId, nowIso()),
    ]);
    const fenceMs = Date.now() - fencedAt;
    move.fence.lastMs = fenceMs;
    move.fence.longestMs = Math.max(move.fence.longestMs ?? 0, fenceMs);
    await this.source.batch([
      this.source.prepare("update tenant_fences set state = 'LEFT' where tenant_id = ?").bind(move.tenantId),
      this.source.prepare("delete from move_captures where tenant_id = ?").bind(move.tenantId),
    ]);
    // This isolate routes the tenant's next request to its new shard; others read it within their cache's lifetime.
    forgetPlacement(move.tenantId);
    move.status = "SWITCHED";
    move.switchedAt = nowIso();
    move.dropAt = Date.now() + Math.max(move.keepSourceMs, DRAIN_MS);
  }

  private async recoverCutover(): Promise<void> {
    const move = this.move;
    const entry = await d1(this.env, "CONTROL")
      .prepare("select shard from tenant_directory where tenant_id = ?")
      .bind(move.tenantId)
      .first<{ shard: string }>();
    if (entry?.shard === move.to) {
      await this.afterSwitch(move.fencedAt ?? Date.now());
      return;
    }
    await liftFence(this.source, move.tenantId);
    move.status = "CATCHING_UP";
    if (move.fence.attempts >= MOVE_PACE.fenceAttempts) throw new MoveFailed(`${move.fence.attempts} cutovers could not finish`);
  }

  /** Drops the old copy (the source keeps its LEFT fence: a write routed there by a stale placement is still refused), and both logs. */
  private async drop(): Promise<boolean> {
    const move = this.move;
    if (await deleteTenantRows(this.source, move.tenantId, STATEMENTS_PER_STEP)) return false;
    await stopCapture(this.source, move.tenantId);
    await stopCapture(this.target, move.tenantId);
    move.status = "COMPLETED";
    move.finishedAt = nowIso();
    return true;
  }

  /**
   * Undoes a move that did not switch: the source is writable again (a cutover's fence lifted), records
   * no more, and the directory names no destination; the copy is deleted from the target, whose fence
   * goes unless it had one before. The tenant is whole on its source throughout.
   */
  private async cleanUpAbort(): Promise<boolean> {
    const move = this.move;
    const fence = await fenceOf(this.source, move.tenantId);
    if (fence?.state === "MOVING") await liftFence(this.source, move.tenantId);
    await stopCapture(this.source, move.tenantId);
    await d1(this.env, "CONTROL")
      .prepare("update tenant_directory set moving_to = null where tenant_id = ? and shard = ?")
      .bind(move.tenantId, move.from)
      .run();
    if (move.targetFence) {
      if (await deleteTenantRows(this.target, move.tenantId, STATEMENTS_PER_STEP)) return false;
      if (!move.targetFence.wasThere) await liftFence(this.target, move.tenantId);
    }
    move.status = move.error ? "FAILED" : "ABORTED";
    move.finishedAt = nowIso();
    return true;
  }
}
