import type { Env } from "../../platform/core/env";
import type { Principal } from "../../platform/core/principal";
import type { ShardName } from "../../platform/core/shards";
import type { ChangeAuthor } from "../../platform/data/changes";
import type { Db } from "../../platform/data/database";
import type { Problem } from "../../platform/core/errors";

/** Who runs a command, on which Operation: what every command receives. */
export interface CommandContext {
  db: Db;
  /** Change history past its hot window (src/history/archive/): what a revert to an old version reads. */
  archive: R2Bucket;
  principal: Principal;
  operationId: string;
  /** Who the events and change records name (the principal's key or user, or "schedule"), the request and its reason. */
  author: ChangeAuthor;
}

/**
 * A state-changing command on one Operation. It runs inside the Operation's Durable Object, one at
 * a time; `name` is how the Worker names it across the RPC boundary (functions cannot cross it).
 */
export interface Command<Input, Output> {
  readonly name: string;
  run(ctx: CommandContext, input: Input): Promise<Output>;
}

export function defineCommand<Input, Output>(name: string, run: (ctx: CommandContext, input: Input) => Promise<Output>): Command<Input, Output> {
  return { name, run };
}

/** What a command's change records say of the request that sent it. */
export interface CommandRequest {
  requestId: string | null;
  reason: string | null;
}

/** Commands by the name the Worker sends them by; two commands of one name are a mistake caught at startup. */
export function commandRegistry(commands: readonly Command<never, unknown>[]): ReadonlyMap<string, Command<unknown, unknown>> {
  const byName = new Map<string, Command<unknown, unknown>>();
  for (const command of commands as readonly Command<unknown, unknown>[]) {
    if (byName.has(command.name)) throw new Error(`Two commands are named ${command.name}.`);
    byName.set(command.name, command);
  }
  return byName;
}

/** A command's result as plain data: what crosses the RPC boundary back to the Worker. */
export type CommandOutcome<Output> = (
  | { ok: true; value: Output }
  | { ok: false; problem: Problem }
  | { ok: false; failure: { message: string; stack?: string } }
) & {
  /** The command's D1 calls (they count on the request's trace) and the bookmark after its writes. */
  d1: { roundTrips: number; sequentialRoundTrips: number; bookmark: string | null };
  /** Whether the command committed events (refused or not): the request hands them on to webhooks once it answers. */
  eventsAppended: boolean;
};

/** Events the object appended on its own, outside any request (a scheduled change): where, and who made them. */
export interface AppendedEvents {
  shard: ShardName;
  tenantId: string;
  operationId: string;
  /** What appended them, for logs: `schedule:<operationId>`. */
  source: string;
}

/**
 * Who hears of such events (src/app.ts gives the object its listeners, as it gives it its commands):
 * the webhooks' hand-on. A listener never throws: what it fails to do, a sweep repairs.
 */
export type EventsListener = (env: Env, appended: AppendedEvents) => Promise<void>;

/** The Operation's Durable Object as the Worker calls it. */
export interface CommandExecutor extends Rpc.DurableObjectBranded {
  execute(principal: Principal, operationId: string, name: string, input: unknown, request: CommandRequest): Promise<CommandOutcome<unknown>>;
  /** Sets the object's alarm to the Operation's next scheduled status change (none: cleared). */
  syncSchedule(principal: Principal, operationId: string): Promise<void>;
  /** Arms the object again from D1 when it has no alarm although a scheduled time is past; answers whether it did. */
  healSchedule(tenantId: string, operationId: string): Promise<boolean>;
}

/** Sends commands to their Operation's Durable Object on behalf of the request's principal (`operationCoordinator(c)`). */
export interface Coordinator {
  run<Input, Output>(operationId: string, command: Command<Input, Output>, input: Input): Promise<Output>;
  /** Arms the Operation's scheduled status changes (after it was created with a schedule). */
  syncSchedule(operationId: string): Promise<void>;
}
