import { DurableObject } from "cloudflare:workers";
import type { CommandContext, CommandExecutor, CommandOutcome } from "../platform/commands";
import { openDb } from "../platform/database";
import { recordingEvents } from "../platform/events";
import type { Env } from "../platform/env";
import { ApiError } from "../platform/errors";
import type { Principal } from "../platform/principal";
import { isTenantMovingFailure, tenantMovingError } from "../platform/tenancy";
import { newTrace } from "../platform/trace";
import { COMMANDS } from "./registry";
import { deleteOperation, nextScheduledTime, patchOperation, runScheduledChanges } from "../operations/commands";
import { findOperation } from "../write/operation";

/** Whom the object acts for when its alarm runs a scheduled change: kept only while a time is scheduled. */
interface ScheduleOwner {
  principal: Principal;
  operationId: string;
}

const SCHEDULE_OWNER = "schedule-owner";
/** The commands after which the Operation's schedule may differ: the alarm is set again from D1. */
const SCHEDULE_COMMANDS = new Set([patchOperation.name, deleteOperation.name]);

/**
 * One object per Operation: runs its commands strictly one after another. The input gate
 * opens while a command awaits D1, so each command runs inside `blockConcurrencyWhile`, which
 * keeps every other call waiting until it ends. (A promise chain would do the same only by
 * resuming one call's command from another call's promise: Workers forbid one request from
 * continuing on I/O another started.) Each command's batch also re-checks the Operation's state
 * in SQL.
 */
export class OperationCoordinator extends DurableObject<Env> implements CommandExecutor {
  async execute(principal: Principal, operationId: string, name: string, input: unknown): Promise<CommandOutcome<unknown>> {
    // The callback never throws: a throwing callback would reset the object.
    return this.ctx.blockConcurrencyWhile(async () => {
      const outcome = await this.run(principal, operationId, name, input);
      if (outcome.ok && SCHEDULE_COMMANDS.has(name)) await this.armSchedule(principal, operationId).catch(() => undefined);
      return outcome;
    });
  }

  /** Sets the alarm to the Operation's next scheduled time (or clears it): after a create with a schedule. */
  async syncSchedule(principal: Principal, operationId: string): Promise<void> {
    await this.ctx.blockConcurrencyWhile(() => this.armSchedule(principal, operationId));
  }

  /**
   * A scheduled time has come: the change runs inside blockConcurrencyWhile like any command (so it
   * never interleaves with one), acting as "schedule"; the alarm is then set to the next time, if any.
   */
  async alarm(): Promise<void> {
    const owner = await this.ctx.storage.get<ScheduleOwner>(SCHEDULE_OWNER);
    if (!owner) return;
    await this.ctx.blockConcurrencyWhile(async () => {
      const ctx: CommandContext = { db: openDb(this.env, owner.principal.shard, "first-primary", newTrace()), principal: owner.principal, operationId: owner.operationId, actor: "schedule" };
      let row;
      try {
        row = await runScheduledChanges(ctx);
      } catch {
        // A lost race or a failing database: the alarm tries again shortly.
        await this.ctx.storage.setAlarm(Date.now() + 5_000);
        return;
      }
      await this.arm(owner, row);
    });
  }

  private async armSchedule(principal: Principal, operationId: string): Promise<void> {
    const db = openDb(this.env, principal.shard, "first-primary", newTrace());
    await this.arm({ principal, operationId }, await findOperation(db, principal.tenantId, operationId));
  }

  /** The alarm at the row's next scheduled time; none (and nothing stored) when it has none or is gone. */
  private async arm(owner: ScheduleOwner, row: Parameters<typeof nextScheduledTime>[0] | undefined): Promise<void> {
    const next = row ? nextScheduledTime(row) : null;
    if (next === null) {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.delete(SCHEDULE_OWNER);
      return;
    }
    await this.ctx.storage.put(SCHEDULE_OWNER, owner);
    await this.ctx.storage.setAlarm(Date.parse(next));
  }

  private async run(principal: Principal, operationId: string, name: string, input: unknown): Promise<CommandOutcome<unknown>> {
    // Commands read and write on the primary of the tenant's shard (the Worker names it from the
    // tenant directory): what they check is the latest state.
    const trace = newTrace();
    const ctx: CommandContext = { db: recordingEvents(openDb(this.env, principal.shard, "first-primary", trace), trace), principal, operationId };
    // What the request gets back beside the result: its D1 calls, and whether the command's batch appended events.
    const done = () => ({ d1: { roundTrips: trace.d1RoundTrips, sequentialRoundTrips: trace.d1SequentialRoundTrips, bookmark: trace.bookmark }, eventsAppended: trace.eventsAppended });
    try {
      const command = COMMANDS.get(name);
      if (!command) throw new Error(`No command is named ${name}.`);
      return { ok: true, value: await command.run(ctx, input), ...done() };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, problem: error.problem, ...done() };
      if (isTenantMovingFailure(error)) return { ok: false, problem: tenantMovingError().problem, ...done() };
      return { ok: false, failure: { message: String(error), stack: (error as Error)?.stack }, ...done() };
    }
  }
}
