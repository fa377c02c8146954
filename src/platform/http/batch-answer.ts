import type { Context } from "hono";
import type { AppBindings } from "./context";

/** Marks the answer of a dry run: what the call would answer, nothing changed. */
export const DRY_RUN_HEADER = "svc-dry-run";

/** How a batch write's 200 documents that header. */
export const DRY_RUN_ANSWER_HEADERS = { [DRY_RUN_HEADER]: "true on a dry run" };

/** A batch write's JSON answer; a dry run's is marked svc-dry-run: true (it is what the call would answer, and nothing changed). */
export function batchAnswer(c: Context<AppBindings>, dryRun: boolean, body: unknown): Response {
  if (dryRun) c.header(DRY_RUN_HEADER, "true");
  return c.json(body as Record<string, unknown>);
}
