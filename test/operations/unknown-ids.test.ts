import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/platform/core/ids";
import { callRoute, expectProblem, newTenant } from "../helpers/client";
import { routes } from "../helpers/routes";

/** Every command route of an Operation, as a caller would send it to an id. */
const commands = (operationId: string) =>
  [
    [routes.changeStatus, { params: { operationId }, body: { status: "ACTIVE" } }],
    [routes.patchOperation, { params: { operationId }, body: { name: { en: "x" } } }],
    [routes.deleteOperation, { params: { operationId } }],
    [routes.putLines, { params: { operationId }, body: [{ variantExternalId: "S", minQuantity: 0, maxQuantity: 1 }] }],
    [routes.deleteLines, { params: { operationId }, body: ["S"] }],
    [routes.attachAccounts, { params: { operationId }, body: ["A1"] }],
    [routes.detachAccounts, { params: { operationId }, body: ["A1"] }],
  ] as const;

const objectNames = async () => new Set((await listDurableObjectIds(env.OPERATION_COORDINATOR)).map((id) => id.toString()));

describe("commands on Operations that do not exist", () => {
  it("answer 404 for an id no Operation can have, without starting its Durable Object", async () => {
    const op = await newTenant();
    for (const malformed of ["nope", "op_123", `op_${"U".repeat(26)}x`, "op_0000000000000000000000000I"]) {
      for (const [route, input] of commands(malformed)) expectProblem(await callRoute(op, route as never, input as never), 404, "not_found");
      expect(await objectNames()).not.toContain(env.OPERATION_COORDINATOR.idFromName(malformed).toString());
    }
  });

  it("answer 404 for a well-formed unknown id, and its object keeps nothing in storage", async () => {
    const op = await newTenant();
    const unknown = newId("op");
    for (const [route, input] of commands(unknown)) expectProblem(await callRoute(op, route as never, input as never), 404, "not_found");
    const stub = env.OPERATION_COORDINATOR.get(env.OPERATION_COORDINATOR.idFromName(unknown));
    const stored = await runInDurableObject(stub, async (_instance, state) => (await state.storage.list()).size);
    expect(stored).toBe(0);
  });
});
