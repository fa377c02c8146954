import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SCHEDULE_OVERDUE_AFTER_MS, sweepSchedules } from "../../src/operations/coordinator/schedule-sweep";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { callRoute, expectProblem, expectStatus, newTenant, operationBody, uniqueId, withoutRequestId } from "../helpers/client";
import { failingD1 } from "../helpers/recording-bindings";
import { routes } from "../helpers/routes";
import { alarmOf, inSeconds } from "../helpers/schedule";
import { shardOf } from "../helpers/shards";

/*
 * Nothing that runs after a write has committed may turn its answer into a 5xx: the change is made,
 * and a 500 would tell the client to retry a write that already happened (a retry of a create then
 * meets its own code: 409 duplicate_code). Each step after a commit (platform/core/after-commit.ts, listed
 * in docs/architecture.md) is made to fail for real here: the answer stands, the failure is logged,
 * and what repairs it does.
 */

let errorLog: ReturnType<typeof vi.spyOn> | undefined;
afterEach(() => {
  errorLog?.mockRestore();
  vi.restoreAllMocks();
});

/** What the request logged as failing after its commit (console.error lines of logFailure). */
interface LoggedFailure {
  requestId: string;
  where: string;
  error: string;
}
function failuresAfterCommit(): LoggedFailure[] {
  return (errorLog?.mock.calls ?? [])
    .map((args: unknown[]) => JSON.parse(String(args[0])) as LoggedFailure)
    .filter((line: LoggedFailure) => line.where.startsWith("after commit:"));
}

/** The Operations' Durable Objects, unreachable: every call to one fails, as a lost connection would. */
const unreachableCoordinator = {
  idFromName: (name: string) => env.OPERATION_COORDINATOR.idFromName(name),
  get: () => ({
    syncSchedule: async () => {
      throw new Error("Durable Object unreachable (injected)");
    },
  }),
} as unknown as typeof env.OPERATION_COORDINATOR;

describe("a step after the commit fails: the answer stands", () => {
  it("creating an Operation whose schedule cannot be armed answers 201 (replayed as such); the schedule sweep arms it", async () => {
    errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const op = await newTenant();
    const activateAt = inSeconds(3600);
    const request = { body: operationBody({ schedule: { activateAt } }), headers: { "Idempotency-Key": uniqueId("idem") } };
    const created = await callRoute(op, routes.createOperation, { ...request, env: { OPERATION_COORDINATOR: unreachableCoordinator } });
    const operation = expectStatus(created, 201);
    expect(operation.schedule).toEqual({ activateAt, deactivateAt: null });
    expect(failuresAfterCommit()).toEqual([
      expect.objectContaining({ requestId: created.headers.get("x-request-id"), error: "Error: Durable Object unreachable (injected)" }),
    ]);
    expect(await alarmOf(operation.id)).toBeNull();

    // The retry a client makes gets the answer it missed, not 409 duplicate_code.
    const replay = await callRoute(op, routes.createOperation, request);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(withoutRequestId(replay.body)).toEqual(withoutRequestId(operation));
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items.map((item) => item.id)).toEqual([operation.id]);

    // Once the time is overdue, the every-minute sweep arms the object from D1.
    await sweepSchedules(env, Date.parse(activateAt) + SCHEDULE_OVERDUE_AFTER_MS + 1_000);
    expect(await alarmOf(operation.id)).toBe(Date.parse(activateAt));
  });

  it("recording the answer of an Idempotency-Key fails: the 201 stands; a replay meets the claim, never a 5xx", async () => {
    errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const op = await newTenant();
    const shard = await shardOf(op.tenantId);
    const request = { body: operationBody(), headers: { "Idempotency-Key": uniqueId("idem") } };
    const created = await callRoute(op, routes.createOperation, { ...request, env: { [shard]: failingD1(env[shard], /^update "idempotency_keys"/) } });
    const operation = expectStatus(created, 201);
    expect(failuresAfterCommit()).toEqual([expect.objectContaining({ requestId: created.headers.get("x-request-id") })]);
    expect(failuresAfterCommit()[0].where).toContain("Idempotency-Key");
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items.map((item) => item.id)).toEqual([operation.id]);
    // The claim stays until it is taken over (60 s): meanwhile a replay is told to wait.
    expectProblem(await callRoute(op, routes.createOperation, request), 409, "idempotency_in_progress");
  });

  it("a rule write whose hand-over to the isolate's rule index fails answers 201, and the next evaluation reads the rule", async () => {
    errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const op = await newTenant();
    const order = { orders: [{ accountId: "A-1", amount: 100 }] };
    // The index of the tenant is in this isolate's cache before the write.
    expect(expectStatus(await callRoute(op, routes.evaluateQuotas, { body: order }), 200).results[0].effectiveMinimum).toBe(0);
    vi.spyOn(ruleIndexCache, "applyWrite").mockImplementation(() => {
      throw new Error("rule index update failed (injected)");
    });
    const rule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A-1", minimum: 500 } }), 201);
    expect(failuresAfterCommit()).toEqual([expect.objectContaining({ error: "Error: rule index update failed (injected)" })]);
    const evaluation = expectStatus(await callRoute(op, routes.evaluateQuotas, { body: order }), 200);
    expect(evaluation.results[0]).toMatchObject({ effectiveMinimum: 500, source: { kind: "ACCOUNT", ruleId: rule.id } });
  });
});
