import { DurableObject } from "cloudflare:workers";
import type { Command, CommandContext, CommandExecutor, CommandOutcome, CommandRequest, EventsListener, LiveChange, LiveLines } from "./protocol";
import { CLOSE, LIVE, LiveRoom, type LiveViewer } from "./live";
import type { ShardName } from "../../platform/core/shards";
import { actorOf } from "../../platform/core/principal";
import { problemResponseFor } from "../../platform/core/errors";
import { afterCommit } from "../../platform/core/after-commit";
import { openDb, primaryDb } from "../../platform/data/database";
import type { Env } from "../../platform/core/env";
import { ApiError } from "../../platform/core/errors";
import type { Principal } from "../../platform/core/principal";
import { authorOf } from "../../platform/data/changes";
import { isTenantMovingFailure, readPlacement, tenantMovingError } from "../../platform/data/tenancy";
import { newTrace, type RequestTrace } from "../../platform/data/trace";
import { toIsoSeconds } from "../../platform/core/time";
import { deleteOperation, giveUpScheduledChange, nextScheduledTime, patchOperation, runScheduledChanges } from "../commands";
import { findOperation, versionMadeBy, type OperationRow } from "../aggregate";

/**
 * Whose Operation the object's alarm runs scheduled changes of: kept only while a time is scheduled.
 * The tenant's shard is read from the tenant directory each time the alarm runs (a move changes it).
 */
interface ScheduleOwner {
  tenantId: string;
  operationId: string;
}

const SCHEDULE_OWNER = "schedule-owner";
/** How many times in a row the due change has failed: kept only while it keeps failing. */
const FAILED_ATTEMPTS = "schedule-failed-attempts";
/** The commands after which the Operation's schedule may differ: the alarm is set again from D1. */
const SCHEDULE_COMMANDS = new Set([patchOperation.name, deleteOperation.name]);

/** A due change that fails (a lost race, a failing database) is tried this many times in all, then given up. */
export const SCHEDULE_MAX_ATTEMPTS = 6;
/** The wait after the n-th failure: 5 s, doubling, at most 5 minutes (the attempts span about 2.5 minutes). */
export function scheduleRetryDelayMs(failures: number): number {
  return Math.min(5_000 * 2 ** (failures - 1), 5 * 60_000);
}

/** How long a due change waits when a move's write fence refused it (a fence lasts at most 2 s). */
export const SCHEDULE_FENCE_RETRY_MS = 2_000;

/** The tenant was being moved by an earlier version of the move command (the directory says MOVING): the change waits. */
class TenantMoving extends Error {}

/**
 * One object per Operation: runs its commands strictly one after another. The input gate
 * opens while a command awaits D1, so each command runs inside `blockConcurrencyWhile`, which
 * keeps every other call waiting until it ends. (A promise chain would do the same only by
 * resuming one call's command from another call's promise: Workers forbid one request from
 * continuing on I/O another started.) Each command's batch also re-checks the Operation's state
 * in SQL.
 */
/** What the live queue holds: a change to tell, a change that could not be read (every page reloads), or a deleted Operation's close. */
type PendingTell =
  | { kind: "change"; shard: ShardName; operationId: string; actor: string; change: LiveChange; version: number | null; changeSetId: string | null }
  | { kind: "lost"; operationId: string }
  | { kind: "close"; operationId: string };

const TELL_STEPS: Record<PendingTell["kind"], string> = {
  change: "telling live viewers of a change (they are told to reload)",
  lost: "telling live viewers to reload",
  close: "closing a deleted Operation's live connections",
};

export abstract class OperationObject extends DurableObject<Env> implements CommandExecutor {
  /** Every command this object runs, by the name the Worker sends: the app's (src/app.ts). */
  protected abstract readonly commands: ReadonlyMap<string, Command<unknown, unknown>>;
  /** Who hears of events the object appends on its own (a scheduled change): the app's (src/app.ts). */
  protected abstract readonly eventsListeners: readonly EventsListener[];
  /** Lines as the API shows them, for the changes told to live viewers: the app's (src/app.ts). */
  protected abstract readonly liveLines: LiveLines;
  private readonly live = new LiveRoom(this.ctx);

