// Scheduled status changes as tests see them: the Operation's Durable Object, its alarm and storage.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
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
export const storedOf = (operationId: string) => runInDurableObject(stubOf(operationId), async (_instance, state) => Object.fromEntries(await state.storage.list()));
export const storedKeys = async (operationId: string) => Object.keys(await storedOf(operationId)).length;
/** Runs the object's alarm handler as the runtime would, whether or not an alarm is set. */
export const runAlarmHandler = (operationId: string) => runInDurableObject(stubOf(operationId), (instance) => (instance as unknown as { alarm(): Promise<void> }).alarm());

/** An ISO time `seconds` from now, to the second (as the API stores it). */
export const inSeconds = (seconds: number) => new Date(Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Waits until `time` has passed, then runs the object's alarm if it has not fired on its own. */
export async function runScheduleAt(operationId: string, time: string) {
  const wait = Date.parse(time) - Date.now() + 50;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  await runDurableObjectAlarm(stubOf(operationId));
}

export const operationEvents = async (op: Caller, operationId: string) => ((await eventsOf(op)) as OperationEvent[]).filter((event) => event.operationId === operationId);
