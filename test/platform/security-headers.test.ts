import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DATA_POLICY, PAGE_POLICY } from "../../src/platform/http/security-headers";
import { call, callRoute, createOperation, expectStatus, newTenant, type ApiResponse } from "../helpers/client";
import { routes } from "../helpers/routes";

/*
 * Every answer carries X-Content-Type-Options: nosniff, X-Frame-Options: DENY, Referrer-Policy:
 * no-referrer and a Content-Security-Policy that forbids framing: the API's answers (successes,
 * problems, 404s and 405s, a preflight, a streamed CSV) a policy that lets nothing load, the
 * console's and the reference's a policy with no inline script. (test/node/security-headers.test.mjs
 * shows Chromium enforcing them.)
 */
function expectSecurityHeaders(response: { status: number; headers: Headers }, policy: string, where: string) {
  const headers = Object.fromEntries(
    ["x-content-type-options", "x-frame-options", "referrer-policy", "content-security-policy"].map((name) => [name, response.headers.get(name)]),
  );
  expect(headers, `${where} (${response.status})`).toEqual({
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "content-security-policy": policy,
  });
}

describe("security headers", () => {
  it("on every kind of /v1 answer: successes, problems, unknown paths and methods, a preflight, a streamed export", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const answers: [string, ApiResponse | Response][] = [
      ["a list", await callRoute(op, routes.listOperations)],
      ["a create", await callRoute(op, routes.createKey, { body: { role: "OPERATOR" } })],
      ["a 204", await callRoute(op, routes.deleteOperation, { params: { operationId: operation.id }, headers: { "If-Match": `"${operation.version}"` } })],
      ["no key (401)", await call(null, "GET", "/v1/operations")],
      ["a refused body (400)", await callRoute(op, routes.createOperation, { body: { code: "" } })],
      ["an unknown id (404)", await callRoute(op, routes.getOperation, { params: { operationId: "op_unknown" } })],
      ["an unknown path (404)", await call(op, "GET", "/v1/nothing-here")],
      ["an unknown path outside /v1 (404)", await call(null, "GET", "/nothing-here")],
      ["a method the path does not take (405)", await call(op, "PATCH", "/v1/operations")],
      ["the document", await call(null, "GET", "/v1/openapi.json")],
      ["the health check", await call(null, "GET", "/healthz")],
      ["the index", await call(null, "GET", "/")],
      [
        "a preflight",
        await SELF.fetch("http://api.test/v1/operations", {
          method: "OPTIONS",
          headers: { origin: "https://admin.example.test", "access-control-request-method": "GET" },
        }),
      ],
      [
        "a streamed CSV export",
        await SELF.fetch(
          `http://api.test/v1/operations/${expectStatus(await callRoute(op, routes.createOperation, { body: { code: "CSV-1", name: { en: "Csv" }, type: "PUBLIC", startDate: "2098-01-01T00:00:00Z", endDate: "2098-02-01T00:00:00Z" } }), 201).id}/lines`,
          { headers: { "svc-client": "OPERATOR", "svc-api-key": op.key, accept: "text/csv" } },
        ),
      ],
    ];
    const statuses = answers.map(([, response]) => response.status);
    expect(statuses).toEqual([200, 201, 204, 401, 400, 404, 404, 404, 405, 200, 200, 200, 204, 200]);
    for (const [where, response] of answers) {
      if (response instanceof Response) await response.arrayBuffer();
      expectSecurityHeaders(response, DATA_POLICY, where);
    }
  });

  it("on the reference's and the console's pages and files, with the page policy: no inline script, never framed", async () => {
    for (const path of ["/docs", "/docs/app.js", "/docs/app.css", "/console", "/console/operations/anything", "/console/assets/missing.js"]) {
      const response = await SELF.fetch(`http://api.test${path}`);
      await response.arrayBuffer();
      expectSecurityHeaders(response, PAGE_POLICY, path);
      if (path.startsWith("/docs")) expect(response.status, path).toBe(200);
    }
    expect(PAGE_POLICY).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(PAGE_POLICY).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
    expect(PAGE_POLICY).not.toMatch(/unsafe-(inline|eval)/);
  });
});
