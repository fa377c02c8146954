import type { Context } from "hono";
import { problemResponseFor, type Problem } from "../core/errors";

/** The problem+json answer of `problem` to the request of `c`, under its requestId. */
export function problemResponse(c: Context, problem: Problem): Response {
  return problemResponseFor(problem, (c.var.requestId as string | undefined) ?? crypto.randomUUID());
}
