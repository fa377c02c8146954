import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ApiResponse, call, callRoute, createOperation, expectProblem, expectStatus, newTenant, operationBody, type ProblemBody } from "../helpers/client";
import { activeOperation, snapshotTenant } from "../helpers/direct";
import { expectCleanProblem } from "../helpers/problems";
import { routes } from "../helpers/routes";
import { tenantDb } from "../helpers/shards";

function expectValidation(response: ApiResponse, field?: string | RegExp) {
  const body = expectProblem(response, 400, "validation_failed");
  expectCleanProblem(response, 400);
  expect(Array.isArray(body.errors)).toBe(true);
  expect(body.errors?.length).toBeGreaterThan(0);
  for (const item of body.errors ?? []) {
    expect(typeof item.code).toBe("string");
    expect(typeof item.message).toBe("string");
  }
  if (field !== undefined) {
    const fields = body.errors?.map((e) => e.field) ?? [];
    expect(
      fields.some((f) => f !== undefined && (typeof field === "string" ? f === field : field.test(f))),
      JSON.stringify(body.errors),
    ).toBe(true);
  }
  return body;
}

describe("400 validation_failed on create", () => {
  it("refuses wrong types, unknown enums, missing and unknown fields, bad dates — creating nothing", async () => {
    const op = await newTenant();
    const before = await snapshotTenant(op.tenantId);
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [operationBody({ code: 123 }), "body.code"],
      [operationBody({ code: "" }), "body.code"],
      [operationBody({ name: "Spring" }), "body.name"],
      [operationBody({ name: { en: 5 } }), "body.name.en"],
      [operationBody({ name: { "not a locale!": "x" } }), /^body\.name/],
      [operationBody({ type: "SECRET" }), "body.type"],
      [operationBody({ type: "public" }), "body.type"],
      [operationBody({ startDate: "yesterday" }), "body.startDate"],
      [operationBody({ startDate: "2027-13-45T00:00:00Z" }), "body.startDate"],
      [operationBody({ startDate: 1_700_000_000_000 }), "body.startDate"],
      [operationBody({ startDate: "2027-05-01T00:00:00Z", endDate: "2027-04-30T23:59:59Z" }), "body.startDate"],
      [operationBody({ ownerIds: "u1" }), "body.ownerIds"],
      [operationBody({ ownerIds: [1, 2] }), /^body\.ownerIds\./],
      [operationBody({ externalId: false }), "body.externalId"],
      [operationBody({ status: "ACTIVE" }), /body/],
      [operationBody({ lineCount: 5 }), /body/],
      [operationBody({ unknownField: true }), /body/],
    ];
    for (const [body, field] of cases) {
      expectValidation(await callRoute(op, routes.createOperation, { body }), field);
    }
    const { code: _code, ...withoutCode } = operationBody();
    expectValidation(await callRoute(op, routes.createOperation, { body: withoutCode }), "body.code");
    const { startDate: _start, ...withoutStart } = operationBody();
    expectValidation(await callRoute(op, routes.createOperation, { body: withoutStart }), "body.startDate");
    for (const body of [[], [operationBody()], "text", 42, null, true]) {
      expectValidation(await callRoute(op, routes.createOperation, { body }));
    }
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
  });

  it("names each bad locale tag and each overlong text of a localized map, and counts its locales — on create and on PUT lines", async () => {
    const op = await newTenant();
    const operation = await createOperation(op);
    const before = await snapshotTenant(op.tenantId);
    const badMap = { en: "ok", "not a locale!": "x", fr: "é".repeat(2001), de: "y".repeat(2000) };
    const created = expectValidation(await callRoute(op, routes.createOperation, { body: operationBody({ name: badMap }) }));
    expect(created.errors?.map(({ field, code }) => ({ field, code }))).toEqual([
      { field: "body.name.not a locale!", code: "invalid_key" },
      { field: "body.name.fr", code: "too_big" },
    ]);
    expect(created.errors?.[0].message).toMatch(/BCP 47/);
    const put = expectValidation(
      await callRoute(op, routes.putLines, {
        params: { operationId: operation.id },
        body: [
          { variantExternalId: "SKU-1", minQuantity: 0, maxQuantity: 1 },
          { variantExternalId: "SKU-2", minQuantity: 0, maxQuantity: 1, variantName: badMap },
        ],
      }),
    );
    expect(put.errors?.map(({ field, code, index }) => ({ field, code, index }))).toEqual([
      { field: "body.1.variantName.not a locale!", code: "invalid_key", index: 1 },
      { field: "body.1.variantName.fr", code: "too_big", index: 1 },
    ]);
    const manyLocales = Object.fromEntries(
      Array.from({ length: 51 }, (_, i) => [`l${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`, "x"]),
    );
    expectValidation(await callRoute(op, routes.createOperation, { body: operationBody({ name: manyLocales }) }), "body.name");
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    const fifty = Object.fromEntries(Object.entries(manyLocales).slice(0, 50));
    expectStatus(await callRoute(op, routes.createOperation, { body: operationBody({ code: "FIFTY", name: fifty }) }), 201);
  });

  it("refuses malformed JSON with 400 validation_failed", async () => {
    const op = await newTenant();
    for (const rawBody of ["{", '{"code": "A",}', "not json", "", '{"code": "A"} trailing', "\u0000"]) {
      const res = await call(op, "POST", "/v1/operations", { rawBody, headers: { "content-type": "application/json" } });
      const body = expectValidation(res);
      expect(body.errors?.[0].field).toBe("body");
    }
    const target = await createOperation(op);
    expectValidation(await call(op, "PATCH", `/v1/operations/${target.id}`, { rawBody: "{name:" }));
    expectValidation(await call(op, "POST", `/v1/operations/${target.id}/status`, { rawBody: "ACTIVE" }));
    expect(expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 200).version).toBe(1);
  });
});