  async execute(principal: Principal, operationId: string, name: string, input: unknown, request: CommandRequest): Promise<CommandOutcome<unknown>> {
    // The callback never throws: a throwing callback would reset the object.
    return this.ctx.blockConcurrencyWhile(async () => {
      const outcome = await this.run(principal, operationId, name, input, request);
      if (outcome.ok && SCHEDULE_COMMANDS.has(name)) {
        await afterCommit(`schedule:${operationId}`, "arming the Operation's schedule after a change (the schedule sweep re-arms it)", () =>
          this.armSchedule(principal, operationId),
        );
      }
      // Committed: its live viewers hear of it, in commit order (the object runs one command at a time).
      if (outcome.ok && outcome.eventsAppended) {
        // A command without its own describer changed the Operation; one that answers null told nobody (a cart).
        const command = this.commands.get(name);
        const change = command?.live ? command.live(input, outcome.value) : { what: "operation" as const };
        if (change) await this.tellViewers(principal.shard, principal.tenantId, operationId, actorOf(principal), change, request.requestId);
        if (name === deleteOperation.name) this.tellLater({ kind: "close", operationId });
      }
      return outcome;
    });
  }

  /** A single-use ticket for a live connection of `viewer` (the Worker checked it may read the Operation). */
  async issueLiveTicket(viewer: LiveViewer): Promise<{ ticket: string; expiresAt: string }> {
    return this.ctx.blockConcurrencyWhile(() => this.live.issueTicket(viewer));
  }

  /** The live connections a key holds here (housekeeping forgets a key with none). */
  async liveConnectionsOf(keyId: string): Promise<number> {
    return this.live.connectionsOf(keyId);
  }

  /** Closes a revoked key's live connections; answers how many. */
  async closeLiveKey(keyId: string): Promise<number> {
    return this.live.closeKey(keyId);
  }

  /** The live connections held now, and when this instance of the object was made (a hibernated object is made again when it wakes). */
  async liveStats(): Promise<{ connections: number; instanceSince: number }> {
    return { connections: this.live.connections, instanceSince: this.instanceSince };
  }
  private readonly instanceSince = Date.now();

