// Random bodies, ids and headers at the status and DELETE routes (see fuzz-kit.ts).
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { callRoute, expectStatus } from "../helpers/client";
import {
  anyJson,
  body,
  callerIn,
  checkRequest,
  encodeSegment,
  headers,
  operationIdIn,
  outcomes,
  queryString,
  send,
  settings,
  setupWorld,
  statusBody,
  type World,
} from "./fuzz-kit";
import { routes } from "../helpers/routes";

let world: World;
beforeAll(async () => {
  world = await setupWorld();
});

describe("random input at the Operation state routes", () => {
  it("POST /v1/operations/:id/status", async () => {
    const seen = outcomes();
    await fc.assert(
      fc.asyncProperty(callerIn(world), operationIdIn(world), body(statusBody), headers, async (who, id, sent, extra) => {
        seen.record(await checkRequest(world, () => send(who, "POST", `/v1/operations/${encodeSegment(id)}/status`, "", sent, extra), true));
      }),
      settings,
    );
    seen.expectSome((s) => s === 200 || s === 409, "a transition tried on a real Operation");
    seen.expectSome((s) => s === 400, "a 400");
  });

  it("DELETE /v1/operations/:id", async () => {
    const seen = outcomes();
    await fc.assert(
      fc.asyncProperty(
        callerIn(world),
        operationIdIn(world),
        queryString,
        fc.oneof(body(anyJson), fc.constant({ none: true as const })),
        headers,
        async (who, id, query, sent, extra) => {
          // The pool's Operations stay (their plain DELETE is the happy path, tested elsewhere): their If-Match is always stale.
          const ifMatch = world.idPool.includes(id) && who === world.operator ? '"999"' : (extra["If-Match"] ?? '"999"');
          seen.record(
            await checkRequest(world, () => send(who, "DELETE", `/v1/operations/${encodeSegment(id)}`, query, sent, { ...extra, "If-Match": ifMatch }), true),
          );
        },
      ),
      settings,
    );
    seen.expectSome((s) => s === 412 || s === 404, "a refused delete of a real or unknown Operation");
  });

  it("leaves the API answering normally", async () => {
    for (const id of world.idPool.slice(0, 4)) expectStatus(await callRoute(world.operator, routes.getOperation, { params: { operationId: id } }), 200);
    const list = expectStatus(await callRoute(world.operator, routes.listOperations, { query: { limit: 500 } }), 200);
    expect(list.items.length).toBeGreaterThanOrEqual(4);
  });
});