describe("400 validation_failed on PATCH and status", () => {
  it("refuses startDate after endDate, in the body and after merging with the stored dates", async () => {
    const op = await newTenant();
    const target = await createOperation(op, { startDate: "2027-03-01T00:00:00Z", endDate: "2027-04-30T00:00:00Z" });
    expectValidation(
      await callRoute(op, routes.patchOperation, {
        params: { operationId: target.id },
        body: { startDate: "2027-06-01T00:00:00Z", endDate: "2027-05-01T00:00:00Z" },
      }),
      "body.startDate",
    );
    // Each alone is fine, but merged with the stored value it is not.
    expectValidation(
      await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { startDate: "2027-05-01T00:00:00Z" } }),
      "body.startDate",
    );
    expectValidation(
      await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { endDate: "2027-02-01T00:00:00Z" } }),
      "body.startDate",
    );
    // Equal dates are allowed (startDate ≤ endDate).
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { endDate: "2027-03-01T00:00:00Z" } }), 200);
    const read = expectStatus(await callRoute(op, routes.getOperation, { params: { operationId: target.id } }), 200);
    expect(read.version).toBe(2);
    expect(read.startDate).toBe("2027-03-01T00:00:00Z");
    expect(read.endDate).toBe("2027-03-01T00:00:00Z");
  });

  it("refuses wrong types, unknown fields and fields that cannot be patched", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    const path = `/v1/operations/${target.id}`;
    const before = await snapshotTenant(op.tenantId);
    for (const [body, field] of [
      [{ code: 1 }, "body.code"],
      [{ type: "HIDDEN" }, "body.type"],
      [{ name: { en: 1 } }, "body.name.en"],
      [{ name: "x" }, "body.name"],
      [{ startDate: "2027-02-30T25:00:00Z" }, "body.startDate"],
      [{ status: "ACTIVE" }, /body/],
      [{ id: "op_other" }, /body/],
      [{ version: 9 }, /body/],
      [{ lineCount: 0 }, /body/],
      [{ ownerIds: [""] }, /^body\.ownerIds/],
    ] as [unknown, string | RegExp][]) {
      expectValidation(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body }), field);
    }
    expectValidation(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: [] }));
    // Removing every locale of the name would leave it empty.
    expectValidation(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { name: { en: null, fr: null } } }), "body.name");
    for (const body of [{}, { status: "ARCHIVED" }, { status: "active" }, { status: "ACTIVE", extra: 1 }, { status: null }, []]) {
      expectValidation(await call(op, "POST", `${path}/status`, { body }));
    }
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
  });

  it("checks the shape before looking the Operation up (400 before 404)", async () => {
    const op = await newTenant();
    expectValidation(await callRoute(op, routes.patchOperation, { params: { operationId: "op_missing" }, body: { type: "NOPE" } }));
    expectValidation(await callRoute(op, routes.changeStatus, { params: { operationId: "op_missing" }, body: { status: "NOPE" } }));
    expectProblem(await callRoute(op, routes.patchOperation, { params: { operationId: "op_missing" }, body: { type: "PUBLIC" } }), 404, "not_found");
  });
});

