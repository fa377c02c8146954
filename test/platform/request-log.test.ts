import { afterEach, describe, expect, it, vi } from "vitest";
import { callRoute, createOperation, expectProblem, expectStatus, newTenant, type ApiResponse } from "../helpers/client";
import { captureLog } from "../helpers/request-log";
import { routes } from "../helpers/routes";
import { accountWithKey, putAccounts, setUpOperation } from "../helpers/setup";

/*
 * One structured JSON line per request, and the D1 round trips it counts: the latency budget on
 * the request path (what a far-away D1 multiplies) is held here, per kind of request.
 */
afterEach(() => vi.restoreAllMocks());

describe("the request log", () => {
  it("writes exactly one JSON line per request: who, what route, the status, how long, how many D1 round trips", async () => {
    const op = await newTenant();
    const created = await createOperation(op);
    const log = captureLog();
    const read = await callRoute(op, routes.getOperation, { params: { operationId: created.id } });
    const missing = await callRoute(null, routes.listOperations);
    const [line] = log.lineOf(read);
    expect(log.lineOf(read)).toHaveLength(1);
    expect(line).toMatchObject({ tenant: op.tenantId, method: "GET", route: "/v1/operations/:operationId", status: 200 });
    expect(line.keyId).toMatch(/^key-/); // the test helper's key ids
    expect(typeof line.durationMs).toBe("number");
    expect(log.lineOf(missing)).toEqual([expect.objectContaining({ tenant: null, keyId: null, status: 401, route: "/v1/operations" })]);
  });
});

describe("D1 round trips on the request path (warm key cache)", () => {
  it("an authenticated read waits on at most 1", async () => {
    const op = await newTenant();
    const created = await createOperation(op);
    await callRoute(op, routes.getOperation, { params: { operationId: created.id } }); // the key is now cached
    const log = captureLog();
    const responses: ApiResponse[] = [
      await callRoute(op, routes.getOperation, { params: { operationId: created.id } }),
      await callRoute(op, routes.listOperations),
      await callRoute(op, routes.listRules),
    ];
    for (const response of responses) {
      expect(expectStatus(response, 200)).toBeTruthy();
      expect(log.lineOf(response)[0].d1SequentialRoundTrips, response.text.slice(0, 80)).toBeLessThanOrEqual(1);
    }
  });

  it("a key in steady use is read again after the answer, never on the request path", async () => {
    const op = await newTenant();
    const list = (options: { drain?: boolean } = {}) => callRoute(op, routes.listRules, options);
    const start = Date.now();
    await list(); // the key is read and cached at `start`
    const log = captureLog();
    const at = (offset: number) => vi.spyOn(Date, "now").mockReturnValue(start + offset);
    at(6_000); // past the refresh age (5 s), within the cache's 10 s: answered from the cache, read again after
    const refreshed = await list({ drain: true }); // returns once the read after the answer has landed
    expect(log.lineOf(refreshed)[0].d1SequentialRoundTrips).toBe(1); // the list's own read only
    at(12_000); // the entry read at `start` would have expired; the one read at 6 s has not
    const later = await list();
    expect(log.lineOf(later)[0].d1SequentialRoundTrips).toBe(1);
    at(30_000); // an idle key's entry expires: that request reads it first
    expect(log.lineOf(await list())[0].d1SequentialRoundTrips).toBe(2);
  });

  it("a warm quota evaluation waits on none, even when its index is due for a check", async () => {
    const op = await newTenant();
    await callRoute(op, routes.createRule, { body: { accountId: "A1", minimum: 100 } });
    const evaluate = () => callRoute(op, routes.evaluateQuotas, { body: { orders: [{ accountId: "A1", amount: 50 }] } });
    await evaluate();
    const log = captureLog();
    const now = Date.now();
    const warm = await evaluate();
    vi.spyOn(Date, "now").mockReturnValue(now + 1500); // past the 1 s recheck: the check runs after the answer
    const due = await evaluate();
    for (const response of [warm, due] as ApiResponse[]) {
      expectStatus(response, 200);
      expect(log.lineOf(response)[0].d1SequentialRoundTrips).toBe(0);
    }
  });

  it("an ACCOUNT key's warm evaluation waits on none either: its memberships are cached, and a directory change is seen at once", async () => {
    const op = await newTenant();
    const { accountId, userId, caller } = await accountWithKey(op);
    await callRoute(op, routes.createRule, { body: { accountId, minimum: 100 } });
    const evaluate = (account = accountId) => callRoute(caller, routes.evaluateQuotas, { body: { orders: [{ accountId: account, amount: 50 }] } });
    await evaluate();
    const log = captureLog();
    const now = Date.now();
    const answers = [await evaluate()];
    // Every 1.5 s (the rule index's check, after the answer) until past the memberships' refresh age (5 s): read again after the answer too.
    for (const offset of [1_500, 3_000, 4_500, 6_000, 7_500]) {
      vi.spyOn(Date, "now").mockReturnValue(now + offset);
      answers.push(await evaluate());
    }
    for (const response of answers as ApiResponse[]) {
      expect((expectStatus(response, 200) as { results: unknown[] }).results[0]).toMatchObject({ allowed: false, effectiveMinimum: 100 });
      expect(log.lineOf(response)[0].d1SequentialRoundTrips).toBe(0);
    }
    vi.restoreAllMocks();
    // Another account is still refused from the cache; the user moved off the account is refused at once.
    expectProblem(await evaluate("A-NOT-MINE"), 403, "account_not_permitted");
    await putAccounts(op, [{ accountId, users: [{ userId: `${userId}-other`, email: "other@example.test" }] }]);
    expectProblem(await evaluate(), 403, "account_not_permitted");
  });

  it("an Operation write waits on at most 2, inside its Durable Object", async () => {
    const op = await newTenant();
    const operation = await setUpOperation(op, { status: "DRAFT" });
    const current = await callRoute(op, routes.getOperation, { params: { operationId: operation.id } });
    const log = captureLog();
    const patched = await callRoute(op, routes.patchOperation, {
      params: { operationId: operation.id },
      body: { name: { en: "Renamed" } },
      headers: { "If-Match": current.headers.get("etag")! },
    });
    expectStatus(patched, 200);
    const lines = await callRoute(op, routes.putLines, {
      params: { operationId: operation.id },
      body: [{ variantExternalId: "NEW", minQuantity: 1, maxQuantity: 2 }],
    });
    expectStatus(lines, 200);
    for (const response of [patched, lines] as ApiResponse[])
      expect(log.lineOf(response)[0].d1SequentialRoundTrips, response.text.slice(0, 80)).toBeLessThanOrEqual(2);
  });
});
