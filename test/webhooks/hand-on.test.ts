import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, callRoute, createOperation, expectProblem, expectStatus, newTenant, uniqueId, type ApiResponse, type Caller } from "../helpers/client";
import { recordingQueue } from "../helpers/recording-bindings";
import { routes } from "../helpers/routes";
import { cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";
import { shardOf, tenantDb } from "../helpers/shards";

/*
 * A request hands its events on to webhooks (one queue message) exactly when it appended some,
 * whatever its answer: said by whoever appended them, not guessed from the status or the route.
 */

/** How many events the tenant has: what tells whether the request appended any. */
async function eventCount(tenantId: string): Promise<number> {
  const db = await tenantDb(tenantId);
  return (await db.prepare("select count(*) as n from events where tenant_id = ?").bind(tenantId).first<{ n: number }>())!.n;
}

/** A case: `prepare` sets the tenant up (its own hand-ons are not watched); `request` is the call watched, sent with `bindings`. */
interface Case {
  prepare?: (operator: Caller) => Promise<unknown>;
  request: (operator: Caller, bindings: Partial<Cloudflare.Env>, prepared: never) => Promise<ApiResponse<unknown>>;
  status: number;
}

async function watch({ prepare, request }: Case) {
  const operator = await newTenant();
  const prepared = await prepare?.(operator);
  const { queue, sent } = recordingQueue();
  const before = await eventCount(operator.tenantId);
  const answer = await request(operator, { WEBHOOK_QUEUE: queue }, prepared as never);
  return { operator, answer, sent, appended: (await eventCount(operator.tenantId)) - before };
}

const RULES = "/v1/buying-policies/quotas/rules";
const aRule = { accountId: "A1", minimum: 100 };
const webhookUrl = () => `${env.TEST_RECEIVER_URL}/hooks/ok/${uniqueId("hook")}`;

describe("a request that appends no event hands nothing on", () => {
  const cases: [string, Case][] = [
    [
      "a dry run",
      {
        prepare: (operator) => createOperation(operator),
        request: (operator, bindings, operation: { id: string }) =>
          callRoute(operator, routes.putLines, {
            params: { operationId: operation.id },
            query: { dryRun: "true" },
            body: [{ variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 5 }],
            env: bindings,
          }),
        status: 200,
      },
    ],
    [
      "a refused write (an unknown rule)",
      { request: (operator, bindings) => call<unknown>(operator, "PUT", `${RULES}/qr_unknown`, { body: aRule, env: bindings }), status: 404 },
    ],
    [
      "a bulk upsert of rules already at those minimums",
      {
        prepare: async (operator) => expectStatus(await callRoute(operator, routes.upsertRules, { body: [aRule] }), 200),
        request: (operator, bindings) => callRoute(operator, routes.upsertRules, { body: [aRule], env: bindings }),
        status: 200,
      },
    ],
    [
      "a bulk delete naming no rule of the tenant",
      { request: (operator, bindings) => callRoute(operator, routes.deleteRules, { body: ["qr_00000000000000000000000000"], env: bindings }), status: 200 },
    ],
    [
      "revoking a key already revoked",
      {
        prepare: async (operator) => {
          const issued = expectStatus(await callRoute(operator, routes.createKey, { body: { role: "OPERATOR" } }), 201);
          expectStatus(await callRoute(operator, routes.revokeKey, { params: { keyId: issued.id } }), 204);
          return issued;
        },
        request: (operator, bindings, issued: { id: string }) => callRoute(operator, routes.revokeKey, { params: { keyId: issued.id }, env: bindings }),
        status: 204,
      },
    ],
    [
      "a webhook subscription (subscriptions record no event)",
      { request: (operator, bindings) => call<unknown>(operator, "POST", "/v1/webhooks", { body: { url: webhookUrl() }, env: bindings }), status: 201 },
    ],
    [
      "an Idempotency-Key replay",
      {
        prepare: async (operator) => {
          const body = { code: uniqueId("OP"), name: { en: "Once" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" };
          const headers = { "idempotency-key": uniqueId("key") };
          expectStatus(await callRoute(operator, routes.createOperation, { body, headers }), 201);
          return { body, headers };
        },
        request: (operator, bindings, first: { body: unknown; headers: Record<string, string> }) =>
          callRoute(operator, routes.createOperation, { body: first.body, headers: first.headers, env: bindings }),
        status: 201,
      },
    ],
  ];

  it.each(cases)("%s", async (_, example) => {
    const { answer, sent, appended } = await watch(example);
    expect(answer.status, answer.text).toBe(example.status);
    expect(appended).toBe(0);
    expect(sent).toEqual([]);
  });
});

describe("a request that appended events hands them on once, whatever its answer", () => {
  const cases: [string, Case][] = [
    [
      "an order blocked below its minimum: 422, order.blocked appended by the Worker",
      {
        prepare: async (operator) => {
          await putAccounts(operator, [{ accountId: "A1" }]);
          const operation = await setUpOperation(operator, { attach: ["A1"], lines: [{ variantExternalId: "SKU-A", minQuantity: 0, maxQuantity: 10 }] });
          expectStatus(await callRoute(operator, routes.putQuotaDefault, { body: { minimum: 1_000_000 } }), 200);
          return operation;
        },
        request: async (operator, bindings, operation: { id: string }) => {
          const answer = await callRoute(operator, routes.createOrder, { body: cartBody(operation.id, "A1", [line("SKU-A", 1, 100)]), env: bindings });
          expectProblem(answer, 422, "quota_min_not_met");
          return answer;
        },
        status: 422,
      },
    ],
    [
      "a command of the Operation's Durable Object (PUT lines)",
      {
        prepare: (operator) => createOperation(operator),
        request: (operator, bindings, operation: { id: string }) =>
          callRoute(operator, routes.putLines, {
            params: { operationId: operation.id },
            body: [{ variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 5 }],
            env: bindings,
          }),
        status: 200,
      },
    ],
    [
      "an Operation created (a Worker-side batch)",
      {
        request: (operator, bindings) =>
          callRoute(operator, routes.createOperation, {
            body: { code: uniqueId("OP"), name: { en: "New" }, type: "PUBLIC", startDate: "2027-01-01T00:00:00Z", endDate: "2027-02-01T00:00:00Z" },
            env: bindings,
          }),
        status: 201,
      },
    ],
    [
      "a rule created (a Worker-side rule write)",
      { request: (operator, bindings) => callRoute(operator, routes.createRule, { body: aRule, env: bindings }), status: 201 },
    ],
    [
      "a bulk upsert that changes a rule",
      { request: (operator, bindings) => callRoute(operator, routes.upsertRules, { body: [aRule], env: bindings }), status: 200 },
    ],
    [
      "directory accounts upserted",
      {
        request: (operator, bindings) => callRoute(operator, routes.putDirectory, { body: [{ accountId: "A1", name: "One", users: [] }], env: bindings }),
        status: 200,
      },
    ],
    [
      "a key issued (its event is written beside the control database's change)",
      { request: (operator, bindings) => callRoute(operator, routes.createKey, { body: { role: "OPERATOR" }, env: bindings }), status: 201 },
    ],
  ];

  it.each(cases)("%s", async (_, example) => {
    const { operator, answer, sent, appended } = await watch(example);
    expect(answer.status, answer.text).toBe(example.status);
    expect(appended).toBe(1);
    expect(sent).toEqual([{ kind: "hand-on", shard: await shardOf(operator.tenantId), tenantId: operator.tenantId }]);
  });
});