describe("400 validation_failed on list queries", () => {
  it("refuses limits out of range, unknown parameters, unknown enums and bad values", async () => {
    const op = await newTenant();
    for (const [query, field] of [
      [{ limit: 0 }, "query.limit"],
      [{ limit: 501 }, "query.limit"],
      [{ limit: -1 }, "query.limit"],
      [{ limit: 2.5 }, "query.limit"],
      [{ limit: "ten" }, "query.limit"],
      [{ status: "DRAFT,ARCHIVED" }, /^query\.status/],
      [{ status: "" }, /^query\.status/],
      [{ type: "BOTH" }, "query.type"],
      [{ idType: "uuid", ids: "a" }, "query.idType"],
      [{ sort: "price" }, "query.sort"],
      [{ sort: "name,,code" }, "query.sort"],
      [{ sort: "+name" }, "query.sort"],
      [{ startDateFrom: "soon" }, "query.startDateFrom"],
      [{ endDateTo: "2027-01-01T00:00:00Q" }, "query.endDateTo"],
      [{ locale: "not a locale" }, "query.locale"],
      [{ name: "" }, "query.name"],
      [{ ids: ",,," }, /^query\.ids/],
      [{ unknownFilter: "x" }, /query/],
      [{ operationStatus: "DRAFT" }, /query/],
    ] as [Record<string, string | number>, string | RegExp][]) {
      expectValidation(await callRoute(op, routes.listOperations, { query }), field);
    }
    expectStatus(await callRoute(op, routes.listOperations, { query: { limit: 1 } }), 200);
    expectStatus(await callRoute(op, routes.listOperations, { query: { limit: 500 } }), 200);
    // A parameter given twice is not a comma list.
    const twice = await call(op, "GET", "/v1/operations?status=DRAFT&status=ACTIVE");
    expectValidation(twice);
    for (const query of [{ limit: 0 }, { limit: 501 }, { after: "" }, { types: "" }, { what: "x" }]) {
      expectValidation(await callRoute(op, routes.listEvents, { query }));
    }
  });
});

