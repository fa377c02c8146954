import type { Context } from "hono";
import { problemResponseFor, type Problem } from "../core/errors";
import type { Principal } from "../core/principal";
import { forgetPlacement } from "../data/tenancy";

/** The problem+json answer of `problem` to the request of `c`, under its requestId. */
export function problemResponse(c: Context, problem: Problem): Response {
  // A move's fence refused the write: the tenant is switching shards, so this isolate reads its placement
  // again on the next request (the retry goes to the new shard, not to the old one's fence for 10 s more).
  const principal = c.var.principal as Principal | undefined;
  if (problem.code === "tenant_moving" && principal) forgetPlacement(principal.tenantId);
  return problemResponseFor(problem, (c.var.requestId as string | undefined) ?? crypto.randomUUID());
}
