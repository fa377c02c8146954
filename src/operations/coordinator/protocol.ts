import type { Env } from "../../platform/core/env";
import type { Principal, Role } from "../../platform/core/principal";
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

/** What a committed command tells the Operation's live viewers (live.ts): what kind of change, and what of it. */
export interface LiveChange {
  what: "lines" | "accounts" | "status" | "allocation" | "orders" | "operation";
  counts?: Record<string, number>;
  /** The lines it changed or removed: viewers get their state now (up to 500), a removed one as removed. */
  lineKeys?: readonly string[];
  /** An order's account: an ACCOUNT key's viewers hear only of their own accounts' orders. */
  accountId?: string;
}

/**
 * A state-changing command on one Operation. It runs inside the Operation's Durable Object, one at
 * a time; `name` is how the Worker names it across the RPC boundary (functions cannot cross it).
 * `live` says what the change was, once it committed (default: the Operation changed).
 */
export interface Command<Input, Output> {
  readonly name: string;
  run(ctx: CommandContext, input: Input): Promise<Output>;
  live?(input: Input, output: Output): LiveChange | null;
}

export function defineCommand<Input, Output>(
  name: string,
  run: (ctx: CommandContext, input: Input) => Promise<Output>,
  live?: (input: Input, output: Output) => LiveChange | null,
): Command<Input, Output> {
  return { name, run, live };
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

/** Who a connection is: what its reads may see, and how others see it. */
export interface LiveViewer {
  tenantId: string;
  operationId: string;
  shard: ShardName;
  keyId: string;
  role: Role;
  userId: string | null;
  /** As people see it: the key's name, else its user, else its role. */
  name: string;
  /** ACCOUNT keys: the accounts whose orders it hears of. */
  accountIds: string[];
}

/** Lines as the API shows them, read for a change told to live viewers (src/app.ts gives the object the lines' own reader). */
export type LiveLines = (db: Db, operationId: string, variantExternalIds: readonly string[]) => Promise<Record<string, unknown>[]>;

/** The Operation's Durable Object as the Worker calls it. */
export interface CommandExecutor extends Rpc.DurableObjectBranded {
  execute(principal: Principal, operationId: string, name: string, input: unknown, request: CommandRequest): Promise<CommandOutcome<unknown>>;
  /** Sets the object's alarm to the Operation's next scheduled status change (none: cleared). */
  syncSchedule(principal: Principal, operationId: string): Promise<void>;
  /** Arms the object again from D1 when it has no alarm although a scheduled time is past; answers whether it did. */
  healSchedule(tenantId: string, operationId: string): Promise<boolean>;
  /** A single-use ticket for a live connection of `viewer` (live.ts). */
  issueLiveTicket(viewer: LiveViewer): Promise<{ ticket: string; expiresAt: string }>;
  /** Closes a revoked key's live connections; answers how many. */
  closeLiveKey(keyId: string): Promise<number>;
  /** The live connections a key holds on the Operation. */
  liveConnectionsOf(keyId: string): Promise<number>;
  /** The live connections held now, and since when this instance of the object lives. */
  liveStats(): Promise<{ connections: number; instanceSince: number }>;
  /** The live connection's upgrade (GET …/live), forwarded as it came. */
  fetch(request: Request): Promise<Response>;
}

/** Sends commands to their Operation's Durable Object on behalf of the request's principal (`operationCoordinator(c)`). */
export interface Coordinator {
  run<Input, Output>(operationId: string, command: Command<Input, Output>, input: Input): Promise<Output>;
  /** Arms the Operation's scheduled status changes (after it was created with a schedule). */
  syncSchedule(operationId: string): Promise<void>;
}
