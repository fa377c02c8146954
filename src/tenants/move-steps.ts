/*
 * A tenant move as a state machine: the record its object keeps (mover.ts), and one step of it, run
 * by each ring of the object's alarm. A step does its status's work for a bounded time and leaves the
 * record where it stands; the object saves it after every step, so any step may be the last before a
 * restart, and every step is safe to run again.
 */
import type { Env } from "../platform/core/env";
import type { ShardName } from "../platform/core/shards";
import { d1 } from "../platform/data/database";
import { forgetPlacement, PLACEMENT_CACHE_TTL_MS } from "../platform/data/tenancy";
import {
  applyChanges,
  CHANGES_PER_READ,
  CHUNK_ROWS,
  chainDigest,
  changedKeys,
  compareChunk,
  compareRowsOfKeys,
  copyRows,
  deleteTenantRows,
  fenceOf,
  liftFence,
  MOVE_PLANS,
  nextScope,
  pendingChanges,
  purgeChanges,
  readLog,
  readRows,
  setFence,
  startCapture,
  stopCapture,
  totalTenantRows,
  type Target,
} from "./move";
import { type CatchUp, type CatchUpSample, type CatchUpView, catchUpView, explainStall, newCatchUp, nextRound, pastBound, waiting } from "./move-catch-up";
import { MOVE_PACE, type MoveClocks, nextChunkRows, restAfter } from "./move-pace";

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

/** Statuses an abort may stop: the directory still names the old shard. */
export const ABORTABLE: ReadonlySet<MoveStatus> = new Set(["PREPARING", "COPYING", "CATCHING_UP", "VERIFYING"]);

/** No old copy is dropped before every Worker instance has read the new placement (reads of a stale one still find rows). */
const DRAIN_MS = PLACEMENT_CACHE_TTL_MS + 1_000;
/** D1 statements a step makes at most in its clean-ups (an invocation may make 1000). */
const STATEMENTS_PER_STEP = 100;
/** What waits in the log is counted up to this many entries (a count of all would read the whole backlog at each step). */
export const BACKLOG_COUNTED_UP_TO = 100_000;

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
  progress: { rowsEstimated: number; rowsCopied: number; changesApplied: number; changesChecked: number; rowsVerified: number };
  /** The running catch-up (or the last one): what waits, the rounds, the time against its bound. */
  catchUp: CatchUpView | null;
  fence: { attempts: number; longestMs: number | null; lastMs: number | null };
  tables: TableReport[];
}

export interface Cursor {
  table: number;
  /** The scope being read (the tenant, or an Operation); null: the next one is still to find. */
  scope: string | null;
  /** The scope read before it in this table (null: none yet). */
  previousScope: string | null;
  after: unknown[] | null;
  targetAfter: unknown[] | null;
}
export const firstCursor = (): Cursor => ({ table: 0, scope: null, previousScope: null, after: null, targetAfter: null });

/** A move as its object keeps it: what the API shows (but the catch-up's view), and where each part of the work stands. */
export interface MoveRecord extends Omit<TenantMove, "catchUp"> {
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
  /** The running catch-up (after the copy; again after the pass), or the last one; null before the copy ends and during the pass. */
  catchUp: CatchUp | null;
  /** When the running cutover fenced the source (epoch ms). */
  fencedAt: number | null;
  /** Steps failed in a row. */
  failures: number;
  /** Rows the next chunk reads (MOVE_PACE.chunkMs); absent from moves stored before it was kept: CHUNK_ROWS. */
  chunkRows?: number;
  /** Log entries the next slice of a recheck reads, sized like the chunks (up to CHANGES_PER_READ); absent: CHUNK_ROWS. */
  recheckEntries?: number;
}

export function newMove(
  id: string,
  request: { tenantId: string; from: ShardName; to: ShardName; keepSourceMs: number; reverseOf: string | null },
  now: number,
): MoveRecord {
  return {
    id,
    ...request,
    status: "PREPARING",
    error: null,
    startedAt: new Date(now).toISOString(),
    switchedAt: null,
    finishedAt: null,
    keepSourceUntil: null,
    dropAt: null,
    progress: { rowsEstimated: 0, rowsCopied: 0, changesApplied: 0, changesChecked: 0, rowsVerified: 0 },
    fence: { attempts: 0, longestMs: null, lastMs: null },
    tables: [],
    targetFence: null,
    copy: firstCursor(),
    verify: null,
    appliedSeq: 0,
    passStartSeq: null,
    verifiedSeq: null,
    catchUp: null,
    fencedAt: null,
    failures: 0,
  };
}

