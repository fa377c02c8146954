import { DurableObject } from "cloudflare:workers";
import type { CommandContext, CommandExecutor, CommandOutcome } from "../platform/commands";
import { openDb } from "../platform/db";
import type { Env } from "../platform/env";
import { ApiError } from "../platform/errors";
import type { Principal } from "../platform/principal";
import { isTenantMovingFailure, tenantMovingError } from "../platform/tenancy";
import { newTrace } from "../platform/trace";
import { COMMANDS } from "./registry";

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
    return this.ctx.blockConcurrencyWhile(() => this.run(principal, operationId, name, input));
  }

  private async run(principal: Principal, operationId: string, name: string, input: unknown): Promise<CommandOutcome<unknown>> {
    // Commands read and write on the primary of the tenant's shard (the Worker names it from the
    // tenant directory): what they check is the latest state.
    const trace = newTrace();
    const ctx: CommandContext = { db: openDb(this.env, principal.shard, "first-primary", trace), principal, operationId };
    const d1 = () => ({ roundTrips: trace.d1RoundTrips, sequentialRoundTrips: trace.d1SequentialRoundTrips, bookmark: trace.bookmark });
    try {
      const command = COMMANDS.get(name);
      if (!command) throw new Error(`No command is named ${name}.`);
      return { ok: true, value: await command.run(ctx, input), d1: d1() };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, problem: error.problem, d1: d1() };
      if (isTenantMovingFailure(error)) return { ok: false, problem: tenantMovingError().problem, d1: d1() };
      return { ok: false, failure: { message: String(error), stack: (error as Error)?.stack }, d1: d1() };
    }
  }
}
