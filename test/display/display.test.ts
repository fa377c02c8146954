import { describe, expect, it } from "vitest";
import { callRoute, collectPages, expectProblem, expectStatus, issueKey, newTenant, type Caller } from "../helpers/client";
import { routes } from "../helpers/routes";

const displayOf = async (caller: Caller) => expectStatus(await callRoute(caller, routes.getDisplaySettings), 200);
const setCurrency = async (op: Caller, currency: string | null) => expectStatus(await callRoute(op, routes.setDisplaySettings, { body: { currency } }), 200);

describe("GET / PUT /v1/settings/display", () => {
  it("says no currency until set, then the currency as stored; null unsets it; an ACCOUNT key reads it", async () => {
    const op = await newTenant();
    expect(await displayOf(op)).toEqual({ currency: null });
    expect(await setCurrency(op, "EUR")).toEqual({ currency: "EUR" });
    expect(await displayOf(op)).toEqual({ currency: "EUR" });
    const account = await issueKey(op.tenantId, "ACCOUNT", "u-display");
    expect(await displayOf(account)).toEqual({ currency: "EUR" });
    expect(await setCurrency(op, "JPY")).toEqual({ currency: "JPY" });
    // Current codes a runtime's list may lack: new currencies, funds, metals, the "no currency" code.
    for (const code of ["SLE", "VED", "ZWG", "XCG", "XXX", "XAU", "BOV", "CLF"]) expect(await setCurrency(op, code)).toEqual({ currency: code });
    expect(await setCurrency(op, null)).toEqual({ currency: null });
    expect(await displayOf(op)).toEqual({ currency: null });
  });

  it("refuses anything but an ISO 4217 code or null with 400 naming the field, and changes nothing", async () => {
    const op = await newTenant();
    await setCurrency(op, "EUR");
    const refused: [unknown, string][] = [
      [{ currency: "eur" }, "body.currency"],
      [{ currency: "EURO" }, "body.currency"],
      [{ currency: "XYZ" }, "body.currency"],
      // Withdrawn from ISO 4217, though some runtimes still list them.
      [{ currency: "HRK" }, "body.currency"],
      [{ currency: "SLL" }, "body.currency"],
      [{ currency: "ZWL" }, "body.currency"],
      [{ currency: "€" }, "body.currency"],
      [{ currency: "" }, "body.currency"],
      [{ currency: 978 }, "body.currency"],
      [{}, "body.currency"],
      [{ currency: "USD", locale: "en" }, "body"],
    ];
    for (const [body, field] of refused) {
      const problem = expectProblem(await callRoute(op, routes.setDisplaySettings, { body }), 400, "validation_failed");
      expect(
        problem.errors?.map((error) => error.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await displayOf(op)).toEqual({ currency: "EUR" });
  });

  it("is written by OPERATOR keys only", async () => {
    const op = await newTenant();
    const account = await issueKey(op.tenantId, "ACCOUNT", "u-display");
    expectProblem(await callRoute(account, routes.setDisplaySettings, { body: { currency: "EUR" } }), 403, "forbidden");
    expect(await displayOf(op)).toEqual({ currency: null });
  });

  it("records each change in the history (resource settings, id display), and nothing for a currency already there", async () => {
    const op = await newTenant();
    await setCurrency(op, "EUR");
    await setCurrency(op, "EUR");
    await setCurrency(op, "GBP");
    await setCurrency(op, null);
    const records = (await collectPages(op, routes.listHistory, { query: { resourceType: "settings", resourceId: "display" } })).items;
    expect(records.map((record) => [record.action, record.changes])).toEqual([
      ["updated", [{ field: "currency", previous: "GBP", next: null }]],
      ["updated", [{ field: "currency", previous: "EUR", next: "GBP" }]],
      ["updated", [{ field: "currency", previous: null, next: "EUR" }]],
    ]);
    expect(records[0].actor).toMatch(/^key:/);
  });

  it("concurrent changes each record what they changed from: the records chain from no currency to the last", async () => {
    const op = await newTenant();
    const currencies = ["EUR", "USD", "GBP", "CHF"];
    const answers = await Promise.all(currencies.map((currency) => callRoute(op, routes.setDisplaySettings, { body: { currency } })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const records = (await collectPages(op, routes.listHistory, { query: { resourceType: "settings", sort: "at" } })).items;
    const steps = records.map((record) => record.changes[0]);
    expect(steps).toHaveLength(4);
    expect(steps[0].previous).toBe(null);
    for (let i = 1; i < steps.length; i++) expect(steps[i].previous, `record ${i}`).toBe(steps[i - 1].next);
    expect((await displayOf(op)).currency).toBe(steps[3].next);
  });
});
