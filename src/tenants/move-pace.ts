/*
 * How a tenant move paces itself, and the clocks it reads: every figure is a bound the move keeps
 * whatever the tenant's size (docs/tenants-and-shards.md says what each costs, as the bench measured it).
 */
import type { Env } from "../platform/core/env";
import { CHUNK_ROWS } from "./move";

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
   * The work of one statement this long or longer halves the next chunk's rows (down to MIN_CHUNK_ROWS);
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
  /** The fence is let in once fewer log entries than this wait to be applied and checked, whatever else. */
  cutoverBelow: 1_000,
  /**
   * The log entries a fence is thought to apply and check within its budget (each entry to apply
   * counts twice: it is checked after): 10 sequential round trips of 50 ms per 2000 entries from afar,
   * a few ms locally. A fence that runs out of time lowers it to what it did.
   */
  fenceEntries: 10_000,
  /**
   * The catch-up after the copy, and again after the check of every row, must let the fence in within
   * this long of its start, else the move fails and aborts (saying what waited and how fast each side went).
   */
  convergeMs: 120_000,
  /**
   * Rounds of rechecking the rows changed meanwhile, after the check of every row: each round covers
   * what changed during the one before, so under writes the check can keep up with they shrink fast
   * (at 1.5 M lines: ~150,000 entries, then a few thousand, then the fence). A round that does not
   * halve what waits (the writes keep pace with the catch-up), and the last round, let the fence in
   * if it can take what waits; else the move fails.
   */
  recheckRounds: 10,
  /** A step that fails (a database unreachable) is tried again after 1, 2, 4… s, this many times, then the move fails. */
  stepAttempts: 6,
  /** The old copy is kept this long after the switch by default: the move can be reversed until then. */
  keepSourceMinutes: 60,
  /** Finished moves a tenant's object remembers (GET by id). */
  remembered: 10,
} as const;

/**
 * The clocks a move reads: `now` for its calendar (the bound, its timestamps, when the old copy goes),
 * `pace` for how long its own work takes (a step's time, rests, chunk sizes, the fence's budget). Tests
 * replace them to show a loaded database or two minutes gone by, without waiting.
 */
export interface MoveClocks {
  now(): number;
  pace(): number;
  /** The rest after each piece of work, in multiples of its time. */
  restPerWork: number;
  /** A statement this long or longer halves the next chunk (MOVE_PACE.chunkMs unless the deployment says). */
  chunkMs: number;
  /**
   * Fewer log entries than this waiting let the check of every row begin, and the fence in
   * (MOVE_PACE.cutoverBelow): a test lowers it to show a big tenant's catch-up on a small one.
   */
  cutoverBelow: number;
}

const systemClocks: MoveClocks = {
  now: () => Date.now(),
  pace: () => performance.now(),
  restPerWork: MOVE_PACE.restPerWork,
  chunkMs: MOVE_PACE.chunkMs,
  cutoverBelow: MOVE_PACE.cutoverBelow,
};

/** A number the deployment set within [least, most], else undefined (unset, empty or out of range: the default stands). */
function configured(text: string | undefined, least: number, most: number): number | undefined {
  const value = text === undefined || text === "" ? Number.NaN : Number(text);
  return Number.isFinite(value) && value >= least && value <= most ? value : undefined;
}

/**
 * The system's clocks with the deployment's rest (MOVE_REST_PER_WORK, 0–10): less rest moves faster and
 * leaves the tenant's requests less room while it does (the tests move on a shorter rest); and its
 * chunk guard (MOVE_CHUNK_MS, 10–10,000 ms): the tests set a long one, so a machine they keep busy
 * does not shrink every chunk and make each move do many times the statements.
 */
export function clocksOf(env: Pick<Env, "MOVE_REST_PER_WORK" | "MOVE_CHUNK_MS">): MoveClocks {
  const restPerWork = configured(env.MOVE_REST_PER_WORK, 0, 10);
  const chunkMs = configured(env.MOVE_CHUNK_MS, 10, 10_000);
  return { ...systemClocks, ...(restPerWork !== undefined && { restPerWork }), ...(chunkMs !== undefined && { chunkMs }) };
}

/**
 * The databases' time back to the tenant after each piece of the move's work: as long as the piece
 * took, times the clocks' restPerWork. Resting between pieces, not only between steps, keeps a request
 * from queueing behind a whole step's statements one after another.
 */
export async function restAfter(clocks: Pick<MoveClocks, "pace" | "restPerWork">, began: number): Promise<void> {
  const rest = Math.min((clocks.pace() - began) * clocks.restPerWork, MOVE_PACE.stepMs);
  if (rest >= 1) await new Promise((resolve) => setTimeout(resolve, rest));
}

/** The fewest rows a chunk reads, however slow: a move must still get through a big tenant. */
export const MIN_CHUNK_ROWS = 25;

/** The rows of the chunk after one of `rows` rows whose longest statement took `tookMs`: halved from `chunkMs`, `most` at most. */
export function nextChunkRows(rows: number, tookMs: number, chunkMs: number, most = CHUNK_ROWS): number {
  if (tookMs >= chunkMs) return Math.max(MIN_CHUNK_ROWS, Math.floor(rows / 2));
  if (tookMs < chunkMs / 2) return Math.min(most, rows * 2);
  return rows;
}
