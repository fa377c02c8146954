import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { version } from "../../package.json";
import { shardNames } from "../../src/platform/core/shards";
import { call, expectProblem, newTenant, callRoute } from "../helpers/client";
import { servedDocument } from "../helpers/openapi";
import { routes } from "../helpers/routes";

/* What a load balancer and a browser page on another origin need (CORS_ORIGINS is set in vitest.config.ts). */
const ALLOWED = "https://admin.example.test";
const fetchFrom = (origin: string, path: string, init: RequestInit = {}) =>
  SELF.fetch(`http://api.test${path}`, { ...init, headers: { origin, ...(init.headers as Record<string, string>) } });

/** A D1 binding that fails on any use: proves a route reads nothing. */
const NO_DATABASE = new Proxy({} as D1Database, {
  get() {
    throw new Error("this route must not touch D1");
  },
});

describe("GET /healthz", () => {
  it("answers ok and the version with no key and no database", async () => {
    const noDatabases = Object.fromEntries(["CONTROL", ...shardNames(env)].map((name) => [name, NO_DATABASE]));
    const response = await call(null, "GET", "/healthz", { env: noDatabases });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok", version });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("GET / points at the docs, the document and the health check", async () => {
    const response = await call(null, "GET", "/");
    expect(response.body).toMatchObject({ docs: "/docs", openapi: "/v1/openapi.json", health: "/healthz", version });
  });
});

describe("CORS for the origins in CORS_ORIGINS", () => {
  it("answers a preflight 204 before any key check, allowing the API's headers", async () => {
    const response = await fetchFrom(ALLOWED, "/v1/operations", {
      method: "OPTIONS",
      headers: { "access-control-request-method": "POST", "access-control-request-headers": "svc-client, svc-api-key, content-type, idempotency-key" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    const allowedHeaders = response.headers.get("access-control-allow-headers")!.toLowerCase().split(", ");
    for (const name of ["svc-client", "svc-api-key", "svc-store", "svc-store-view", "locale", "idempotency-key", "if-match", "x-d1-bookmark", "content-type"]) {
      expect(allowedHeaders).toContain(name);
    }
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE");
    expect(response.headers.get("vary")).toContain("Origin");
  });

  it("gives an origin not listed no CORS header, so the browser refuses it", async () => {
    const preflight = await fetchFrom("https://evil.example.test", "/v1/operations", {
      method: "OPTIONS",
      headers: { "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const op = await newTenant();
    const response = await fetchFrom("https://evil.example.test", "/v1/operations", { headers: { "svc-client": "OPERATOR", "svc-api-key": op.key } });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets a listed origin read answers and problems, with the headers clients need exposed", async () => {
    const op = await newTenant();
    const ok = await fetchFrom(ALLOWED, "/v1/operations", { headers: { "svc-client": "OPERATOR", "svc-api-key": op.key } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    const exposed = ok.headers.get("access-control-expose-headers")!.toLowerCase().split(", ");
    expect(exposed.sort()).toEqual([
      "allow",
      "etag",
      "idempotent-replayed",
      "location",
      "retry-after",
      "svc-dry-run",
      "warning",
      "x-d1-bookmark",
      "x-request-id",
    ]);
    const refused = await fetchFrom(ALLOWED, "/v1/operations");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    await refused.text();
  });

  it("is off when CORS_ORIGINS is empty", async () => {
    const response = await call(null, "OPTIONS", "/v1/operations", {
      headers: { origin: ALLOWED, "access-control-request-method": "GET" },
      env: { CORS_ORIGINS: "" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("the OpenAPI document's server", () => {
  it("is relative, so a viewer calls the instance that served it", async () => {
    const op = await newTenant();
    const doc = await servedDocument(op);
    expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    expectProblem(await callRoute(null, routes.listOperations), 401, "unauthorized");
  });
});
