import { logFailure } from "./errors";

/**
 * Runs a step that follows a committed write and must not change its answer: the change is made, so
 * the answer says so whatever the step does. A failure is logged with the request's id (or what
 * stands for it) and `step`, which names the step and what makes up for it; nothing is thrown.
 * Every such step of the write path goes through here (docs/architecture.md, "After the commit").
 */
export async function afterCommit(requestId: string, step: string, run: () => unknown): Promise<void> {
  try {
    await run();
  } catch (error) {
    logFailure(requestId, `after commit: ${step}`, error);
  }
}
