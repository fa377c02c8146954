/*
 * The catch-up of a move, in figures: what waits in the change log, how fast the tenant writes and
 * the move catches up, and what the move does next (another round, the fence, or give up, saying
 * why). Pure: the step (move-steps.ts) reads the log and keeps the record; this decides and describes.
 */
import { MOVE_PACE } from "./move-pace";

/** The move's counters and what waits, at one moment (calendar ms). */
export interface CatchUpSample {
  at: number;
  /** Log entries applied to the target, and checked on both sides, since the move began. */
  applied: number;
  checked: number;
  /** Log entries not yet applied; applied but not yet checked (the check of every row not ended: 0). */
  toApply: number;
  toCheck: number;
}

/** A stretch of catching up: after the copy, then again after the check of every row. */
export interface CatchUp {
  /** When it began: the fence must come within MOVE_PACE.convergeMs of `start.at`, or the move fails. */
  start: CatchUpSample;
  /** As the last step left it. */
  last: CatchUpSample;
  /** Recheck rounds begun (MOVE_PACE.recheckRounds at most). */
  rounds: number;
  /** The running round checks the rows the log names up to this entry; null between rounds. */
  roundUpTo: number | null;
  /** What waited when the running (or the last) round began; null before the first. */
  roundBacklog: number | null;
  /** Log entries a fence can apply and check within its budget: MOVE_PACE.fenceEntries, lowered by a fence that ran out of time. */
  fenceEntries: number;
}

export function newCatchUp(sample: CatchUpSample): CatchUp {
  return { start: sample, last: sample, rounds: 0, roundUpTo: null, roundBacklog: null, fenceEntries: MOVE_PACE.fenceEntries };
}

export const waiting = (sample: CatchUpSample) => sample.toApply + sample.toCheck;

/** The work a fence would do: every entry to apply is then checked too. */
export const fenceWork = (sample: CatchUpSample) => 2 * sample.toApply + sample.toCheck;

/** What the catch-up does between two rounds. */
export type NextRound = { next: "fence" } | { next: "round" } | { next: "fail"; reason: string };

/**
 * Between rounds: the fence once fewer than `cutoverBelow` entries wait; also when the last round did
 * not halve what waits (the writes keep pace with the catch-up) or was the last one allowed, if the
 * fence can take it all (the tenant's writes are held for that long, ≤ MOVE_PACE.fenceBudgetMs); else
 * another round, or, after the last, the move fails.
 */
export function nextRound(catchUp: CatchUp, cutoverBelow: number): NextRound {
  const now = waiting(catchUp.last);
  if (now < cutoverBelow) return { next: "fence" };
  const fits = fenceWork(catchUp.last) <= catchUp.fenceEntries;
  const lastRound = catchUp.rounds >= MOVE_PACE.recheckRounds;
  const keptPace = catchUp.roundBacklog !== null && now > catchUp.roundBacklog / 2;
  if (fits && (keptPace || lastRound)) return { next: "fence" };
  if (lastRound)
    return { next: "fail", reason: explainStall(catchUp, `${catchUp.rounds} rounds of rechecking the rows the tenant's writes changed did not catch up`) };
  return { next: "round" };
}

/** The reason a move fails when its catch-up has run past its bound; null while within it. */
export function pastBound(catchUp: CatchUp, now: number): string | null {
  if (now - catchUp.start.at <= MOVE_PACE.convergeMs) return null;
  return explainStall(catchUp, `the catch-up did not converge within ${MOVE_PACE.convergeMs / 1000} s`);
}

/** Log entries a second over the stretch so far: written by the tenant, applied and checked by the move; null in its first second. */
export function perSecond(catchUp: CatchUp): { written: number; applied: number; checked: number } | null {
  const { start, last } = catchUp;
  const seconds = (last.at - start.at) / 1000;
  if (seconds < 1) return null;
  const applied = last.applied - start.applied;
  const rate = (entries: number) => Math.max(0, Math.round(entries / seconds));
  return { written: rate(applied + last.toApply - start.toApply), applied: rate(applied), checked: rate(last.checked - start.checked) };
}

const count = (n: number) => n.toLocaleString("en-US");

/** Why a catch-up gave up: what waited, and how fast the tenant wrote against how fast the move caught up. */
export function explainStall(catchUp: CatchUp, what: string): string {
  const { last } = catchUp;
  const rates = perSecond(catchUp);
  const pace = rates
    ? `; the tenant wrote ${count(rates.written)} a second, the move applied ${count(rates.applied)} and checked ${count(rates.checked)} a second`
    : "";
  return `${what}: ${count(waiting(last))} log entries wait (${count(last.toApply)} to apply, ${count(last.toCheck)} to check) after ${catchUp.rounds} rounds${pace}; a fence takes ${count(catchUp.fenceEntries)} at most`;
}

/** The catch-up as the API shows it. */
export interface CatchUpView {
  since: string;
  elapsedMs: number;
  convergeWithinMs: number;
  rounds: number;
  roundsAtMost: number;
  backlog: { toApply: number; toCheck: number };
  perSecond: { written: number; applied: number; checked: number } | null;
}

export function catchUpView(catchUp: CatchUp): CatchUpView {
  const { start, last } = catchUp;
  return {
    since: new Date(start.at).toISOString(),
    elapsedMs: Math.max(0, Math.round(last.at - start.at)),
    convergeWithinMs: MOVE_PACE.convergeMs,
    rounds: catchUp.rounds,
    roundsAtMost: MOVE_PACE.recheckRounds,
    backlog: { toApply: last.toApply, toCheck: last.toCheck },
    perSecond: perSecond(catchUp),
  };
}
