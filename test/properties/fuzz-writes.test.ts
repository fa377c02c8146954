// Random bodies at the Operation create and PATCH routes: never a 500, every 4xx a clean
// problem+json, and a refused request changes nothing (see fuzz-kit.ts).
import fc from "fast-check";
import { beforeEach, describe, it } from "vitest";
import {
  body,
  callerIn,
  checkRequest,
  encodeSegment,
  headers,
  nearOperationBody,
  nearOperationPatch,
  operationIdIn,
  outcomes,
  queryString,
  send,
  settings,
  setupWorld,
  type World,
} from "./fuzz-kit";

// One world per route: a create the first test's interrupted run left in flight must not land in the
// snapshot the second test compares with (it did on a loaded machine).
let world: World;
beforeEach(async () => {
  world = await setupWorld();
});

describe("random input at the Operation write routes", () => {
  it("POST /v1/operations", async () => {
    const seen = outcomes();
    // Query strings are mostly empty here, so valid bodies get through to 201.
    const query = fc.oneof({ weight: 4, arbitrary: fc.constant("") }, { weight: 1, arbitrary: queryString });
    await fc.assert(
      fc.asyncProperty(callerIn(world), body(nearOperationBody), query, headers, async (who, sent, search, extra) => {
        seen.record(await checkRequest(world, () => send(who, "POST", "/v1/operations", search, sent, extra), true));
      }),
      settings,
    );
    seen.expectSome((s) => s === 201, "a created Operation");
    seen.expectSome((s) => s === 400, "a 400");
  });

  it("PATCH /v1/operations/:id", async () => {
    const seen = outcomes();
    await fc.assert(
      fc.asyncProperty(callerIn(world), operationIdIn(world), body(nearOperationPatch), headers, async (who, id, sent, extra) => {
        seen.record(await checkRequest(world, () => send(who, "PATCH", `/v1/operations/${encodeSegment(id)}`, "", sent, extra), true));
      }),
      settings,
    );
    seen.expectSome((s) => s === 200, "a patched Operation");
    seen.expectSome((s) => s >= 400, "a refused patch");
  });
});
