import { describe, expect, it } from "vitest";
import { call, createOperation, expectStatus, newTenant, readOperation, setStatus, type Caller } from "../helpers/client";
import { alarmOf, later, operationEvents, runAlarmHandler, runScheduleAt, type OperationEvent } from "../helpers/schedule";

interface Schedule {
  activateAt: string | null;
  deactivateAt: string | null;
}
interface State {
  status: string;
  schedule: Schedule;
}
/** One of the racing calls: how it is sent, and what it does to the Operation when it runs alone (the reference). */
interface RacingCall {
  name: string;
  send: (op: Caller, operationId: string) => ReturnType<typeof call>;
  apply: (state: State) => { state: State; event: [string, unknown] };
}

function schedulePatch(name: string, schedule: Partial<Schedule>): RacingCall {
  return {
    name,
    send: (op, operationId) => call(op, "PATCH", `/v1/operations/${operationId}`, { body: { schedule } }),
    apply: (state) => {
      const merged = { ...state.schedule, ...schedule };
      const changed = (["activateAt", "deactivateAt"] as const).filter((field) => merged[field] !== state.schedule[field]);
      return { state: { ...state, schedule: merged }, event: ["operation.updated", changed] };
    },
  };
}

const manualStatus = (status: string): RacingCall => ({
  name: `status ${status}`,
  send: (op, operationId) => setStatus(op, operationId, status),
  apply: (state) => ({ state: { ...state, status }, event: ["operation.status_changed", `${state.status}→${status}`] }),
});

const permutations = <T>(items: T[]): T[][] =>
  items.length <= 1 ? [items] : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));

/** What the events say a call did, in the reference's terms. */
const eventFigure = (event: OperationEvent): [string, unknown] =>
  event.type === "operation.updated" ? [event.type, event.data.changed] : [event.type, `${event.data.from}→${event.data.to}`];

const earliest = (schedule: Schedule) => [schedule.activateAt, schedule.deactivateAt].filter((time): time is string => time !== null).sort()[0];

describe("two schedule changes racing a manual status change", () => {
  it("end as one serial order would leave them, the alarm armed for the schedule last written, and the run after the manual change obeys the rules once", async () => {
    const op = await newTenant();
    // An hour ahead, run by moving the clock (runScheduleAt): no alarm rings on its own while the calls race.
    const activateFirst = later(3600);
    const activateSecond = later(3601);
    const deactivate = later(7200);
    const calls = [
      schedulePatch("schedule activateAt", { activateAt: activateFirst }),
      schedulePatch("schedule both", { activateAt: activateSecond, deactivateAt: deactivate }),
      // DRAFT → INACTIVE needs no line; the scheduled INACTIVE → ACTIVE does, and there is none.
      manualStatus("INACTIVE"),
    ];
    const start: State = { status: "DRAFT", schedule: { activateAt: null, deactivateAt: null } };
    const serialOutcomes = permutations(calls).map((order) => {
      let state = start;
      const events: [string, unknown][] = [];
      for (const racing of order) {
        const step = racing.apply(state);
        state = step.state;
        events.push(step.event);
      }
      return { order: order.map((racing) => racing.name), state, events };
    });

    // Three Operations, each raced with the calls sent in another order.
    const rounds = await Promise.all(
      [0, 1, 2].map(async (rotation) => {
        const operation = await createOperation(op);
        const sent = [...calls.slice(rotation), ...calls.slice(0, rotation)];
        const answers = await Promise.all(sent.map((racing) => racing.send(op, operation.id)));
        for (const answer of answers) expectStatus(answer, 200);
        return operation;
      }),
    );

    const finalSchedules = new Map<string, Schedule>();
    for (const operation of rounds) {
      const after = await readOperation(op, operation.id);
      const events = (await operationEvents(op, operation.id)).filter((event) => event.type !== "operation.created");
      const matching = serialOutcomes.filter((outcome) => JSON.stringify(outcome.events) === JSON.stringify(events.map(eventFigure)));
      // The events name exactly one serial order, and the Operation is what that order leaves.
      expect(matching).toHaveLength(1);
      const [serial] = matching;
      expect({ status: after.status, schedule: after.schedule }).toEqual(serial.state);
      expect(after.version).toBe(operation.version + 3);
      expect(events.map((event) => event.actor).every((actor) => actor.startsWith("key:"))).toBe(true);
      // The alarm, read inside the object, is at the earliest time of the schedule last written.
      expect(await alarmOf(operation.id)).toBe(Date.parse(earliest(serial.state.schedule)));
      finalSchedules.set(operation.id, serial.state.schedule);
    }

    for (const operation of rounds) {
      const scheduled = { version: operation.version + 3 };
      const { activateAt } = finalSchedules.get(operation.id)!;
      await runScheduleAt(operation.id, activateAt!);
      // The manual change came first in time: the scheduled INACTIVE → ACTIVE meets the same rules, and they refuse it.
      const after = await readOperation(op, operation.id);
      expect(after.status).toBe("INACTIVE");
      expect(after.version).toBe(scheduled.version + 1);
      expect(after.schedule).toEqual({ activateAt: null, deactivateAt: deactivate });
      expect(await alarmOf(operation.id)).toBe(Date.parse(deactivate));
      // Never twice: the handler running again (a duplicate ring) finds nothing due.
      await runAlarmHandler(operation.id);
      expect((await readOperation(op, operation.id)).version).toBe(after.version);
      const scheduleEvents = (await operationEvents(op, operation.id)).filter((event) => event.actor === "schedule");
      expect(scheduleEvents).toHaveLength(1);
      expect(scheduleEvents[0]).toMatchObject({
        type: "operation.schedule_failed",
        data: { from: "INACTIVE", to: "ACTIVE", scheduledAt: activateAt },
      });
      expect(String(scheduleEvents[0].data.reason)).toContain("at least one line");
    }
  });
});
