import { describe, expect, it, vi } from "vitest";
import { ruleIndexCache } from "../../src/quotas/rule-index-cache";
import { call, expectProblem, expectStatus, newTenant, callRoute } from "../helpers/client";
import { routes } from "../helpers/routes";

const EVALUATE = "/v1/buying-policies/quotas/evaluate";
const body = { orders: [{ accountId: "acc-1", amount: 100 }] };

/**
 * A limiter that answers `success` once `answerWhen` settles (by default after 150 ms: long enough for
 * an evaluation started alongside to have begun its rule read), noting whether it had by then.
 */
function slowLimiter(success: boolean, answerWhen: () => Promise<unknown> = () => new Promise((resolve) => setTimeout(resolve, 150))) {
  const seen = { calls: 0, loadsWhenAnswered: [] as number[] };
  const limiter = {
    limit: async () => {
      seen.calls++;
      await answerWhen();
      seen.loadsWhenAnswered.push(ruleIndexCache.stats.loads);
      return { success };
    },
  };
  return { limiter, seen };
}

describe("evaluate checks its rate limit alongside the evaluation (it only reads)", () => {
  it("starts the evaluation while the limiter answers", async () => {
    const op = await newTenant();
    const loads = ruleIndexCache.stats.loads;
    // The verdict waits for the rule read to start: an evaluation that waited for the verdict first never
    // starts it, so the limiter fails after 5 s and the call does not answer 200.
    const { limiter, seen } = slowLimiter(true, () =>
      vi.waitFor(() => expect(ruleIndexCache.stats.loads).toBeGreaterThan(loads), { timeout: 5_000, interval: 5 }),
    );
    expectStatus(await callRoute(op, routes.evaluateQuotas, { body, env: { RATE_LIMIT_EVALUATE: limiter as unknown as RateLimit } }), 200);
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

  it("checks alongside even when the call carries an Idempotency-Key: a read stores no answer", async () => {
    const op = await newTenant();
    const loads = ruleIndexCache.stats.loads;
    const { limiter, seen } = slowLimiter(true, () =>
      vi.waitFor(() => expect(ruleIndexCache.stats.loads).toBeGreaterThan(loads), { timeout: 5_000, interval: 5 }),
    );
    expectStatus(
      await callRoute(op, routes.evaluateQuotas, {
        body,
        headers: { "idempotency-key": `k-${op.tenantId}` },
        env: { RATE_LIMIT_EVALUATE: limiter as unknown as RateLimit },
      }),
      200,
    );
    expect(seen.loadsWhenAnswered[0]).toBeGreaterThan(loads);
  });

  it("a limiter that fails answers a problem, never an unchecked result", async () => {
    const op = await newTenant();
    const failing = { limit: async () => Promise.reject(new Error("limiter down")) };
    const response = await callRoute(op, routes.evaluateQuotas, { body, env: { RATE_LIMIT_EVALUATE: failing as unknown as RateLimit } });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
  });
});
