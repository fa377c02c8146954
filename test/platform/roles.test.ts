import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { call, expectProblem, issueKey, newTenant } from "../helpers/client";

/*
 * Driven by the list of registered routes, so a new route is checked the day it is added: an
 * ACCOUNT key on a route it may not call answers 403 forbidden, whatever it sends (no body, a body
 * that is not JSON, a body of the wrong type, query parameters that are not valid).
 */
const operatorOnly = apiRoutes.filter((route) => !route.spec.roles.includes("ACCOUNT"));
const concretePath = (path: string) => path.replace(/:([A-Za-z]+)/g, "x_$1");

describe("roles, for every registered route", () => {
  it("lists OPERATOR-only routes of every kind", () => {
    expect(operatorOnly.length).toBeGreaterThan(10);
    expect(new Set(operatorOnly.map((route) => route.spec.method))).toEqual(new Set(["get", "post", "put", "patch", "delete"]));
  });

  for (const { spec } of operatorOnly) {
    it(`${spec.method.toUpperCase()} ${spec.path}: ACCOUNT answers 403 forbidden whatever the input`, async () => {
      const op = await newTenant();
      const account = await issueKey(op.tenantId, "ACCOUNT", "u_roles");
      const path = concretePath(spec.path);
      const inputs = [
        {},
        { rawBody: "this is not json {", headers: { "content-type": "text/plain" } },
        { body: { unexpected: true }, query: { limit: "-5", explain: "maybe", sort: "nonsense" } },
      ];
      // GET and DELETE without a body still get the bad query; GET may not carry a body at all.
      for (const input of spec.method === "get" ? inputs.map(({ query }) => ({ query })) : inputs) {
        expectProblem(await call(account, spec.method.toUpperCase(), path, input), 403, "forbidden");
      }
    });
  }

  for (const { spec } of apiRoutes.filter((route) => route.spec.operatorOnlyQuery?.length)) {
    it(`${spec.method.toUpperCase()} ${spec.path}: ACCOUNT sending ${spec.operatorOnlyQuery!.join(", ")} answers 403 whatever the body`, async () => {
      const op = await newTenant();
      const account = await issueKey(op.tenantId, "ACCOUNT", "u_roles");
      for (const name of spec.operatorOnlyQuery!) {
        for (const value of ["true", "false", "nonsense"]) {
          const input = spec.method === "get" ? { query: { [name]: value } } : { query: { [name]: value }, rawBody: "not json {" };
          expectProblem(await call(account, spec.method.toUpperCase(), concretePath(spec.path), input), 403, "forbidden");
        }
      }
    });
  }

  it("lets OPERATOR keys past the role check on every route (they answer anything but 403)", async () => {
    const op = await newTenant();
    for (const { spec } of apiRoutes) {
      const response = await call(op, spec.method.toUpperCase(), concretePath(spec.path), {});
      expect([spec.method, spec.path, response.status]).not.toEqual([spec.method, spec.path, 403]);
    }
  });
});