/** A record as stored by any version: the fields added since are filled in. */
export function upgraded(move: MoveRecord): MoveRecord {
  move.progress.changesChecked ??= 0;
  move.catchUp ??= null;
  return move;
}

export function representation(move: MoveRecord): TenantMove {
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
    catchUp: move.catchUp && catchUpView(move.catchUp),
    fence: { ...move.fence },
    tables: move.tables.map((table) => ({ ...table })),
  };
}

/** A cutover that took longer than the fence allows: lifted, tried again later. */
class FenceTooLong extends Error {}
/** A move that cannot go on: it aborts, and its status says FAILED with this reason. */
export class MoveFailed extends Error {}

/** Whether a step switched the directory (a function: a status a step changes is read again). */
const switched = (move: MoveRecord) => move.status === "SWITCHED";

/** One step of one move: the databases it works on, and what it does in the move's current status. */
export class MoveStep {
  private readonly source: D1Database;
  private readonly target: D1Database;

  constructor(
    private readonly env: Env,
    private readonly move: MoveRecord,
    private readonly save: () => Promise<void>,
    private readonly clocks: MoveClocks,
  ) {
    this.source = d1(env, move.from);
    this.target = d1(env, move.to);
  }

  /** Does the status's work until `deadline` (of the pace clock); answers when the next step is due (null: none). */
  async run(deadline: number): Promise<number | null> {
    const move = this.move;
    // Alarms ring by the runtime's clock, whatever the move's own clocks say.
    const afterPause = () => Date.now() + MOVE_PACE.pauseMs;
    switch (move.status) {
      case "PREPARING":
        return (await this.prepare(deadline)) ? Date.now() : afterPause();
      case "COPYING":
        await this.copy(deadline);
        return afterPause();
      case "CATCHING_UP":
        await this.catchUp(deadline);
        return switched(move) ? move.dropAt : afterPause();
      case "VERIFYING":
        await this.verify(deadline);
        return afterPause();
      case "SWITCHING":
        // A step died in the middle of a cutover (a restart): finish the switch it made, or lift its fence.
        await this.recoverCutover();
        return switched(move) ? move.dropAt : afterPause();
      case "SWITCHED":
        if (this.clocks.now() < (move.dropAt ?? 0)) return move.dropAt;
        move.status = "DROPPING";
        return Date.now();
      case "DROPPING":
        return (await this.drop()) ? null : afterPause();
      case "ABORTING":
        return (await this.cleanUpAbort()) ? null : afterPause();
      default:
        return null;
    }
  }