describe("other problems", () => {
  it("answers 404 not_found for unknown routes and unknown or malformed ids", async () => {
    const op = await newTenant();
    for (const [method, path] of [
      ["GET", "/v1/no-such-thing"],
      ["GET", "/v1/operations/op_x/unknown"],
      ["GET", "/nothing-here"],
      ["GET", "/v2/operations"],
    ]) {
      expectCleanProblem(expectProblemRes(await call(op, method, path), 404, "not_found"));
    }
    for (const method of ["GET", "DELETE"]) {
      expectProblem(await call(op, method, "/v1/operations/op_00000000000000000000000000"), 404, "not_found");
    }
    // A known path with another method is 405 (declared-answers.test.ts), not 404.
    expectProblem(await call(op, "PUT", "/v1/operations"), 405, "method_not_allowed");
    expectProblem(await callRoute(op, routes.patchOperation, { params: { operationId: "op_nope" }, body: { code: "X" } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.changeStatus, { params: { operationId: "op_nope" }, body: { status: "ACTIVE" } }), 404, "not_found");
    expectProblem(await callRoute(op, routes.getOperation, { params: { operationId: encodeURIComponent("' or 1=1 --") } }), 404, "not_found");
  });

  it("answers 409 duplicate_code on create and on PATCH; codes are per tenant", async () => {
    const op = await newTenant();
    const first = await createOperation(op, { code: "SPRING-27" });
    const before = await snapshotTenant(op.tenantId);
    expectCleanProblem(expectProblemRes(await callRoute(op, routes.createOperation, { body: operationBody({ code: "SPRING-27" }) }), 409, "duplicate_code"));
    const second = await createOperation(op, { code: "SUMMER-27" });
    const afterSecond = await snapshotTenant(op.tenantId);
    expect(afterSecond.operations).toHaveLength(before.operations.length + 1);
    expectCleanProblem(
      expectProblemRes(await callRoute(op, routes.patchOperation, { params: { operationId: second.id }, body: { code: "SPRING-27" } }), 409, "duplicate_code"),
    );
    expect(await snapshotTenant(op.tenantId)).toEqual(afterSecond);
    // Keeping one's own code is not a conflict; another tenant may use the same code.
    expectStatus(await callRoute(op, routes.patchOperation, { params: { operationId: first.id }, body: { code: "SPRING-27" } }), 200);
    const other = await newTenant();
    await createOperation(other, { code: "SPRING-27" });
  });

  it("answers exactly one of several concurrent creates with the same code; the others get duplicate_code", async () => {
    const op = await newTenant();
    const responses = await Promise.all(Array.from({ length: 4 }, () => callRoute(op, routes.createOperation, { body: operationBody({ code: "RACE" }) })));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 201)) expectProblem(r, 409, "duplicate_code");
    const snapshot = await snapshotTenant(op.tenantId);
    expect(snapshot.operations).toHaveLength(1);
    expect(snapshot.events).toHaveLength(1);
  });

  it("answers 409 operation_not_draft when the type changes outside DRAFT", async () => {
    const op = await newTenant();
    const active = await activeOperation(op, { type: "PRIVATE" });
    const before = await snapshotTenant(op.tenantId);
    expectProblem(await callRoute(op, routes.patchOperation, { params: { operationId: active.id }, body: { type: "PUBLIC" } }), 409, "operation_not_draft");
    expectProblem(
      await callRoute(op, routes.patchOperation, { params: { operationId: active.id }, body: { type: "PUBLIC", name: { en: "changed" } } }),
      409,
      "operation_not_draft",
    );
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
  });

  it("answers 413 payload_too_large for a body over 8 MiB, changing nothing", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    const before = await snapshotTenant(op.tenantId);
    const big = JSON.stringify(operationBody({ description: { en: "x".repeat(8 * 1024 * 1024) } }));
    expectCleanProblem(expectProblemRes(await call(op, "POST", "/v1/operations", { rawBody: big }), 413, "payload_too_large"));
    expectCleanProblem(expectProblemRes(await call(op, "PATCH", `/v1/operations/${target.id}`, { rawBody: big }), 413, "payload_too_large"));
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    // Just under the limit is a size the API reads (and then refuses on its shape: description locales are ≤ 2000 chars).
    const underLimit = JSON.stringify(operationBody({ description: { en: "x".repeat(7 * 1024 * 1024) } }));
    expectProblem(await call(op, "POST", "/v1/operations", { rawBody: underLimit }), 400, "validation_failed");
  });

  it("answers 413 for an oversized body sent without Content-Length (streamed)", async () => {
    const op = await newTenant();
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"code":"'));
        if (sent++ < 9) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await SELF.fetch("http://api.test/v1/operations", {
      method: "POST",
      headers: { "svc-client": "OPERATOR", "svc-api-key": op.key, "content-type": "application/json" },
      body: stream,
    });
    const text = await response.text();
    expect(response.status, text.slice(0, 200)).toBe(413);
    expect(JSON.parse(text).code).toBe("payload_too_large");
    expect((await snapshotTenant(op.tenantId)).operations).toEqual([]);
  });

  it("answers 500 internal without SQL or stack text when something unexpected fails", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    // Stored data the code cannot read back (not JSON) stands in for any unexpected failure.
    await (await tenantDb(op.tenantId)).prepare("update operations set name = 'not json {' where id = ?").bind(target.id).run();
    const response = await callRoute(op, routes.getOperation, { params: { operationId: target.id } });
    const body = expectProblem(response, 500, "internal");
    expectCleanProblem(response, 500);
    expect(Object.keys(body).sort()).toEqual(["code", "detail", "requestId", "status", "title", "type"]);
    expect(body.detail).not.toMatch(/json|parse|syntax/i);
  });

  it("puts x-request-id on every response and the same value in problem bodies", async () => {
    const op = await newTenant();
    const created = await callRoute(op, routes.createOperation, { body: operationBody() });
    const ids = new Set<string>();
    for (const res of [
      created,
      await callRoute(op, routes.listOperations),
      await callRoute(op, routes.getOperation, { params: { operationId: created.body.id } }),
      await call(op, "GET", "/v1/openapi.json"),
      await callRoute(null, routes.listOperations),
      await call(op, "GET", "/v1/nope"),
      await callRoute(op, routes.deleteOperation, { params: { operationId: created.body.id } }),
    ]) {
      const requestId = res.headers.get("x-request-id");
      expect(requestId, `${res.status} ${res.text.slice(0, 100)}`).toBeTruthy();
      ids.add(requestId!);
      if (res.status >= 400) expect((res.body as ProblemBody).requestId).toBe(requestId);
    }
    expect(ids.size).toBe(7);
  });
});

