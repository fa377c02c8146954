import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import worker from "../../src/index";
import { defineRoute, mountRoutes } from "../../src/platform/http/routes";
import { serve } from "../../src/platform/http/serve";
import { streamedResponse } from "../../src/platform/http/streaming";
import { callRoute, expectStatus, newTenant, type ApiResponse, type Caller } from "../helpers/client";
import { captureLog } from "../helpers/request-log";
import { recordingD1 } from "../helpers/recording-bindings";
import { routes } from "../helpers/routes";
import { shardOf } from "../helpers/shards";

/*
 * A CSV export streams: the Worker reads the list page by page as the client reads the answer,
 * instead of reading it whole before answering.
 */

const RULE_PAGE = 500;
const PAGES = 10;

/** The GET of a CSV export as `caller`, straight to the Worker's fetch with `bindings` swapped in; the body is left unread. */
async function exportCsv(caller: Caller, path: string, bindings: Partial<Cloudflare.Env>) {
  const request = new Request(`http://api.test${path}`, { headers: { "svc-client": caller.role, "svc-api-key": caller.key, accept: "text/csv" } });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, ...bindings } as Cloudflare.Env, ctx);
  return { response, finished: () => waitOnExecutionContext(ctx) };
}

const pageReadsOf = (statements: string[]) => statements.filter((query) => /^select/i.test(query) && /from "quota_rules"/.test(query)).length;

describe("a CSV export streams page by page", () => {
  afterEach(() => vi.restoreAllMocks());

  it(`answers before the list is read whole: ${PAGES} pages of rules are read as the client reads, a page or two ahead at most`, async () => {
    const operator = await newTenant();
    const rules = Array.from({ length: RULE_PAGE * PAGES }, (_, i) => ({ accountId: `A-${String(i).padStart(5, "0")}`, minimum: 10 }));
    expectStatus(await callRoute(operator, routes.upsertRules, { body: rules }), 200);
    const shard = await shardOf(operator.tenantId);
    const { database, statements } = recordingD1(env[shard]);

    const log = captureLog();
    const { response, finished } = await exportCsv(operator, "/v1/buying-policies/quotas/rules", { [shard]: database });
    expect(response.status).toBe(200);
    const logLines = () => log.lineOf({ headers: response.headers } as ApiResponse);
    // The request's log line waits for the end of its answer, so it counts every page's D1 calls.
    expect(logLines()).toEqual([]);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // Each read brings one chunk (the header, then a page of rows): the pages read so far stay
    // within a bounded lead of what the client took, whatever the list's size.
    let chunks = 0;
    let mostAhead = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      text += decoder.decode(value, { stream: true });
      mostAhead = Math.max(mostAhead, pageReadsOf(statements) - chunks);
      if (chunks === 1) expect(pageReadsOf(statements), "pages read when the first chunk arrives").toBeLessThanOrEqual(3);
    }
    await finished();
    expect(mostAhead).toBeLessThanOrEqual(2);
    expect(logLines()).toHaveLength(1);
    expect(logLines()[0]).toMatchObject({ status: 200, route: "/v1/buying-policies/quotas/rules" });
    expect(logLines()[0].d1RoundTrips).toBeGreaterThanOrEqual(PAGES);
    expect(pageReadsOf(statements)).toBeGreaterThanOrEqual(PAGES);
    const lines = text.trimEnd().split("\r\n");
    expect(lines).toHaveLength(1 + RULE_PAGE * PAGES);
    expect(new Set(lines.slice(1).map((line) => line.split(",")[1])).size).toBe(RULE_PAGE * PAGES);
  });
});

describe("a streamed answer that fails midway", () => {
  let errorLog: ReturnType<typeof vi.spyOn>;
  afterEach(() => errorLog?.mockRestore());

  it("is logged with the request's id, and its stream ends in error (never a silently complete-looking answer)", async () => {
    errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const operator = await newTenant();
    const breaking = defineRoute(
      {
        operationId: "breakingExport",
        method: "get",
        path: "/v1/__breaking-export",
        summary: "A stream that breaks",
        tag: "Service",
        roles: ["OPERATOR"],
        responses: { 200: { description: "CSV" } },
        errors: [],
      },
      () => {
        let pulls = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (pulls++ === 0) controller.enqueue(new TextEncoder().encode("id\r\n"));
            else controller.error(new Error("page 2 could not be read"));
          },
        });
        return streamedResponse(body, { headers: { "content-type": "text/csv; charset=utf-8" } });
      },
    );
    const ctx = createExecutionContext();
    const response = await serve(buildApp((app) => mountRoutes(app, [breaking])))(
      new Request("http://api.test/v1/__breaking-export", { headers: { "svc-client": "OPERATOR", "svc-api-key": operator.key } }),
      env,
      ctx,
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("id\r\n");
    await expect(reader.read()).rejects.toThrow("page 2 could not be read");
    await waitOnExecutionContext(ctx);
    const logs = errorLog.mock.calls.map(
      (args: unknown[]) => JSON.parse(String(args[0])) as { requestId: string; where: string; error: string; stack?: string },
    );
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ requestId: response.headers.get("x-request-id"), error: "Error: page 2 could not be read" });
    expect(logs[0].where).toContain("streamed response body");
    expect(logs[0].stack).toBeTruthy();
  });
});
