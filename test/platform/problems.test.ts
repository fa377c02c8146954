import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CATALOGUE, problemBody, type ErrorCode } from "../../src/platform/core/errors";
import { callRoute, expectProblem, newTenant } from "../helpers/client";
import { routes } from "../helpers/routes";
import { accountWithKey, cartBody, line, setUpOperation } from "../helpers/setup";

describe("problem bodies keep RFC 9457's members", () => {
  it("every code of the catalogue answers its own status, whatever its extras say", () => {
    for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
      const hostile = { status: "DRAFT", type: "x", title: "x", detail: "x", instance: 1, code: "other", requestId: "forged", kept: true };
      const body = problemBody(new ApiError(code, "why", hostile).problem, "req-1");
      expect(body).toMatchObject({
        status: ERROR_CATALOGUE[code].status,
        code,
        title: ERROR_CATALOGUE[code].title,
        detail: "why",
        requestId: "req-1",
        kept: true,
      });
      expect(body.type).toBe(`https://errors.example/${code}`);
      expect(body).not.toHaveProperty("instance");
    }
  });

  it("409 operation_not_open says 409 in status and the Operation's state in operationStatus", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { type: "PUBLIC", status: "DRAFT" });
    const { accountId } = await accountWithKey(op);
    const problem = expectProblem(
      await callRoute(op, routes.createCart, { body: cartBody(operation.id, accountId, [line("SKU-A", 1)]) }),
      409,
      "operation_not_open",
    );
    expect(problem.status).toBe(409);
    expect(problem.operationStatus).toBe("DRAFT");
  });
});
