import { createExecutionContext, env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import benchWorker from "../../bench/worker/index";
import { call, callRoute, createOperation, expectProblem, newTenant } from "../helpers/client";
import { servedDocument } from "../helpers/openapi";
import { routes } from "../helpers/routes";

/*
 * The bench's baselines live in the bench's own Worker entry (bench/worker/index.ts); the production
 * entry never imports them, so neither the deployed bundle nor the served API has them.
 */
describe("bench routes stay out of production", () => {
  it("the bundle `wrangler deploy` would upload holds no bench code or route", () => {
    const bundle = env.PRODUCTION_BUNDLE;
    expect(bundle).toContain("/v1/buying-policies/quotas/evaluate"); // it is the real bundle
    expect(bundle).not.toContain("__bench");
    expect(bundle).not.toContain("mountBenchRoutes");
  });

  it("the served API answers 404 not_found to the /v1 baselines", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectProblem(await call(op, "GET", "/v1/__bench/constant"), 404, "not_found");
    const upsert = await call(op, "PUT", `/v1/__bench/raw-upsert/${operation.id}`, {
      body: [{ variantExternalId: "SKU-1", minQuantity: 1, maxQuantity: 2 }],
    });
    expectProblem(upsert, 404, "not_found");
    expect((await callRoute(op, routes.getOperation, { params: { operationId: operation.id } })).body.lineCount).toBe(0);
  });

  it("the served API answers 404 to the unauthenticated tenant and key factories", async () => {
    for (const path of ["/__bench/tenants", "/__bench/keys"]) {
      const response = await SELF.fetch(`http://api.test${path}`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
      expect(response.status).toBe(404);
      expect((await response.json<{ code: string }>()).code).toBe("not_found");
    }
  });

  it("keeps the baselines out of the OpenAPI document", async () => {
    const op = await newTenant();
    const document = await servedDocument(op);
    expect(Object.keys(document.paths).some((path) => path.includes("__bench"))).toBe(false);
  });

  it("the bench's own entry serves the same API plus the baselines", async () => {
    const fetchBench = (path: string, init?: RequestInit) =>
      benchWorker.fetch(new Request(`http://bench.test${path}`, init) as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
    const tenant = await fetchBench("/__bench/tenants", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(tenant.status).toBe(201);
    const { tenantId, operatorKey } = await tenant.json<{ tenantId: string; operatorKey: string }>();
    const headers = { "svc-client": "OPERATOR", "svc-api-key": operatorKey };
    const constant = await fetchBench("/v1/__bench/constant", { headers });
    expect(await constant.json()).toEqual({ ok: true, tenantId });
    expect((await fetchBench("/v1/operations", { headers })).status).toBe(200);
  });
});
