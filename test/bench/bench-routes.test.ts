import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createOperation, expectProblem, newTenant } from "../helpers/client";

// vitest.config.ts binds BENCH_ROUTES=off, as production does: the baselines must not exist there.
describe("bench routes when BENCH_ROUTES is not on", () => {
  it("answers 404 not_found to authenticated calls of the /v1 baselines", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    expectProblem(await call(op, "GET", "/v1/__bench/constant"), 404, "not_found");
    const upsert = await call(op, "PUT", `/v1/__bench/raw-upsert/${operation.id}`, {
      body: [{ variantExternalId: "SKU-1", minQuantity: 1, maxQuantity: 2 }],
    });
    expectProblem(upsert, 404, "not_found");
    const lines = await call(op, "GET", `/v1/operations/${operation.id}`);
    expect(lines.body.lineCount).toBe(0);
  });

  it("answers 404 to the unauthenticated tenant and key factories and creates nothing", async () => {
    const tenants = await SELF.fetch("http://api.test/__bench/tenants", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(tenants.status).toBe(404);
    expect((await tenants.json<{ code: string }>()).code).toBe("not_found");
    const keys = await SELF.fetch("http://api.test/__bench/keys", {
      method: "POST",
      body: JSON.stringify({ tenantId: "anything", role: "OPERATOR" }),
      headers: { "content-type": "application/json" },
    });
    expect(keys.status).toBe(404);
  });

  it("keeps the baselines out of the OpenAPI document", async () => {
    const op = await newTenant();
    const document = await call(op, "GET", "/v1/openapi.json");
    expect(Object.keys(document.body.paths).some((path) => path.includes("__bench"))).toBe(false);
  });
});
