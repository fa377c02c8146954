import { describe, expect, it } from "vitest";
import { call, createOperation, expectProblem, expectStatus, newTenant } from "../helpers/client";

describe("smoke", () => {
  it("creates and reads an operation", async () => {
    const op = await newTenant();
    const created = await createOperation(op);
    expect(created.status).toBe("DRAFT");
    const read = await call(op, "GET", `/v1/operations/${created.id}`);
    expectStatus(read, 200);
    expect(read.headers.get("etag")).toBe('"1"');
    const list = await call(op, "GET", "/v1/operations");
    expect(list.body.items.map((o: any) => o.id)).toEqual([created.id]);
    const patched = await call(op, "PATCH", `/v1/operations/${created.id}`, { body: { name: { de: "Frühling" } } });
    expectStatus(patched, 200);
    expect(patched.body.name).toEqual({ en: "Spring 2027", fr: "Printemps 2027", de: "Frühling" });
    expectProblem(await call(op, "POST", `/v1/operations/${created.id}/status`, { body: { status: "ACTIVE" } }), 409, "invalid_transition");
    expectStatus(await call(op, "DELETE", `/v1/operations/${created.id}`), 204);
    expectProblem(await call(op, "GET", `/v1/operations/${created.id}`), 404, "not_found");
  });
});
