import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { routeWrites } from "../../src/platform/http/routes";
import { call, createOperation, eventsOf, expectProblem, newTenant, operationBody, uniqueId, type ApiResponse, type Caller, callRoute, problemCodeOf } from "../helpers/client";
import { routes } from "../helpers/routes";
import { cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";

/*
 * Concurrent identical Idempotency-Key requests, on every registered route that writes. Driven by
 * apiRoutes, so a route added later is raced the day it is registered: 4 identical requests with
 * one key, at once. One runs; the others replay its answer (idempotent-replayed: true; same status,
 * body and describing headers) or answer 409 idempotency_in_progress; the effect (events of its
 * type) happens exactly once. An unsafe route with no entry in RACES fails.
 */
const REPLAYED = "idempotent-replayed";
const CONCURRENT = 4;
const DESCRIBING_HEADERS = ["content-type", "location", "etag", "warning", "cache-control"];

interface Race {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The status of the request that ran. */
  status: number;
  /** The event type recorded once by the request that ran; null: the route records nothing. */
  event: string | null;
}

const ifMatch = (version: number) => ({ "If-Match": `"${version}"` });
const draftWithLines = (op: Caller, attach?: string[]) => setUpOperation(op, { status: "DRAFT", attach });
async function directoryAccount(op: Caller) {
  const accountId = uniqueId("acc");
  await putAccounts(op, [{ accountId }]);
  return accountId;
}
async function rule(op: Caller) {
  return (await callRoute(op, routes.createRule, { body: { accountId: "ACC-1", minimum: 100 } })).body;
}

/** `${METHOD} ${path}` → sets up what the route needs in a fresh tenant and names the request to race. */
const RACES: Record<string, (op: Caller) => Promise<Race>> = {
  "POST /v1/operations": async () => ({ path: "/v1/operations", body: operationBody(), status: 201, event: "operation.created" }),
  "PATCH /v1/operations/:operationId": async (op) => {
    const created = await createOperation(op);
    return { path: `/v1/operations/${created.id}`, body: { name: { en: "Renamed" } }, headers: ifMatch(created.version), status: 200, event: "operation.updated" };
  },
  "POST /v1/operations/:operationId/status": async (op) => {
    const draft = await draftWithLines(op);
    const etag = (await callRoute(op, routes.getOperation, { params: { operationId: draft.id } })).headers.get("etag")!;
    return { path: `/v1/operations/${draft.id}/status`, body: { status: "ACTIVE" }, headers: { "If-Match": etag }, status: 200, event: "operation.status_changed" };
  },
  "DELETE /v1/operations/:operationId": async (op) => {
    const created = await createOperation(op);
    return { path: `/v1/operations/${created.id}`, headers: ifMatch(created.version), status: 204, event: "operation.deleted" };
  },
  "PUT /v1/operations/:operationId/lines": async (op) => {
    const created = await createOperation(op);
    const body = [{ variantExternalId: "SKU-NEW", minQuantity: 1, maxQuantity: 5 }];
    return { path: `/v1/operations/${created.id}/lines`, body, status: 200, event: "lines.upserted" };
  },
  "DELETE /v1/operations/:operationId/lines": async (op) => {
    const draft = await draftWithLines(op);
    return { path: `/v1/operations/${draft.id}/lines`, body: ["SKU-A"], status: 200, event: "lines.removed" };
  },
  "PUT /v1/operations/:operationId/accounts": async (op) => {
    const [accountId, draft] = [await directoryAccount(op), await draftWithLines(op)];
    return { path: `/v1/operations/${draft.id}/accounts`, body: [accountId], status: 200, event: "accounts.attached" };
  },
  "POST /v1/operations/:operationId/accounts": async (op) => {
    const [accountId, draft] = [await directoryAccount(op), await draftWithLines(op)];
    return { path: `/v1/operations/${draft.id}/accounts`, body: [accountId], status: 200, event: "accounts.attached" };
  },
  "DELETE /v1/operations/:operationId/accounts": async (op) => {
    const accountId = await directoryAccount(op);
    const draft = await draftWithLines(op, [accountId]);
    return { path: `/v1/operations/${draft.id}/accounts`, body: [accountId], status: 200, event: "accounts.detached" };
  },
  "PUT /v1/accounts": async () => ({ path: "/v1/accounts", body: [{ accountId: uniqueId("acc"), name: "Racer", users: [] }], status: 200, event: "directory.upserted" }),
  "POST /v1/buying-policies/quotas/rules": async () => ({
    path: "/v1/buying-policies/quotas/rules",
    body: { accountId: "ACC-1", supplierId: "SUP-1", minimum: 100 },
    status: 201,
    event: "rule.created",
  }),
  "PUT /v1/buying-policies/quotas/rules/:ruleId": async (op) => ({
    path: `/v1/buying-policies/quotas/rules/${(await rule(op)).id}`,
    body: { accountId: "ACC-1", minimum: 250 },
    status: 200,
    event: "rule.updated",
  }),
  "DELETE /v1/buying-policies/quotas/rules/:ruleId": async (op) => ({
    path: `/v1/buying-policies/quotas/rules/${(await rule(op)).id}`,
    status: 204,
    event: "rule.deleted",
  }),
  "PUT /v1/buying-policies/quotas/rules": async () => ({
    path: "/v1/buying-policies/quotas/rules",
    body: [
      { accountId: "ACC-9", minimum: 10 },
      { supplierId: "SUP-9", storeId: "STORE-9", minimum: 20 },
    ],
    status: 200,
    event: "rules.upserted",
  }),
  "DELETE /v1/buying-policies/quotas/rules": async (op) => ({
    path: "/v1/buying-policies/quotas/rules",
    body: [(await rule(op)).id, "qr_unknown"],
    status: 200,
    event: "rules.deleted",
  }),
  "PUT /v1/buying-policies/quotas/default": async () => ({ path: "/v1/buying-policies/quotas/default", body: { minimum: 300 }, status: 200, event: "quota_default.updated" }),
  "POST /v1/carts": async (op) => {
    const open = await setUpOperation(op, { type: "PUBLIC" });
    return { path: "/v1/carts", body: cartBody(open.id, await directoryAccount(op), [line("SKU-A", 2), line("SKU-B", 2)]), status: 201, event: "cart.created" };
  },
  "POST /v1/orders": async (op) => {
    const open = await setUpOperation(op, { type: "PUBLIC" });
    return { path: "/v1/orders", body: cartBody(open.id, await directoryAccount(op), [line("SKU-B", 3, 250, "SUP-1")]), status: 201, event: "order.created" };
  },
  "POST /v1/keys": async () => ({
    path: "/v1/keys",
    body: { role: "ACCOUNT", userId: "u_racer", name: "Racer" },
    status: 201,
    event: "key.created",
  }),
  "DELETE /v1/keys/:keyId": async (op) => ({
    path: `/v1/keys/${(await callRoute(op, routes.createKey, { body: { role: "OPERATOR" } })).body.id}`,
    status: 204,
    event: "key.revoked",
  }),
  "POST /v1/webhooks": async () => ({ path: "/v1/webhooks", body: { url: "https://hooks.example.com/race", eventTypes: ["order.*"] }, status: 201, event: null }),
  "PATCH /v1/webhooks/:webhookId": async (op) => ({
    path: `/v1/webhooks/${(await callRoute(op, routes.createWebhook, { body: { url: "https://hooks.example.com/race", eventTypes: ["order.*"] } })).body.id}`,
    body: { description: "Raced" },
    status: 200,
    event: null,
  }),
  "DELETE /v1/webhooks/:webhookId": async (op) => ({
    path: `/v1/webhooks/${(await callRoute(op, routes.createWebhook, { body: { url: "https://hooks.example.com/race", eventTypes: ["order.*"] } })).body.id}`,
    status: 204,
    event: null,
  }),
};

const unsafe = apiRoutes.filter(({ spec }) => routeWrites(spec));
const keyOf = (spec: { method: string; path: string }) => `${spec.method.toUpperCase()} ${spec.path}`;
const pathPattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, "[^/]+")}$`);
const describeAnswer = (r: ApiResponse) => `${r.status} ${r.headers.get(REPLAYED) ?? "-"} ${r.text.slice(0, 300)}`;

describe("concurrent identical Idempotency-Key requests, on every registered route that writes", () => {
  it("has a race for every unsafe route", () => {
    expect(unsafe.length).toBeGreaterThan(10);
    const missing = unsafe.map(({ spec }) => keyOf(spec)).filter((key) => !RACES[key]);
    expect(missing, "add a setup for these routes to RACES in test/platform/idempotent-races.test.ts").toEqual([]);
  });

  for (const { spec } of unsafe) {
    const key = keyOf(spec);
    it(`${key}: ${CONCURRENT} at once run once, the others replay or answer 409 idempotency_in_progress`, async () => {
      const setUp = RACES[key];
      if (!setUp) throw new Error(`${key} is an unsafe route with no race: add a setup to RACES in test/platform/idempotent-races.test.ts.`);
      const op = await newTenant();
      const race = await setUp(op);
      expect(race.path).toMatch(pathPattern(spec.path));
      if (spec.headers?.includes("If-Match")) expect(race.headers?.["If-Match"], `${key} reads If-Match: send the current ETag`).toBeDefined();
      const eventsBefore = await eventsOf(op);
      const request = { body: race.body, headers: { ...race.headers, "Idempotency-Key": uniqueId("race") } };

      const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => call<Record<string, unknown>>(op, spec.method.toUpperCase(), race.path, request)));
      const inProgress = answers.filter((r) => r.status === 409 && problemCodeOf(r) === "idempotency_in_progress");
      for (const r of inProgress) expectProblem(r, 409, "idempotency_in_progress");
      const answered = answers.filter((r) => !inProgress.includes(r));
      const ran = answered.filter((r) => r.headers.get(REPLAYED) !== "true");
      expect(ran.map(describeAnswer), "exactly one request runs").toHaveLength(1);
      expect(ran[0].status, describeAnswer(ran[0])).toBe(race.status);
      // A replay is the same answer, the headers that describe it too (a secret stays no-store), minus the secrets the route shows once.
      const described = (r: ApiResponse) => DESCRIBING_HEADERS.map((name) => [name, r.headers.get(name)]);
      const secretFields = spec.shownOnce?.fields ?? [];
      const shownAgain = Object.fromEntries(Object.entries(ran[0].body ?? {}).filter(([field]) => !secretFields.includes(field)));
      const secrets = secretFields.map((field) => ran[0].body?.[field]);
      for (const [i, field] of secretFields.entries()) expect(secrets[i], `${field} in the first answer`).toBeTruthy();
      const expectReplay = (r: ApiResponse) => {
        expect(r.status, describeAnswer(r)).toBe(ran[0].status);
        if (!secretFields.length) {
          expect(r.text, describeAnswer(r)).toBe(ran[0].text);
          expect(described(r), describeAnswer(r)).toEqual(described(ran[0]));
          return;
        }
        expect(r.body, describeAnswer(r)).toEqual(shownAgain);
        for (const secret of secrets) expect(r.text).not.toContain(String(secret));
        expect(r.headers.get("warning"), describeAnswer(r)).toMatch(/^299 - ".* was shown once, in the first answer; /);
        const withoutWarning = (r: ApiResponse) => described(r).filter(([name]) => name !== "warning");
        expect(withoutWarning(r), describeAnswer(r)).toEqual(withoutWarning(ran[0]));
      };
      for (const r of answered) if (r !== ran[0]) expectReplay(r);

      // A client that got 409 retries: it gets the stored answer.
      const retry = await call<Record<string, unknown>>(op, spec.method.toUpperCase(), race.path, request);
      expect(retry.headers.get(REPLAYED)).toBe("true");
      expectReplay(retry);

      const added = (await eventsOf(op)).slice(eventsBefore.length).map((event) => event.type);
      expect(added).toEqual(race.event ? [race.event] : []);
    });
  }
});
