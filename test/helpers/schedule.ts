// Scheduled status changes as tests see them: the Operation's Durable Object, its alarm and storage.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, vi } from "vitest";
import { eventsOf, type Caller } from "./client";

export interface OperationEvent {
  type: string;
  actor: string;
  operationId: string | null;
  data: Record<string, unknown>;
}

export const stubOf = (operationId: string) => env.OPERATION_COORDINATOR.get(env.OPERATION_COORDINATOR.idFromName(operationId));
/** The object's alarm, read inside it (epoch ms; null: none). */
export const alarmOf = (operationId: string) => runInDurableObject(stubOf(operationId), (_instance, state) => state.storage.getAlarm());
/** What the object keeps in its storage, read inside it. */
export const storedOf = (operationId: string) =>
  runInDurableObject(stubOf(operationId), async (_instance, state) => Object.fromEntries(await state.storage.list()));
export const storedKeys = async (operationId: string) => Object.keys(await storedOf(operationId)).length;
/** Runs the object's alarm handler as the runtime would, whether or not an alarm is set. */
export const runAlarmHandler = (operationId: string) =>
  runInDurableObject(stubOf(operationId), (instance) => (instance as unknown as { alarm(): Promise<void> }).alarm());

/** An ISO time `seconds` from now, to the second (as the API stores it). */
export const inSeconds = (seconds: number) => new Date(Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A time far enough ahead that no alarm set for it rings on its own while a test runs: tests move the clock there instead (travelTo). */
export const later = (seconds = 3600) => inSeconds(seconds);

/**
 * Moves this isolate's clock (Date.now, which the Worker and its objects read) so that it reads just
 * past `time` now, and keeps it ticking from there: a schedule's time comes without waiting for it.
 * Returns the way back; vi.restoreAllMocks() undoes it too.
 */
export function travelTo(time: string): () => void {
  const realNow = Date.now.bind(Date);
  const offset = Date.parse(time) + 50 - realNow();
  const clock = vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset);
  return () => clock.mockRestore();
}

/** Runs the object's alarm as at `time`: the clock is moved there for the alarm, not waited for. */
export async function runScheduleAt(operationId: string, time: string) {
  const clock = vi.spyOn(Date, "now").mockReturnValue(Date.parse(time) + 50);
  try {
    expect(await runDurableObjectAlarm(stubOf(operationId)), "an alarm was set").toBe(true);
  } finally {
    clock.mockRestore();
  }
}

export const operationEvents = async (op: Caller, operationId: string) =>
  ((await eventsOf(op)) as OperationEvent[]).filter((event) => event.operationId === operationId);
