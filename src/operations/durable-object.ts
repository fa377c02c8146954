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
export type CommandOutcome<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/**
 * One object per Operation: runs its commands strictly one after another. The input gate
 * does not hold other calls while a command awaits D1, so the queue below does; each
 * command's batch also re-checks the Operation's state in SQL.
 */
export class OperationCoordinator extends DurableObject<Env> {
  private tail: Promise<unknown> = Promise.resolve();
  /** One drizzle handle for the object's lifetime, not one per command. */
  private db: Db | undefined;

  async execute<K extends CommandName>(
    principal: Principal,
    operationId: string,
    name: K,
    input: CommandInput<K>,
  ): Promise<CommandOutcome<CommandOutput<K>>> {
    const run = this.tail.then(() => this.run(principal, operationId, name, input));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async run<K extends CommandName>(
    principal: Principal,
    operationId: string,
    name: K,
    input: CommandInput<K>,
  ): Promise<CommandOutcome<CommandOutput<K>>> {
    this.db ??= getDb(this.env);
    const ctx: CommandContext = { db: this.db, principal, operationId };
    const command = COMMANDS[name] as (ctx: CommandContext, input: CommandInput<K>) => Promise<CommandOutput<K>>;
    try {
      return { ok: true, value: await command(ctx, input) };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, problem: error.problem };
      throw error;
    }
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
  if (!outcome.ok) throw ApiError.from(outcome.problem);
  return outcome.value;
}
