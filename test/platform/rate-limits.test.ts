import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RATE_LIMIT_BINDINGS, RATE_LIMIT_PERIOD_SECONDS } from "../../src/platform/http/rate-limits";
import {
  call,
  callRoute,
  collectPages,
  expectProblem,
  expectStatus,
  issueKey,
  newTenant,
  operationBody,
  type CallOptions,
  type Caller,
} from "../helpers/client";
import { itInOneWindow } from "../helpers/rate-limit-window";
import { routes } from "../helpers/routes";

/*
 * The Worker's real rate limiting with the real binding, swapped for tiny budgets (3 a minute per
 * key and class, vitest.config.ts): the configured ones are too large for a test to exhaust.
 */
const TINY = { RATE_LIMIT_READ: env.TINY_RATE_LIMIT_READ, RATE_LIMIT_WRITE: env.TINY_RATE_LIMIT_WRITE, RATE_LIMIT_EVALUATE: env.TINY_RATE_LIMIT_EVALUATE };
const BUDGET = 3;

const tiny = (caller: Caller, method: string, path: string, options: CallOptions = {}) => call(caller, method, path, { ...options, env: TINY });
const evaluateBody = { orders: [{ accountId: "acc-1", amount: 100 }] };

function expectRateLimited(response: Awaited<ReturnType<typeof call>>, limitClass: string) {
  const problem = expectProblem(response, 429, "rate_limited");
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= RATE_LIMIT_PERIOD_SECONDS).toBe(true);
  expect(problem).toMatchObject({ status: 429, limitClass, retryAfter });
}

describe("rate limits per API key and class", () => {
  // Budgets renew on the minute: each test that spends one runs inside one window (inOneWindow).

  it("holds wrangler.toml to the Worker's assumptions: one binding per class, all with the Worker's period", () => {
    const configured = JSON.parse(env.WRANGLER_RATELIMITS) as { name: string; simple: { limit: number; period: number } }[];
    for (const binding of Object.values(RATE_LIMIT_BINDINGS)) {
      const entry = configured.find((limit) => limit.name === binding);
      expect(entry, binding).toBeDefined();
      expect(entry!.simple.period, binding).toBe(RATE_LIMIT_PERIOD_SECONDS);
      expect(entry!.simple.limit, binding).toBeGreaterThan(BUDGET * 10);
    }
  });

  itInOneWindow("answers 429 rate_limited with Retry-After past the write budget, and the refused write changes nothing", async () => {
    const op = await newTenant();
    for (let i = 0; i < BUDGET; i++) expectStatus(await tiny(op, "POST", "/v1/operations", { body: operationBody() }), 201);
    const refused = await tiny(op, "POST", "/v1/operations", { body: operationBody() });
    expectRateLimited(refused, "write");
    const { items } = await collectPages(op, routes.listOperations);
    expect(items).toHaveLength(BUDGET);
  });

  itInOneWindow("counts each class on its own: reads and evaluations go on when writes are spent", async () => {
    const op = await newTenant();
    for (let i = 0; i < BUDGET; i++) await tiny(op, "POST", "/v1/operations", { body: operationBody() });
    expectRateLimited(await tiny(op, "PATCH", "/v1/operations/op_00000000000000000000000000", { body: {} }), "write");
    for (let i = 0; i < BUDGET; i++) expectStatus(await tiny(op, "GET", "/v1/operations"), 200);
    expectRateLimited(await tiny(op, "GET", "/v1/events"), "read");
    for (let i = 0; i < BUDGET; i++) expectStatus(await tiny(op, "POST", "/v1/buying-policies/quotas/evaluate", { body: evaluateBody }), 200);
    expectRateLimited(await tiny(op, "POST", "/v1/buying-policies/quotas/evaluate", { body: evaluateBody }), "evaluate");
  });

  itInOneWindow("counts per key: another key of the same tenant keeps its own budget", async () => {
    const op = await newTenant();
    const colleague = await issueKey(op.tenantId, "OPERATOR");
    for (let i = 0; i < BUDGET; i++) await tiny(op, "GET", "/v1/operations");
    expectRateLimited(await tiny(op, "GET", "/v1/operations"), "read");
    expectStatus(await tiny(colleague, "GET", "/v1/operations"), 200);
  });

  itInOneWindow("answers 429 before the role check and the body: a spent key learns nothing more", async () => {
    const op = await newTenant();
    const account = await issueKey(op.tenantId, "ACCOUNT", "u_rate");
    for (let i = 0; i < BUDGET; i++) expectProblem(await tiny(account, "POST", "/v1/operations", { rawBody: "not json" }), 403, "forbidden");
    expectRateLimited(await tiny(account, "POST", "/v1/operations", { rawBody: "not json" }), "write");
    expectRateLimited(await tiny(account, "POST", "/v1/operations", { body: operationBody() }), "write");
  });

  itInOneWindow("spends nothing on requests without valid credentials", async () => {
    const op = await newTenant();
    for (let i = 0; i < BUDGET * 2; i++) {
      expectProblem(await tiny({ ...op, key: "sk_not_a_key" }, "GET", "/v1/operations"), 401, "unauthorized");
    }
    expectStatus(await callRoute(op, routes.listOperations, { env: TINY }), 200);
  });
});
