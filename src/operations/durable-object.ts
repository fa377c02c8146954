import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import type { Principal } from "../platform/app";
import { getDb, type Db } from "../platform/db";
import type { Env } from "../platform/env";
import { ApiError, type Problem } from "../platform/errors";
import { operationAccounts, operationLines } from "../platform/schema";
import { operationCommands as accountCommands } from "../accounts/commands";
import { operationCommands as lineCommands } from "../lines/commands";
import { operationCommands as linkCommands } from "../carts/commands";
import { changeStatus, deleteOperation, patchOperation, type CommandContext } from "./commands";

function dependentDeletes(db: Db, operationId: string) {
  return [
    db.delete(operationLines).where(eq(operationLines.operationId, operationId)),
    db.delete(operationAccounts).where(eq(operationAccounts.operationId, operationId)),
  ];
}

/** Every state-changing command on one Operation, by name. */
const COMMANDS = {
  patch: patchOperation,
  status: changeStatus,
  delete: (ctx: CommandContext, input: { ifMatch?: string | null }) => deleteOperation(ctx, input, dependentDeletes),
  ...lineCommands,
  ...accountCommands,
  ...linkCommands,
};

export type CommandName = keyof typeof COMMANDS;
export type CommandInput<K extends CommandName> = Parameters<(typeof COMMANDS)[K]>[1];
export type CommandOutput<K extends CommandName> = Awaited<ReturnType<(typeof COMMANDS)[K]>>;
/** A command's result as plain data: what crosses the RPC boundary back to the Worker. */
export type CommandOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; problem: Problem }
  | { ok: false; failure: { message: string; stack?: string } };

/**
 * One object per Operation: runs its commands strictly one after another. The input gate
 * opens while a command awaits D1, so each command runs inside `blockConcurrencyWhile`, which
 * keeps every other call waiting until it ends. (A promise chain would do the same only by
 * resuming one call's command from another call's promise: Workers forbid one request from
 * continuing on I/O another started.) Each command's batch also re-checks the Operation's state
 * in SQL.
 */
export class OperationCoordinator extends DurableObject<Env> {
  async execute<K extends CommandName>(
    principal: Principal,
    operationId: string,
    name: K,
    input: CommandInput<K>,
  ): Promise<CommandOutcome<CommandOutput<K>>> {
    // The callback never throws: a throwing callback would reset the object.
    return this.ctx.blockConcurrencyWhile(() => this.run(principal, operationId, name, input));
  }

  private async run<K extends CommandName>(
    principal: Principal,
    operationId: string,
    name: K,
    input: CommandInput<K>,
  ): Promise<CommandOutcome<CommandOutput<K>>> {
    const ctx: CommandContext = { db: getDb(this.env), principal, operationId };
    const command = COMMANDS[name] as (ctx: CommandContext, input: CommandInput<K>) => Promise<CommandOutput<K>>;
    try {
      return { ok: true, value: await command(ctx, input) };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, problem: error.problem };
      return { ok: false, failure: { message: String(error), stack: (error as Error)?.stack } };
    }
  }
}

/** A command that failed unexpectedly inside the Operation's object; its stack is the object's. */
export class CommandFailed extends Error {
  constructor(name: string, failure: { message: string; stack?: string }) {
    super(`command ${name} failed: ${failure.message}`);
    if (failure.stack) this.stack = `${this.name}: ${this.message}\n  inside the Durable Object: ${failure.stack}`;
  }
}

/** Sends a command to its Operation's coordinator; a refused command is rethrown as its problem. */
export async function runOperationCommand<K extends CommandName>(
  env: Env,
  principal: Principal,
  operationId: string,
  name: K,
  input: CommandInput<K>,
): Promise<CommandOutput<K>> {
  const stub = env.OPERATION_COORDINATOR.get(env.OPERATION_COORDINATOR.idFromName(operationId));
  const outcome = (await stub.execute(principal, operationId, name, input as never)) as CommandOutcome<CommandOutput<K>>;
  if ("problem" in outcome) throw ApiError.from(outcome.problem);
  if ("failure" in outcome) throw new CommandFailed(name, outcome.failure);
  return outcome.value;
}
