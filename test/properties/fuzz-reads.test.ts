// Random query strings, ids, methods, paths and credentials at the read routes and /v1/events;
// reads never change anything (see fuzz-kit.ts).
import fc from "fast-check";
import { beforeAll, describe, it } from "vitest";
import type { Caller } from "../helpers/client";
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
  type World,
} from "./fuzz-kit";

let world: World;
beforeAll(async () => {
  world = await setupWorld();
});

describe("random input at the read routes", () => {
  it("GET /v1/operations", async () => {
    const seen = outcomes();
    await fc.assert(
      fc.asyncProperty(callerIn(world), queryString, headers, async (who, query, extra) => {
        seen.record(await checkRequest(world, () => send(who, "GET", "/v1/operations", query, { none: true }, extra), false));
      }),
      settings,
    );
    seen.expectSome((s) => s === 200, "a 200");
    seen.expectSome((s) => s === 400, "a 400");
  });

  it("GET /v1/operations/:id", async () => {
    await fc.assert(
      fc.asyncProperty(callerIn(world), operationIdIn(world), queryString, async (who, id, query) => {
        await checkRequest(world, () => send(who, "GET", `/v1/operations/${encodeSegment(id)}`, query, { none: true }, {}), false);
      }),
      settings,
    );
  });

  it("GET /v1/events", async () => {
    await fc.assert(
      fc.asyncProperty(callerIn(world), queryString, async (who, query) => {
        await checkRequest(world, () => send(who, "GET", "/v1/events", query, { none: true }, {}), false);
      }),
      settings,
    );
  });

  it("random methods, paths and credentials", async () => {
    const path = fc.oneof(
      fc.constantFrom("/v1/operations", "/v1/operations/", "/v1/operations//status", "/v1/events/", "/v1/", "/v1", "/v1/openapi.json"),
      fc.webPath().map((p) => `/v1${p.startsWith("/") ? p : `/${p}`}`),
    );
    const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
    const who = fc.oneof(
      callerIn(world),
      fc.constant(null),
      fc.constantFrom("ACCOUNT", "OPERATOR").map((role) => ({ tenantId: "t", role, key: "sk_bad" }) as Caller),
    );
    await fc.assert(
      fc.asyncProperty(who, method, path, body(anyJson), headers, async (person, verb, target, sent, extra) => {
        const sentBody = verb === "GET" ? ({ none: true } as const) : sent;
        await checkRequest(world, () => send(person as Caller, verb, target, "", sentBody, extra), verb !== "GET");
      }),
      settings,
    );
  });
});
