import { describe, expect, it } from "vitest";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { call, expectProblem, expectStatus, newTenant, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";

const EVALUATE = "/v1/buying-policies/quotas/evaluate";
const body = { orders: [{ accountId: "acc-1", amount: 100 }] };

/** A limiter that answers `success` after `ms`, noting whether the evaluation had started its rule read by then. */
function slowLimiter(success: boolean, ms = 150) {
  const seen = { calls: 0, loadsWhenAnswered: [] as number[] };
  const limiter = {
    limit: async () => {
      seen.calls++;
      await new Promise((resolve) => setTimeout(resolve, ms));
      seen.loadsWhenAnswered.push(ruleIndexCache.stats.loads);
      return { success };
    },
  };
  return { limiter, seen };
}

describe("evaluate checks its rate limit alongside the evaluation (it only reads)", () => {
  it("starts the evaluation while the limiter answers", async () => {
    const op = await newTenant();
    const { limiter, seen } = slowLimiter(true);
    const loads = ruleIndexCache.stats.loads;
    expectStatus(await call(op, "POST", EVALUATE, { body, env: { RATE_LIMIT_EVALUATE: limiter as unknown as RateLimit } }), 200);
    expect(seen.calls).toBe(1);
    expect(seen.loadsWhenAnswered[0]).toBeGreaterThan(loads); // the new tenant's rules were being read before the verdict
  });

  it("answers 429 when the limiter refuses, whatever the evaluation gave, bad input included", async () => {
    const op = await newTenant();
    const { limiter } = slowLimiter(false);
    const bindings = { RATE_LIMIT_EVALUATE: limiter as unknown as RateLimit };
    expectProblem(await callRoute(op, routes.evaluateQuotas, { body, env: bindings }), 429, "rate_limited");
    expectProblem(await call(op, "POST", EVALUATE, { rawBody: "not json", env: bindings }), 429, "rate_limited");
    expectProblem(await callRoute(op, routes.evaluateQuotas, { query: { explain: "true" }, body, env: bindings }), 429, "rate_limited");
  });

  it("waits for the verdict first when the call carries an Idempotency-Key (its answer would be stored)", async () => {
    const op = await newTenant();
    const { limiter, seen } = slowLimiter(true);
    const loads = ruleIndexCache.stats.loads;
    expectStatus(await callRoute(op, routes.evaluateQuotas, { body, headers: { "idempotency-key": `k-${op.tenantId}` }, env: { RATE_LIMIT_EVALUATE: limiter as unknown as RateLimit } }), 200);
    expect(seen.loadsWhenAnswered[0]).toBe(loads);
  });

  it("a limiter that fails answers a problem, never an unchecked result", async () => {
    const op = await newTenant();
    const failing = { limit: async () => Promise.reject(new Error("limiter down")) };
    const response = await callRoute(op, routes.evaluateQuotas, { body, env: { RATE_LIMIT_EVALUATE: failing as unknown as RateLimit } });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
  });
});
