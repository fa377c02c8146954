import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { routeWrites } from "../../src/platform/http/routes";
import { call, eventsOf, expectProblem, newTenant, problemCodeOf, uniqueId, type ApiResponse } from "../helpers/client";
import { WRITES } from "../helpers/write-routes";

/*
 * Concurrent identical Idempotency-Key requests, on every registered route that writes. Driven by
 * apiRoutes, so a route added later is raced the day it is registered: 4 identical requests with
 * one key, at once. One runs; the others replay its answer (idempotent-replayed: true; same status,
 * body and describing headers) or answer 409 idempotency_in_progress; the effect (events of its
 * type) happens exactly once. An unsafe route with no entry in WRITES fails.
 */
const REPLAYED = "idempotent-replayed";
const CONCURRENT = 4;
const DESCRIBING_HEADERS = ["content-type", "location", "etag", "warning", "cache-control"];

const unsafe = apiRoutes.filter(({ spec }) => routeWrites(spec));
const keyOf = (spec: { method: string; path: string }) => `${spec.method.toUpperCase()} ${spec.path}`;
const pathPattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, "[^/]+")}$`);
const describeAnswer = (r: ApiResponse) => `${r.status} ${r.headers.get(REPLAYED) ?? "-"} ${r.text.slice(0, 300)}`;

describe("concurrent identical Idempotency-Key requests, on every registered route that writes", () => {
  it("has a race for every unsafe route", () => {
    expect(unsafe.length).toBeGreaterThan(10);
    const missing = unsafe.map(({ spec }) => keyOf(spec)).filter((key) => !WRITES[key]);
    expect(missing, "add a setup for these routes to WRITES in test/helpers/write-routes.ts").toEqual([]);
  });

  for (const { spec } of unsafe) {
    const key = keyOf(spec);
    it(`${key}: ${CONCURRENT} at once run once, the others replay or answer 409 idempotency_in_progress`, async () => {
      const setUp = WRITES[key];
      if (!setUp) throw new Error(`${key} is an unsafe route with no race: add a setup to WRITES in test/platform/idempotent-races.test.ts.`);
      const op = await newTenant();
      const race = await setUp(op);
      expect(race.path).toMatch(pathPattern(spec.path));
      if (spec.headers?.includes("If-Match")) expect(race.headers?.["If-Match"], `${key} reads If-Match: send the current ETag`).toBeDefined();
      const eventsBefore = await eventsOf(op);
      const request = { body: race.body, headers: { ...race.headers, "Idempotency-Key": uniqueId("race") } };

      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, () => call<Record<string, unknown>>(op, spec.method.toUpperCase(), race.path, request)),
      );
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