  private nowIso(): string {
    return new Date(this.clocks.now()).toISOString();
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
      await this.beginCatchUp();
      return true;
    }
    if (!move.targetFence) {
      const existing = await fenceOf(this.target, move.tenantId);
      move.targetFence = { wasThere: existing !== null, since: existing?.since ?? this.nowIso() };
      await this.save();
      await setFence(this.target, move.tenantId, "LEFT", move.targetFence.since);
    }
    while (this.clocks.pace() < deadline) {
      if (await deleteTenantRows(this.target, move.tenantId, STATEMENTS_PER_STEP)) continue;
      await startCapture(this.source, move.tenantId, this.nowIso());
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
    while (this.clocks.pace() < deadline) {
      const scope = await this.scopeOf(move.copy);
      if (scope === null) {
        move.status = "CATCHING_UP";
        await this.beginCatchUp();
        return;
      }
      const plan = MOVE_PLANS[move.copy.table];
      const limit = move.chunkRows ?? CHUNK_ROWS;
      const began = this.clocks.pace();
      const rows = await readRows(this.source, plan, scope, { after: move.copy.after, limit });
      await copyRows(target, plan, rows);
      move.chunkRows = nextChunkRows(limit, this.clocks.pace() - began, this.clocks.chunkMs);
      move.progress.rowsCopied += rows.length;
      this.advance(move.copy, rows.length === limit ? (JSON.parse(rows[rows.length - 1].cursor) as unknown[]) : null);
      await restAfter(this.clocks, began);
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

  /**
   * Applies the log to the target up to where it ends now: a batch at a time until one comes back short
   * of full (what is written meanwhile is the next step's), or the deadline passes. Answers the entries applied.
   * Applying on while the tenant writes, batch after tiny batch, would take the whole step and leave
   * the check of what it applied behind for good.
   */
  private async applyLog(deadline: number): Promise<number> {
    const move = this.move;
    const target = this.targetOf();
    let entries = 0;
    for (;;) {
      const began = this.clocks.pace();
      const applied = await applyChanges(this.source, target, move.appliedSeq, CHANGES_PER_READ);
      move.appliedSeq = applied.lastSeq;
      move.progress.changesApplied += applied.entries;
      entries += applied.entries;
      if (applied.entries) await restAfter(this.clocks, began);
      if (applied.entries < CHANGES_PER_READ || this.clocks.pace() >= deadline) return entries;
    }
  }

  /** Log entries kept until here may go (applied, and checked or covered by a check still to come): one short statement's worth a step. */
  private async purgeLog(): Promise<void> {
    const move = this.move;
    const checkedUpTo = move.passStartSeq ?? move.verifiedSeq ?? move.appliedSeq;
    await purgeChanges(this.source, move.tenantId, Math.min(move.appliedSeq, checkedUpTo));
  }

  /** The move's counters and what waits in the log, now. */
  private async sample(): Promise<CatchUpSample> {
    const move = this.move;
    const toApply = await pendingChanges(this.source, move.tenantId, move.appliedSeq, BACKLOG_COUNTED_UP_TO);
    const toCheck = move.verifiedSeq === null ? 0 : await pendingChanges(this.source, move.tenantId, move.verifiedSeq, BACKLOG_COUNTED_UP_TO, move.appliedSeq);
    return { at: this.clocks.now(), applied: move.progress.changesApplied, checked: move.progress.changesChecked, toApply, toCheck };
  }

  private async beginCatchUp(): Promise<void> {
    this.move.catchUp = newCatchUp(await this.sample());
  }

  /**
   * Applies the writes made since the copy read each row, until few are left; then checks every row
   * once (VERIFYING); then, in rounds, the rows changed meanwhile, each step applying what came and
   * checking at least as much, until the fence may come (move-catch-up.ts decides between rounds).
   * Fails when the fence has not come within MOVE_PACE.convergeMs of the catch-up's start.
   */
  private async catchUp(deadline: number): Promise<void> {
    const move = this.move;
    move.catchUp ??= newCatchUp(await this.sample());
    const catchUp = move.catchUp;
    const failure = pastBound(catchUp, this.clocks.now());
    if (failure) throw new MoveFailed(failure);
    const applied = await this.applyLog(deadline);
    await this.purgeLog();
    const sample = await this.sample();
    catchUp.last = sample;
    if (move.verifiedSeq === null) {
      if (waiting(sample) < this.clocks.cutoverBelow) this.beginPass();
      return;
    }
    if (catchUp.roundUpTo === null) {
      const next = nextRound(catchUp, this.clocks.cutoverBelow);
      if (next.next === "fence") return this.cutover();
      if (next.next === "fail") throw new MoveFailed(next.reason);
      catchUp.rounds++;
      catchUp.roundUpTo = move.appliedSeq;
      catchUp.roundBacklog = waiting(sample);
    }
    const checked = await this.recheck(deadline, applied);
    catchUp.last = { ...sample, checked: move.progress.changesChecked, toCheck: Math.max(0, sample.toCheck - checked) };
  }

  /** The check of every row begins (from where the log stands now). */
  private beginPass(): void {
    const move = this.move;
    move.passStartSeq = move.appliedSeq;
    move.verify = firstCursor();
    move.tables = [];
    move.catchUp = null;
    move.status = "VERIFYING";
  }

  /**
   * The running recheck round, until the deadline, and at least as far as `floor` entries (those the
   * step applied: the check never falls behind what is applied, however slow each statement is): the
   * rows the log names after verifiedSeq (up to the round's end), a slice of the log at a time with a
   * rest after each, like the check's chunks; those changed again since the last catch-up are left
   * to a later round or to the fence. Answers the entries checked.
   */
  private async recheck(deadline: number, floor: number): Promise<number> {
    const move = this.move;
    const catchUp = move.catchUp!;
    const upTo = catchUp.roundUpTo!;
    let checked = 0;
    let from = move.verifiedSeq!;
    do {
      const limit = Math.min(CHANGES_PER_READ, Math.max(move.recheckEntries ?? CHUNK_ROWS, floor - checked));
      let began = this.clocks.pace();
      let longest = 0;
      const slice = await readLog(this.source, move.tenantId, from, limit, upTo);
      await compareRowsOfKeys(this.source, this.target, slice.byTable, async () => {
        longest = this.clocks.pace() - began;
        await restAfter(this.clocks, began);
        began = this.clocks.pace();
        return changedKeys(this.source, move.tenantId, move.appliedSeq);
      });
      // A slice of log entries costs less than a chunk of rows (many name the same row): sized by its longest statement, up to a catch-up's read.
      move.recheckEntries = nextChunkRows(limit, Math.max(longest, this.clocks.pace() - began), this.clocks.chunkMs, CHANGES_PER_READ);
      from = slice.entries ? slice.lastSeq : upTo;
      move.verifiedSeq = from;
      move.progress.changesChecked += slice.entries;
      checked += slice.entries;
      await restAfter(this.clocks, began);
    } while (from < upTo && (checked < floor || this.clocks.pace() < deadline));
    if (from >= upTo) catchUp.roundUpTo = null;
    return checked;
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
    await this.applyLog(this.clocks.pace() + MOVE_PACE.stepMs / 5);
    // At least one chunk a step, even when catching up took the whole step: under steady writes a
    // step that only catches up would leave the check crawling (200 rows a second at 1.5 M lines).
    do {
      const scope = await this.scopeOf(cursor);
      if (scope === null) {
        move.verifiedSeq = move.passStartSeq;
        move.passStartSeq = null;
        move.verify = null;
        move.status = "CATCHING_UP";
        await this.beginCatchUp();
        return;
      }
      const plan = MOVE_PLANS[cursor.table];
      const limit = move.chunkRows ?? CHUNK_ROWS;
      let began = this.clocks.pace();
      let longest = 0;
      // Between reading the source's rows and the target's, a rest too: a chunk's check is three statements.
      const chunk = await compareChunk(this.source, this.target, plan, scope, { after: cursor.after, targetAfter: cursor.targetAfter }, limit, async () => {
        longest = Math.max(longest, this.clocks.pace() - began);
        await restAfter(this.clocks, began);
        began = this.clocks.pace();
        return (await changedKeys(this.source, move.tenantId, move.appliedSeq)).get(plan.name) ?? new Set();
      });
      move.chunkRows = nextChunkRows(limit, Math.max(longest, this.clocks.pace() - began), this.clocks.chunkMs);
      let report = move.tables.find((table) => table.table === plan.name);
      if (!report) {
        report = { table: plan.name, rows: 0, sha256: "" };
        move.tables.push(report);
      }
      report.rows += chunk.compared.length;
      if (chunk.compared.length) report.sha256 = await chainDigest(report.sha256, chunk.compared);
      move.progress.rowsVerified += chunk.compared.length;
      this.advance(cursor, chunk.done ? null : chunk.cursor.after, chunk.cursor.targetAfter);
      await restAfter(this.clocks, began);
    } while (this.clocks.pace() < deadline);
  }

  /**
   * The cutover, in one step: fence the source (its writes answer 503 tenant_moving from now on),
   * apply the last entries, check every row changed since the last check, switch the directory, lift
   * the target's fence (starting its log, for a reverse), leave the source fenced LEFT. If the fence
   * would last longer than MOVE_PACE.fenceBudgetMs, it is lifted before the switch and the catch-up
   * goes on from what the fence got done (every entry it applied and checked stays so: the tenant's
   * writes were held meanwhile, which is how a catch-up the writes keep pace with still ends); the
   * whole fence, switch included, is what `fence.lastMs` reports.
   */
  private async cutover(): Promise<void> {
    const move = this.move;
    const fencedAt = this.clocks.pace();
    move.fencedAt = this.clocks.now();
    move.status = "SWITCHING";
    move.fence.attempts++;
    await this.save();
    await setFence(this.source, move.tenantId, "MOVING", new Date(move.fencedAt).toISOString());
    let done = 0;
    const withinBudget = () => {
      if (this.clocks.pace() - fencedAt > MOVE_PACE.fenceBudgetMs) throw new FenceTooLong();
    };
    try {
      // The log ends here (the tenant's writes are refused): apply it all, then check every row it names since the last check.
      for (;;) {
        const applied = await applyChanges(this.source, this.targetOf(), move.appliedSeq, CHANGES_PER_READ);
        if (!applied.entries) break;
        move.appliedSeq = applied.lastSeq;
        move.progress.changesApplied += applied.entries;
        done += applied.entries;
        withinBudget();
      }
      for (;;) {
        const slice = await readLog(this.source, move.tenantId, move.verifiedSeq ?? 0, CHANGES_PER_READ, move.appliedSeq);
        if (!slice.entries) break;
        await compareRowsOfKeys(this.source, this.target, slice.byTable);
        move.verifiedSeq = slice.lastSeq;
        move.progress.changesChecked += slice.entries;
        done += slice.entries;
        withinBudget();
      }
      const switched = await d1(this.env, "CONTROL")
        .prepare("update tenant_directory set shard = ?, state = 'ACTIVE', moving_to = null, moved_at = ? where tenant_id = ? and shard = ?")
        .bind(move.to, this.nowIso(), move.tenantId, move.from)
        .run();
      if (!switched.meta.changes) throw new MoveFailed(`the tenant directory no longer places the tenant on ${move.from}`);
    } catch (error) {
      await liftFence(this.source, move.tenantId);
      move.fence.lastMs = Math.round(this.clocks.pace() - fencedAt);
      move.status = "CATCHING_UP";
      if (!(error instanceof FenceTooLong)) throw error;
      if (move.catchUp) move.catchUp.fenceEntries = Math.min(move.catchUp.fenceEntries, done);
      if (move.fence.attempts >= MOVE_PACE.fenceAttempts) {
        const what = `${move.fence.attempts} cutovers could not finish within the fence's ${MOVE_PACE.fenceBudgetMs} ms`;
        throw new MoveFailed(move.catchUp ? explainStall(move.catchUp, what) : what);
      }
      return;
    }
    await this.afterSwitch(Math.round(this.clocks.pace() - fencedAt));
  }

  /** The directory names the target: it takes the tenant's writes (and logs them, so the move can be reversed); the source keeps its copy, fenced. */
  private async afterSwitch(fenceMs: number): Promise<void> {
    const move = this.move;
    await this.target.batch([
      this.target.prepare("delete from tenant_fences where tenant_id = ?").bind(move.tenantId),
      this.target.prepare("delete from move_changes where tenant_id = ?").bind(move.tenantId),
      this.target.prepare("insert into move_captures (tenant_id, since) values (?, ?) on conflict (tenant_id) do nothing").bind(move.tenantId, this.nowIso()),
    ]);
    move.fence.lastMs = fenceMs;
    move.fence.longestMs = Math.max(move.fence.longestMs ?? 0, fenceMs);
    await this.source.batch([
      this.source.prepare("update tenant_fences set state = 'LEFT' where tenant_id = ?").bind(move.tenantId),
      this.source.prepare("delete from move_captures where tenant_id = ?").bind(move.tenantId),
    ]);
    // This isolate routes the tenant's next request to its new shard; others read it within their cache's lifetime.
    forgetPlacement(move.tenantId);
    move.status = "SWITCHED";
    move.switchedAt = this.nowIso();
    move.dropAt = this.clocks.now() + Math.max(move.keepSourceMs, DRAIN_MS);
  }

  private async recoverCutover(): Promise<void> {
    const move = this.move;
    const entry = await d1(this.env, "CONTROL")
      .prepare("select shard from tenant_directory where tenant_id = ?")
      .bind(move.tenantId)
      .first<{ shard: string }>();
    if (entry?.shard === move.to) {
      await this.afterSwitch(Math.max(0, this.clocks.now() - (move.fencedAt ?? this.clocks.now())));
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
    move.finishedAt = this.nowIso();
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
    move.finishedAt = this.nowIso();
    return true;
  }
}
