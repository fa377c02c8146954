import { describe, expect, it } from "vitest";
import { callRoute, expectStatus, newTenant, readOperation } from "../helpers/client";
import { routes } from "../helpers/routes";
import { alarmOf, later, operationEvents, runAlarmHandler, runScheduleAt } from "../helpers/schedule";
import { approve, draftOperation, requireApprovals, reviewer } from "./support";

describe("a scheduled activation with approvals on", () => {
  async function scheduled() {
    const op = await newTenant();
    await requireApprovals(op, 1);
    const draft = await draftOperation(op);
    const activateAt = later();
    const operation = expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: draft.id }, body: { schedule: { activateAt } } }), 200);
    return { op, operation, activateAt };
  }

  it("without the approvals it needs: records operation.schedule_failed with reason approval_required, clears its time, and is not retried", async () => {
    const { op, operation, activateAt } = await scheduled();
    await runScheduleAt(operation.id, activateAt);
    const after = await readOperation(op, operation.id);
    expect(after).toMatchObject({ status: "DRAFT", schedule: null });
    const failed = (await operationEvents(op, operation.id)).filter((event) => event.type === "operation.schedule_failed");
    expect(failed).toEqual([
      expect.objectContaining({
        actor: "schedule",
        data: { from: "DRAFT", to: "ACTIVE", scheduledAt: activateAt, reason: "approval_required", approvals: { required: 1, valid: 0, rejected: 0 } },
      }),
    ]);
    // Not retried: no alarm is left, and the handler running again changes nothing.
    expect(await alarmOf(operation.id)).toBeNull();
    await runAlarmHandler(operation.id);
    expect((await readOperation(op, operation.id)).version).toBe(after.version);
    expect((await operationEvents(op, operation.id)).filter((event) => event.type === "operation.schedule_failed")).toHaveLength(1);
  });

  it("with them: becomes ACTIVE at its time", async () => {
    const { op, operation, activateAt } = await scheduled();
    await approve(await reviewer(op), operation.id, operation.version);
    await runScheduleAt(operation.id, activateAt);
    expect(await readOperation(op, operation.id)).toMatchObject({ status: "ACTIVE", version: operation.version + 1, schedule: null });
  });

  it("an approval the author made of their own version does not count there either", async () => {
    const { op, operation, activateAt } = await scheduled();
    await approve(op, operation.id, operation.version);
    await runScheduleAt(operation.id, activateAt);
    expect((await readOperation(op, operation.id)).status).toBe("DRAFT");
    const [failed] = (await operationEvents(op, operation.id)).filter((event) => event.type === "operation.schedule_failed");
    expect(failed.data).toMatchObject({ reason: "approval_required", approvals: { required: 1, valid: 0, rejected: 0 } });
  });
});
