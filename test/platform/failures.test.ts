import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { coordinatorFor } from "../../src/operations/coordinator/runner";
import { defineCommand } from "../../src/operations/coordinator/protocol";
import { newId } from "../../src/platform/core/ids";
import { createApp } from "../../src/platform/http/create-app";
import type { Principal } from "../../src/platform/core/principal";
import { serve } from "../../src/platform/http/serve";

/*
 * Failures outside a route handler's reach: the served Worker must still answer problem+json 500
 * `internal` with x-request-id, and log the failure with its stack. A small app with the same
 * plumbing (createApp + serve) forces each kind of failure for real.
 */

const principal: Principal = { tenantId: "t-failures", role: "OPERATOR", userId: null, keyId: "key-failures", tenantDefaultLocale: "en", shard: "SHARD_1" };

function failingApp() {
  const app = createApp();
  app.get("/stream", () => {
    const body = new ReadableStream({
      pull(controller) {
        controller.error(new Error("the body broke while being read"));
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  app.get("/wait-until", (c) => {
    c.executionCtx.waitUntil(Promise.reject(new Error("background task failed")));
    return c.json({ ok: true });
  });
  // A command the Durable Object does not know: it fails inside the object, not in the Worker.
  const unknownCommand = defineCommand("no-such-command", async () => "never runs");
  app.get("/durable-object", async (c) => c.json(await coordinatorFor(c.env, principal, c.var.trace).run(newId("op"), unknownCommand, {})));
  app.get("/throw", () => {
    throw new TypeError("a bug in a handler");
  });
  return serve(app);
}

async function fetchFailing(path: string) {
  const ctx = createExecutionContext();
  const response = await failingApp()(new Request(`http://api.test${path}`), env, ctx);
  await waitOnExecutionContext(ctx);
  return { response, body: await response.text() };
}

function loggedFailures(spy: ReturnType<typeof vi.spyOn>) {
  return spy.mock.calls.map((args: unknown[]) => JSON.parse(String(args[0])) as { requestId: string; where: string; error: string; stack?: string });
}

describe("failures outside a route answer problem+json", () => {
  let errorLog: ReturnType<typeof vi.spyOn>;
  afterEach(() => errorLog?.mockRestore());

  for (const [path, what] of [
    ["/stream", "a response body that fails while it is read"],
    ["/durable-object", "a command that fails inside the Operation's Durable Object"],
    ["/throw", "an unexpected error in a handler"],
  ] as const) {
    it(`${what}: 500 internal, x-request-id, logged with its stack`, async () => {
      errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const { response, body } = await fetchFailing(path);
      expect(response.status).toBe(500);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const requestId = response.headers.get("x-request-id");
      expect(requestId).toBeTruthy();
      const problem = JSON.parse(body);
      expect(problem).toMatchObject({ status: 500, code: "internal", requestId });
      expect(body).not.toMatch(/stack|at .*\.ts/);
      const logs = loggedFailures(errorLog);
      expect(logs).toHaveLength(1);
      expect(logs[0].requestId).toBe(requestId);
      expect(logs[0].stack).toBeTruthy();
    });
  }

  it("a waitUntil task that fails is logged with the request's id and leaves the answer alone", async () => {
    errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { response, body } = await fetchFailing("/wait-until");
    expect(response.status).toBe(200);
    expect(JSON.parse(body)).toEqual({ ok: true });
    const logs = loggedFailures(errorLog);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ requestId: response.headers.get("x-request-id"), error: "Error: background task failed" });
    expect(logs[0].where).toContain("waitUntil");
  });

  it.each(["PAGINATION_SECRET", "KEY_SIGNING_SECRET"])(
    "a Worker without its %s answers every request, /healthz included, 503 service_misconfigured naming it (never a value), and logs it",
    async (secret) => {
      errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const misconfigured = { ...env, [secret]: "" };
      for (const path of ["/v1/operations", "/healthz", "/docs"]) {
        const response = await serve(buildApp())(new Request(`http://api.test${path}`), misconfigured, createExecutionContext());
        expect(response.status, path).toBe(503);
        expect(response.headers.get("content-type")).toBe("application/problem+json");
        const text = await response.text();
        expect(JSON.parse(text)).toMatchObject({ code: "service_misconfigured", status: 503, requestId: response.headers.get("x-request-id") });
        expect(JSON.parse(text).detail).toContain(`${secret} is not set: \`wrangler secret put ${secret}\``);
        for (const value of [env.PAGINATION_SECRET, env.KEY_SIGNING_SECRET]) expect(text).not.toContain(value);
      }
      const logs = loggedFailures(errorLog);
      expect(logs).toHaveLength(3);
      expect(logs[0].error).toContain(`${secret} is not set`);
    },
  );

  it("a Worker without either secret names both", async () => {
    errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const response = await serve(buildApp())(
      new Request("http://api.test/healthz"),
      { ...env, PAGINATION_SECRET: "", KEY_SIGNING_SECRET: "" },
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect((await response.json<{ detail: string }>()).detail).toMatch(/PAGINATION_SECRET and KEY_SIGNING_SECRET are not set/);
  });
});
