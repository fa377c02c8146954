import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { ERROR_CATALOGUE } from "../../src/platform/core/errors";
import { routeWrites } from "../../src/platform/http/routes";
import { call, expectProblem, newTenant } from "../helpers/client";
import { servedDocument } from "../helpers/openapi";

/*
 * The document declares exactly what each route can answer: what its middleware and handler can
 * produce, nothing they cannot. Driven by the registered routes, so a new route is covered too.
 */
async function document() {
  return servedDocument(await newTenant());
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}");

describe("what the OpenAPI document declares", () => {
  it("for every route: 415 exactly with a body, Idempotency-Key and its answers exactly on unsafe methods, 403 exactly when a role can be refused, 429 with its class, 503 tenant_moving exactly on unsafe methods", async () => {
    const doc = await document();
    for (const { spec } of apiRoutes) {
      const operation = doc.paths[openApiPath(spec.path)][spec.method];
      const where = `${spec.method.toUpperCase()} ${spec.path}`;
      const statuses = Object.keys(operation.responses);
      expect(statuses.includes("415"), where).toBe(Boolean(spec.body));
      const writes = routeWrites(spec);
      const idempotencyKey = operation.parameters.find((p: { in: string; name: string }) => p.in === "header" && p.name === "Idempotency-Key");
      expect(Boolean(idempotencyKey) && !idempotencyKey?.deprecated, where).toBe(writes);
      expect((operation.responses["422"]?.description ?? "").includes("idempotency_key_reused"), where).toBe(writes);
      const refusable = !spec.roles.includes("ACCOUNT") || Boolean(spec.operatorOnlyQuery?.length) || spec.errors.includes("forbidden");
      expect((operation.responses["403"]?.description ?? "").includes("forbidden"), where).toBe(refusable);
      expect(statuses.includes("403"), where).toBe(true); // client_mismatch: any key of the other role
      // Every route spends a rate-limit class's budget (its declared class), so every route may answer 429 with Retry-After.
      expect(operation["x-rate-limit-class"], where).toBe(writes ? "write" : (spec.rateLimit ?? "read"));
      expect(operation.responses["429"]?.description, where).toContain("rate_limited");
      // Besides the headers every answer of the route may carry (svc-api-version; a deprecated form's Deprecation, Link, Sunset).
      const shared = (headers: Record<string, { $ref?: string }>) =>
        Object.keys(headers).filter((name) => !headers[name].$ref?.startsWith("#/components/headers/"));
      expect(operation.responses["429"].headers["svc-api-version"], where).toEqual({ $ref: "#/components/headers/ApiVersion" });
      expect(shared(operation.responses["429"].headers), where).toEqual(["Retry-After"]);
      // Anything that may write waits while the tenant's data moves to another shard; reads never do.
      expect((operation.responses["503"]?.description ?? "").includes("tenant_moving"), where).toBe(writes);
      if (writes) expect(shared(operation.responses["503"].headers), where).toEqual(["Retry-After"]);
    }
  });

  it("for every route with secrets shown once: its success answers document the replay's Warning, and each secret says a replay has none", async () => {
    const doc = await document();
    const withSecrets = apiRoutes.filter(({ spec }) => spec.shownOnce);
    expect(withSecrets.map(({ spec }) => spec.operationId).sort()).toEqual(["createKey", "createWebhook"]);
    for (const { spec } of withSecrets) {
      for (const [status, response] of Object.entries(doc.paths[openApiPath(spec.path)][spec.method].responses)) {
        if (!status.startsWith("2")) continue;
        expect(response.headers?.Warning, `${spec.operationId} ${status}`).toBeTruthy();
        const ref = response.content?.["application/json"]?.schema?.$ref ?? "";
        const schema = doc.components.schemas[ref.replace("#/components/schemas/", "")];
        for (const field of spec.shownOnce!.fields) {
          expect(schema.properties?.[field]?.description, `${spec.operationId}: ${field}`).toMatch(/absent from an Idempotency-Key replay/i);
        }
      }
    }
  });

  it("lists no error code that nothing can produce", async () => {
    const doc = await document();
    const declared = new Set<string>();
    for (const path of Object.values(doc.paths) as Record<string, { responses: Record<string, { description: string }> }>[]) {
      for (const operation of Object.values(path)) {
        for (const response of Object.values(operation.responses))
          for (const code of Object.keys(ERROR_CATALOGUE)) if (response.description.includes(`${code}:`)) declared.add(code);
      }
    }
    // method_not_allowed answers a method a path does not take, which no operation of the document can declare.
    const undeclared = Object.keys(ERROR_CATALOGUE).filter((code) => !declared.has(code) && code !== "method_not_allowed");
    expect(undeclared).toEqual([]);
  });
});

describe("a path with a method it does not take", () => {
  it("answers 405 method_not_allowed with Allow; an unknown path answers 404", async () => {
    const op = await newTenant();
    const patch = await call(op, "PATCH", "/v1/operations", { body: {} });
    expect(expectProblem(patch, 405, "method_not_allowed").allowed).toEqual(["GET", "POST"]);
    expect(patch.headers.get("allow")).toBe("GET, POST");
    const evaluate = await call(op, "GET", "/v1/buying-policies/quotas/evaluate");
    expectProblem(evaluate, 405, "method_not_allowed");
    expect(evaluate.headers.get("allow")).toBe("POST");
    expect((await call(op, "PUT", "/v1/operations/op_x/status", { body: {} })).headers.get("allow")).toBe("POST");
    expectProblem(await call(op, "GET", "/v1/nothing-here"), 404, "not_found");
  });
});