function expectProblemRes(response: ApiResponse, status: number, code: string): ApiResponse {
  expectProblem(response, status, code);
  return response;
}

/*
 * One date-time rule for the whole API (platform/schema/fields.ts dateTime): a date that exists on the
 * calendar, a time of day, and a time zone. Date.parse rolls an impossible date over (2027-02-30
 * would be stored as March 2) and takes a date alone: both are refused, naming the field.
 */
describe("dates exist on the calendar and carry a time zone", () => {
  const IMPOSSIBLE: [string, RegExp][] = [
    ["2027-02-30T00:00:00Z", /2027-02-30 is not a date on the calendar/],
    ["2027-02-29T00:00:00Z", /2027-02-29 is not a date on the calendar/],
    ["2100-02-29T00:00:00Z", /2100-02-29 is not a date on the calendar/],
    ["2027-04-31T12:00:00+02:00", /2027-04-31 is not a date on the calendar/],
    ["2027-13-01T00:00:00Z", /2027-13-01 is not a date on the calendar/],
    ["2027-00-10T00:00:00Z", /2027-00-10 is not a date on the calendar/],
    ["2027-03-00T00:00:00Z", /2027-03-00 is not a date on the calendar/],
    ["2027-03-01T24:00:00Z", /24:00:00 is not a time of day/],
    ["2027-03-01T23:60:00Z", /23:60:00 is not a time of day/],
    ["2027-03-01T23:59:60Z", /23:59:60 is not a time of day/],
    ["2027-03-01T10:00:00+24:00", /\+24:00 is not a time zone/],
  ];
  const WITHOUT_TIME_ZONE: [string, RegExp][] = [
    ["2099-02-01", /not a date alone.*2099-02-01T00:00:00Z/],
    ["2027-03-01T00:00:00", /time zone/],
    ["2027-03-01T10:30", /time zone/],
    ["2027-03-01 10:30:00Z", /ISO-8601 date-time with a time zone/],
  ];

  it("create: each is 400 naming the field and saying why, nothing is created; the corrected body creates", async () => {
    const op = await newTenant();
    const before = await snapshotTenant(op.tenantId);
    for (const [value, why] of [...IMPOSSIBLE, ...WITHOUT_TIME_ZONE]) {
      for (const field of ["startDate", "endDate"]) {
        const problem = expectValidation(await callRoute(op, routes.createOperation, { body: operationBody({ [field]: value }) }), `body.${field}`);
        expect(problem.errors?.find((error) => error.field === `body.${field}`)?.message, value).toMatch(why);
      }
    }
    const schedule = expectValidation(
      await callRoute(op, routes.createOperation, { body: operationBody({ schedule: { activateAt: "2099-02-31T00:00:00Z" } }) }),
      "body.schedule.activateAt",
    );
    expect(schedule.errors?.[0].message).toMatch(/2099-02-31 is not a date on the calendar/);
    expect(await snapshotTenant(op.tenantId)).toEqual(before);
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items).toEqual([]);

    // A leap day, an offset and a fraction are dates too: stored in UTC, to the second.
    const created = expectStatus(
      await callRoute(op, routes.createOperation, { body: operationBody({ startDate: "2028-02-29T00:00:00Z", endDate: "2028-03-01T00:30:00.5+01:00" }) }),
      201,
    );
    expect([created.startDate, created.endDate]).toEqual(["2028-02-29T00:00:00Z", "2028-02-29T23:30:00Z"]);
  });

  it("PATCH: 400 naming the field, the Operation unchanged", async () => {
    const op = await newTenant();
    const target = await createOperation(op);
    for (const [value] of [...IMPOSSIBLE, ...WITHOUT_TIME_ZONE]) {
      expectValidation(await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { endDate: value } }), "body.endDate");
      expectValidation(
        await callRoute(op, routes.patchOperation, { params: { operationId: target.id }, body: { schedule: { deactivateAt: value } } }),
        "body.schedule.deactivateAt",
      );
    }
    expect(await readOperationVersion(op, target.id)).toBe(target.version);
  });

  it("key expiry: 400 naming expiresAt, no key issued; a real date issues one", async () => {
    const op = await newTenant();
    const keys = expectStatus(await callRoute(op, routes.listKeys), 200).items;
    for (const expiresAt of ["2099-02-31T00:00:00Z", "2099-02-01", "2099-02-01T00:00:00"]) {
      expectValidation(await callRoute(op, routes.createKey, { body: { role: "OPERATOR", expiresAt } }), "body.expiresAt");
    }
    expect(expectStatus(await callRoute(op, routes.listKeys), 200).items).toEqual(keys);
    expect(expectStatus(await callRoute(op, routes.createKey, { body: { role: "OPERATOR", expiresAt: "2099-02-28T23:59:59+01:00" } }), 201).expiresAt).toBe(
      "2099-02-28T22:59:59Z",
    );
  });

  it("list filters: 400 naming the parameter", async () => {
    const op = await newTenant();
    for (const name of ["startDateFrom", "startDateTo", "endDateFrom", "endDateTo"]) {
      for (const [value] of [IMPOSSIBLE[0], WITHOUT_TIME_ZONE[0]]) {
        expectValidation(await callRoute(op, routes.listOperations, { query: { [name]: value } }), `query.${name}`);
        expectValidation(await callRoute(op, routes.listFrontOperations, { query: { [name]: value } }), `query.${name}`);
      }
      expectStatus(await callRoute(op, routes.listOperations, { query: { [name]: "2027-03-01T00:00:00Z" } }), 200);
    }
  });
});

async function readOperationVersion(caller: Parameters<typeof callRoute>[0], operationId: string) {
  return expectStatus(await callRoute(caller, routes.getOperation, { params: { operationId } }), 200).version;
}
