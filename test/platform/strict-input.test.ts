import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { call, callRoute, createOperation, expectProblem, expectStatus, newTenant, operationBody } from "../helpers/client";
import { routes } from "../helpers/routes";

/*
 * Input that a lenient parser would take: numbers in other notations, control characters in
 * identifiers, over-long keys. Each answers 400 validation_failed and stores nothing.
 */
const NOT_DECIMAL = ["0x10", "1e2", "10.0", "+5", " 5", "-1", "5 ", "", "１０"];
/** Query parameters a list requires besides its page. */
const REQUIRED_QUERY: Record<string, Record<string, string>> = { "/v1/operations/:operationId/diff": { from: "1" } };
const listRoutes = apiRoutes.filter((route) => route.spec.method === "get" && route.spec.query?.shape && "limit" in route.spec.query.shape);

describe("query integers are decimal digits only", () => {
  it("covers every list route", () => {
    expect(listRoutes.length).toBeGreaterThanOrEqual(8);
  });

  for (const { spec } of listRoutes) {
    it(`${spec.path}: limit in another notation answers 400, digits work`, async () => {
      const op = await newTenant();
      const operation = await createOperation(op);
      const path = spec.path.replace(/:operationId/, operation.id);
      for (const limit of NOT_DECIMAL) {
        const problem = expectProblem(await call(op, "GET", path, { query: { ...REQUIRED_QUERY[spec.path], limit } }), 400, "validation_failed");
        expect(problem.errors?.map((error) => error.field)).toContain("query.limit");
      }
      const ok = await call(op, "GET", path, { query: { ...REQUIRED_QUERY[spec.path], limit: "10" } });
      expect(ok.status).not.toBe(400);
    });
  }

  it("quantity filters of the lines list take digits only", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    for (const value of ["1e0", "0x1", "1.0"]) {
      expectProblem(await callRoute(op, routes.listLines, { params: { operationId: operation.id }, query: { minQuantity: value } }), 400, "validation_failed");
    }
    expectStatus(await callRoute(op, routes.listLines, { params: { operationId: operation.id }, query: { minQuantity: "1" } }), 200);
  });
});

describe("identifiers and codes", () => {
  it("refuse control characters and more than 128 characters, and store nothing", async () => {
    const op = await newTenant();
    for (const code of ["A\u0000B", "A\nB", "A\u0007", "\u001b[31mred", "x".repeat(129)]) {
      expectProblem(await callRoute(op, routes.createOperation, { body: operationBody({ code }) }), 400, "validation_failed");
    }
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items).toHaveLength(0);
    expectStatus(await callRoute(op, routes.createOperation, { body: operationBody({ code: "x".repeat(128) }) }), 201);

    const operation = await createOperation(op);
    for (const variantExternalId of ["SKU\u00001", "SKU\t1", "y".repeat(129)]) {
      expectProblem(
        await callRoute(op, routes.putLines, { params: { operationId: operation.id }, body: [{ variantExternalId, minQuantity: 0, maxQuantity: 1 }] }),
        400,
        "validation_failed",
      );
    }
    for (const accountId of ["ACC\u0000", "AC\rC"]) {
      expectProblem(await callRoute(op, routes.putDirectory, { body: [{ accountId, name: "x" }] }), 400, "validation_failed");
    }
    expectProblem(await callRoute(op, routes.getOperation, { params: { operationId: "op_%00x" } }), 400, "validation_failed");
  });
});