  /**
   * GET …/live?ticket=&since=, forwarded by the Worker: the ticket is redeemed (missing, used, expired
   * or another Operation's: 401) and the connection accepted, hibernating between messages.
   */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const ticket = url.searchParams.get("ticket") ?? "";
    const viewer = await this.ctx.blockConcurrencyWhile(() => this.live.redeem(ticket));
    if (!viewer || viewer.operationId !== url.searchParams.get("operationId")) {
      const refused = new ApiError("unauthorized", "The live ticket is missing, used, expired or not this Operation's: ask POST …/live-tickets for a new one.");
      return problemResponseFor(refused.problem, request.headers.get("x-request-id") ?? crypto.randomUUID());
    }
    const since = url.searchParams.get("since");
    const version = await this.currentVersion(viewer.shard, viewer.tenantId, viewer.operationId);
    const [client, server] = Object.values(new WebSocketPair());
    await this.live.accept(server, viewer, version, since === null ? null : Number(since));
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    this.live.message(ws, message);
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.live.closed(ws, code);
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.live.closed(ws);
  }

  /**
   * Tells live viewers of a committed change. Called inside the section that committed it, it reads
   * only the version that change made (exact, as reconnects count on it); the lines and the sending
   * wait until the command has answered, one change after another in commit order.
   */
  private async tellViewers(
    shard: ShardName,
    tenantId: string,
    operationId: string,
    actor: string,
    change: LiveChange,
    requestId: string | null,
  ): Promise<void> {
    if (!(await this.live.listening())) return;
    let made: { version: number | null; changeSetId: string | null } | undefined;
    await afterCommit(`live:${operationId}`, "reading the version live viewers are told (they are told to reload)", async () => {
      // An order makes no version: its change set is not looked for (many orders share one version).
      const madeBy = change.what === "orders" ? null : requestId;
      made = (await versionMadeBy(primaryDb(this.env, shard), tenantId, operationId, madeBy)) ?? { version: null, changeSetId: null };
    });
    this.tellLater(made === undefined ? { kind: "lost", operationId } : { kind: "change", shard, operationId, actor, change, ...made });
  }

  /**
   * Live work waiting until its command has answered and LIVE.settleMs more, in commit order. Plain data
   * only: the request that finds the queue idle drains it (its own I/O, awaited in its own context); the
   * others only add to it.
   */
  private readonly pendingTells: PendingTell[] = [];
  private drainingTells = false;
  /** How the queue waits LIVE.settleMs before it is drained (a test holds it to see what waits). */
  protected settle = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  private tellLater(pending: PendingTell): void {
    this.pendingTells.push(pending);
    if (this.drainingTells) return;
    this.drainingTells = true;
    this.ctx.waitUntil(this.drainTells());
  }

  private async drainTells(): Promise<void> {
    try {
      await this.settle(LIVE.settleMs);
      for (let next = this.pendingTells.shift(); next; next = this.pendingTells.shift()) {
        const pending = next;
        await afterCommit(`live:${pending.operationId}`, TELL_STEPS[pending.kind], () => this.tell(pending));
      }
    } finally {
      this.drainingTells = false;
    }
  }

  private async tell(pending: PendingTell): Promise<void> {
    if (pending.kind === "lost") return this.live.lost();
    if (pending.kind === "close") return this.live.closeAll(CLOSE.operationDeleted, "the Operation was deleted");
    const { shard, operationId, actor, change, version, changeSetId } = pending;
    const keys = change.lineKeys ? [...new Set(change.lineKeys)] : [];
    const named = keys.length > 0 && keys.length <= LIVE.maxLines;
    const lines = named ? await this.liveLines(primaryDb(this.env, shard), operationId, keys) : undefined;
    await this.live.broadcastOrReload({
      version,
      ...(changeSetId && { changeSetId }),
      actor,
      what: change.what,
      counts: change.counts ?? {},
      ...(named && { lineKeys: keys }),
      ...(lines && { lines }),
      ...(change.accountId && { accountId: change.accountId }),
    });
  }

  private async currentVersion(shard: ShardName, tenantId: string, operationId: string): Promise<number | null> {
    return (await findOperation(primaryDb(this.env, shard), tenantId, operationId))?.version ?? null;
  }

  /** Sets the alarm to the Operation's next scheduled time (or clears it): after a create with a schedule. */
  async syncSchedule(principal: Principal, operationId: string): Promise<void> {
    await this.ctx.blockConcurrencyWhile(() => this.armSchedule(principal, operationId));
  }

  /**
   * The schedule sweep found a scheduled time of this Operation well past (src/operations/coordinator/schedule-sweep.ts):
   * an object without an alarm lost it (an arm that failed, a move) and is armed again from D1; one with
   * an alarm (a retry waiting) is left alone. Answers whether it armed.
   */
  async healSchedule(tenantId: string, operationId: string): Promise<boolean> {
    return this.ctx.blockConcurrencyWhile(async () => {
      if ((await this.ctx.storage.getAlarm()) !== null) return false;
      const owner = { tenantId, operationId };
      try {
        // A change that has used up its attempts stays used up: the next ring tries once, then gives up again.
        await this.arm(owner, await findOperation((await this.scheduleContext(owner, newTrace())).db, tenantId, operationId), { keepFailures: true });
        return true;
      } catch {
        // A move or a failing database: the next sweep asks again.
        return false;
      }
    });
  }

  /**
   * A scheduled time has come: the change runs inside blockConcurrencyWhile like any command (so it
   * never interleaves with one), acting as "schedule"; the alarm is then set to the next time, if any.
   * A change that fails is tried again with a growing wait, and given up (operation.schedule_failed)
   * after SCHEDULE_MAX_ATTEMPTS; the alarm never throws, so the runtime never retries it on its own.
   */
  async alarm(): Promise<void> {
    await this.ringSchedule(Date.now());
  }

  /** The alarm's work as at `now` (epoch ms): what is due by then runs. */
  protected async ringSchedule(now: number): Promise<void> {
    const stored = await this.ctx.storage.get<ScheduleOwner & { principal?: Principal }>(SCHEDULE_OWNER);
    if (!stored) return;
    // Objects armed before the owner was reduced to ids stored the whole principal.
    const owner: ScheduleOwner = { tenantId: stored.tenantId ?? stored.principal!.tenantId, operationId: stored.operationId };
    const trace = newTrace();
    await this.ctx.blockConcurrencyWhile(async () => {
      let context: CommandContext | undefined;
      let row: OperationRow | undefined;
      try {
        context = await this.scheduleContext(owner, trace);
        row = await runScheduledChanges(context, toIsoSeconds(now));
      } catch (error) {
        await this.failedAttempt(owner, error, trace, now, context);
        return;
      }
      await this.arm(owner, row);
      if (trace.eventsAppended && trace.shard) {
        await this.tellViewers(trace.shard, owner.tenantId, owner.operationId, "schedule", { what: "status" }, trace.requestId);
      }
    });
    // The change (or its operation.schedule_failed) is heard now (webhooks), not at the next sweep.
    if (trace.eventsAppended && trace.shard) {
      const appended = { shard: trace.shard, tenantId: owner.tenantId, operationId: owner.operationId, source: `schedule:${owner.operationId}` };
      await Promise.all(this.eventsListeners.map((listener) => listener(this.env, appended)));
    }
  }

  /** What a scheduled change runs with: the tenant's current shard, acting as "schedule". */
  private async scheduleContext(owner: ScheduleOwner, trace: RequestTrace): Promise<CommandContext> {
    const placement = await readPlacement({ nearest: primaryDb(this.env, "CONTROL") }, owner.tenantId);
    if (!placement) throw new Error(`tenant ${owner.tenantId} is not in the tenant directory`);
    if (placement.state === "MOVING") throw new TenantMoving();
    const principal: Principal = {
      tenantId: owner.tenantId,
      role: "OPERATOR",
      userId: null,
      keyId: "schedule",
      tenantDefaultLocale: placement.defaultLocale,
      shard: placement.shard,
    };
    trace.shard = placement.shard;
    return {
      db: openDb(this.env, placement.shard, "first-primary", trace),
      archive: this.env.HISTORY_ARCHIVE,
      principal,
      operationId: owner.operationId,
      author: { actor: "schedule", keyId: null, requestId: trace.requestId, reason: null },
    };
  }

  /** `context`: the one the attempt ran with, reused to record a give-up (none: building it is what failed). */
  private async failedAttempt(owner: ScheduleOwner, error: unknown, trace: RequestTrace, now: number, context?: CommandContext): Promise<void> {
    // A retry waits from the attempt's end (a slow failure is not tried again at once), or from the
    // time rung as when that is later.
    const retryFrom = Math.max(now, Date.now());
    if (error instanceof TenantMoving || isTenantMovingFailure(error)) {
      // A move's fence holds the tenant's writes for at most 2 s: the change runs right after, on the
      // shard the directory then names (no failure counted). Should the fence outlast it, it rings again.
      await this.ctx.storage.setAlarm(retryFrom + SCHEDULE_FENCE_RETRY_MS);
      return;
    }
    const failures = ((await this.ctx.storage.get<number>(FAILED_ATTEMPTS)) ?? 0) + 1;
    if (failures < SCHEDULE_MAX_ATTEMPTS) {
      await this.ctx.storage.put(FAILED_ATTEMPTS, failures);
      await this.ctx.storage.setAlarm(retryFrom + scheduleRetryDelayMs(failures));
      return;
    }
    const reason = `The scheduled change failed ${failures} times; the last error: ${error instanceof Error ? error.message : String(error)}`;
    try {
      await this.arm(owner, await giveUpScheduledChange(context ?? (await this.scheduleContext(owner, trace)), reason, toIsoSeconds(now)));
    } catch {
      // Not even the failure could be recorded: the alarm stops. The sweep arms it again (once a minute
      // at most), and each of those rings tries the change once and then to give it up.
      await this.ctx.storage.put(FAILED_ATTEMPTS, failures);
      await this.ctx.storage.deleteAlarm();
    }
  }

  private async armSchedule(principal: Principal, operationId: string): Promise<void> {
    const db = openDb(this.env, principal.shard, "first-primary", newTrace());
    await this.arm({ tenantId: principal.tenantId, operationId }, await findOperation(db, principal.tenantId, operationId));
  }

  /** The alarm at the row's next scheduled time; none (and nothing stored) when it has none or is gone. The count of failures starts over unless kept. */
  private async arm(owner: ScheduleOwner, row: Parameters<typeof nextScheduledTime>[0] | undefined, { keepFailures = false } = {}): Promise<void> {
    const next = row ? nextScheduledTime(row) : null;
    if (!keepFailures || next === null) await this.ctx.storage.delete(FAILED_ATTEMPTS);
    if (next === null) {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.delete(SCHEDULE_OWNER);
      return;
    }
    await this.ctx.storage.put(SCHEDULE_OWNER, owner);
    await this.ctx.storage.setAlarm(Date.parse(next));
  }

  private async run(principal: Principal, operationId: string, name: string, input: unknown, request: CommandRequest): Promise<CommandOutcome<unknown>> {
    // Commands read and write on the primary of the tenant's shard (the Worker names it from the
    // tenant directory): what they check is the latest state.
    const trace = newTrace();
    const ctx: CommandContext = {
      db: openDb(this.env, principal.shard, "first-primary", trace),
      archive: this.env.HISTORY_ARCHIVE,
      principal,
      operationId,
      author: authorOf(principal, request),
    };
    // What the request gets back beside the result: its D1 calls, and whether the command's batch appended events.
    const done = () => ({
      d1: { roundTrips: trace.d1RoundTrips, sequentialRoundTrips: trace.d1SequentialRoundTrips, bookmark: trace.bookmark },
      eventsAppended: trace.eventsAppended,
    });
    try {
      const command = this.commands.get(name);
      if (!command) throw new Error(`No command is named ${name}.`);
      return { ok: true, value: await command.run(ctx, input), ...done() };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, problem: error.problem, ...done() };
      if (isTenantMovingFailure(error)) return { ok: false, problem: tenantMovingError().problem, ...done() };
      return { ok: false, failure: { message: String(error), stack: (error as Error)?.stack }, ...done() };
    }
  }
}
