import type { Context } from "hono";
import type { Command, CommandExecutor, CommandOutcome, CommandRequest, Coordinator } from "./protocol";
import type { AppBindings } from "../../platform/http/context";
import type { Env } from "../../platform/core/env";
import { ApiError } from "../../platform/core/errors";
import { idPrefixes, isWellFormedId } from "../../platform/core/ids";
import type { Principal } from "../../platform/core/principal";
import { noteBookmark, type RequestTrace } from "../../platform/data/trace";

/** The Durable Object of an Operation: one per id, named by it. */
export function operationStub(env: Env, operationId: string) {
  // The binding's type names no class (platform knows no Operation): the object's own is CommandExecutor.
  const namespace = env.OPERATION_COORDINATOR as unknown as DurableObjectNamespace<CommandExecutor>;
  return namespace.get(namespace.idFromName(operationId));
}

/** A command that failed unexpectedly inside the Operation's Durable Object; its stack is the object's. */
export class CommandFailed extends Error {
  constructor(name: string, failure: { message: string; stack?: string }) {
    super(`command ${name} failed: ${failure.message}`);
    if (failure.stack) this.stack = `${this.name}: ${this.message}\n  inside the Durable Object: ${failure.stack}`;
  }
}

/** The request's way to its Operations' Durable Objects, on behalf of its principal. */
export function operationCoordinator(c: Context<AppBindings>): Coordinator {
  return coordinatorFor(c.env, c.var.principal, c.var.trace, { requestId: c.var.requestId, reason: c.var.changeReason ?? null });
}

/**
 * A way to Operations' Durable Objects (a request's: `operationCoordinator(c)`): sends a command by
 * name with the caller's principal; a refused command is rethrown as its problem. D1 is the record:
 * an object stores only whom its alarm acts for, and only while its Operation has a scheduled
 * change, so an unknown but well-formed id costs no storage.
 */
export function coordinatorFor(
  env: Env,
  principal: Principal,
  trace: RequestTrace,
  request: CommandRequest = { requestId: trace.requestId, reason: null },
): Coordinator {
  return {
    async run<Input, Output>(operationId: string, command: Command<Input, Output>, input: Input): Promise<Output> {
      // An id no Operation can have is answered here: no Durable Object is started for it.
      if (!isWellFormedId(idPrefixes.operation, operationId)) throw new ApiError("not_found", `Operation ${operationId} not found.`);
      const stub = operationStub(env, operationId);
      const outcome = (await stub.execute(principal, operationId, command.name, input, request)) as CommandOutcome<Output>;
      // The object's D1 calls are the request's too; its bookmark is the write's, for read-your-writes.
      trace.d1RoundTrips += outcome.d1.roundTrips;
      trace.d1SequentialRoundTrips += outcome.d1.sequentialRoundTrips;
      noteBookmark(trace, outcome.d1.bookmark);
      if (outcome.eventsAppended) trace.eventsAppended = true;
      if ("problem" in outcome) throw ApiError.from(outcome.problem);
      if ("failure" in outcome) throw new CommandFailed(command.name, outcome.failure);
      return outcome.value as Output;
    },
    async syncSchedule(operationId: string): Promise<void> {
      await operationStub(env, operationId).syncSchedule(principal, operationId);
    },
  };
}
