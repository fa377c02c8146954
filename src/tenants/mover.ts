import { DurableObject } from "cloudflare:workers";
import type { Env } from "../platform/core/env";
import { logFailure, type Problem } from "../platform/core/errors";
import { newId } from "../platform/core/ids";
import { shardNames, type ShardName } from "../platform/core/shards";
import { d1 } from "../platform/data/database";
import { CopyDiffers } from "./move";
import { clocksOf, MOVE_PACE, type MoveClocks } from "./move-pace";
import { ABORTABLE, MoveFailed, type MoveRecord, type MoveStatus, MoveStep, newMove, representation, type TenantMove, upgraded } from "./move-steps";

export type { MoveStatus, TenantMove };

/** Statuses after which nothing more happens. */
const FINAL: ReadonlySet<MoveStatus> = new Set(["COMPLETED", "REVERSED", "ABORTED", "FAILED"]);

/** What the object answers the Worker: a move, or a problem the API answers as it is. */
export type MoveOutcome = { ok: true; move: TenantMove } | { ok: false; problem: Problem };

const CURRENT = "move";
/** What a path may name instead of a move's id: the tenant's latest move. */
export const LATEST_MOVE = "latest";
const REMEMBERED = "remembered";

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
  /** The clocks its steps read (tests replace them: a loaded database, two minutes gone by). */
  clocks: MoveClocks = clocksOf(this.env);

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
      const keepSourceMs = (request.keepSourceMinutes ?? MOVE_PACE.keepSourceMinutes) * 60_000;
      return this.begin(this.newMove({ tenantId: request.tenantId, from: entry.shard, to: request.to, keepSourceMs, reverseOf: null }), current);
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
      const back = this.newMove({ tenantId: current.tenantId, from: current.to, to: current.from, keepSourceMs: current.keepSourceMs, reverseOf: current.id });
      // The old copy was equal to the new one at the switch, and every write since is in the new shard's log.
      back.targetFence = { wasThere: true, since: back.startedAt };
      back.verifiedSeq = 0;
      current.status = "REVERSED";
      current.finishedAt = back.startedAt;
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
      this.held = false;
      await this.ctx.storage.setAlarm(Date.now());
      return { ok: true, move: representation(current) };
    });
  }

  /**
   * Held by a test, which then runs the steps itself one by one: an alarm the runtime rings does
   * nothing until a call (start, abort, reverse) sets the move going again. In memory only, so a
   * restart of the object lets the move go on by itself.
   */
  held = false;

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
      if (this.held) return;
      const move = await this.current();
      if (!move || FINAL.has(move.status)) return;
      const next = await this.step(move);
      await this.save(move);
      if (next !== null) await this.ctx.storage.setAlarm(next);
    });
  }

  private async step(move: MoveRecord): Promise<number | null> {
    const deadline = this.clocks.pace() + MOVE_PACE.stepMs;
    try {
      const next = await new MoveStep(this.env, move, () => this.save(move), this.clocks).run(deadline);
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
    this.held = false;
    await this.ctx.storage.setAlarm(Date.now());
    return { ok: true, move: representation(move) };
  }

  private async current(): Promise<MoveRecord | undefined> {
    const move = await this.ctx.storage.get<MoveRecord>(CURRENT);
    return move && upgraded(move);
  }

  private newMove(request: Parameters<typeof newMove>[1]): MoveRecord {
    return newMove(newId("mov"), request, this.clocks.now());
  }

  private async find(moveId: string): Promise<TenantMove | null> {
    const current = await this.current();
    moveId = named(moveId, current);
    if (current?.id === moveId) return representation(current);
    const remembered = ((await this.ctx.storage.get<TenantMove[]>(REMEMBERED)) ?? []).find((move) => move.id === moveId);
    // One remembered before the catch-up was shown has no figures of it.
    return remembered
      ? { ...remembered, catchUp: remembered.catchUp ?? null, progress: { ...remembered.progress, changesChecked: remembered.progress.changesChecked ?? 0 } }
      : null;
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
