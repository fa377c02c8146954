import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { buildOpenApiDocument } from "../../src/platform/http/openapi";
import { call, callRoute, expectProblem, expectStatus, newTenant, operationBody, uniqueId, type ApiResponse, type Caller } from "../helpers/client";
import { snapshotWholeTenant } from "../helpers/direct";
import type { OpenApiDocument, OpenApiSchema } from "../helpers/openapi";
import { routes } from "../helpers/routes";
import { cartBody, line, putAccounts, setUpOperation } from "../helpers/setup";

/*
 * Text that names something (codes, external ids, account, supplier, store and user ids, the ids of
 * the API's rows) follows one rule wherever it enters: a control character, a format character or a
 * lone surrogate is 400 validation_failed naming the field, and changes nothing; the text is kept and
 * compared in Unicode NFC, so two spellings that look the same are one id.
 *
 * The sweep is driven by the registered routes: every path parameter, every query parameter and body
 * field that carries an id (a parameter or field the tables below do not classify fails the sweep, so
 * a route added later is covered the day it is registered), and the store headers a route reads.
 */

/** Refused in any id: control characters (NUL, CR LF, backspace, DEL), format characters (U+200B, U+202E, U+FEFF). */
const UNSEEN = ["A\u0000B", "A\r\nB", "A\bB", "A\u007fB", "A\u200bB", "A\u202eB", "\ufeffAB"];
/** Only a JSON body can carry half of a UTF-16 pair (a URL or a header cannot spell one). */
const LONE_SURROGATES = ["A\ud800B", "A\udc00"];
/** What a header can carry at all (no NUL, CR or LF; workerd takes the rest, as UTF-8). */
const UNSEEN_IN_HEADERS = ["A\bB", "A\u0001B", "A\u007fB", "A\u200bB", "A\u202eB"];

const NFC = "CAFÉ-1";
const NFD = "CAFE\u0301-1";

/** Query parameters that carry ids (each item of a comma list is one). */
const ID_QUERY_PARAMETERS = new Set([
  "ids",
  "operationId",
  "resourceId",
  "actorKeyId",
  "actorUserId",
  "accountIds",
  "accountId",
  "variantIds",
  "variantExternalId",
  "ownerIds",
  "userId",
  "supplierId",
  "storeId",
  "after",
  "eventId",
  "types",
]);
/** Query parameters that do not: numbers, enums, dates, text searched for, tokens, flags. */
const OTHER_QUERY_PARAMETERS = new Set([
  "limit",
  "nextToken",
  "sort",
  "status",
  "idType",
  "name",
  "operationName",
  "type",
  "startDateFrom",
  "startDateTo",
  "endDateFrom",
  "endDateTo",
  "locale",
  "variantName",
  "minQuantity",
  "maxQuantity",
  "recommendedQuantity",
  "quantityIncrement",
  "email",
  "accountName",
  "operationStatus",
  "dryRun",
  "explain",
  "role",
  "field",
  "from",
  "to",
  "resourceType",
  "asOf",
  "ordered",
  "orderedQuantity",
  "orderedQuantity[gte]",
  "orderedQuantity[lte]",
  "orderCount",
  "orderCount[gte]",
  "orderCount[lte]",
]);
/** Body fields (by their own name) that hold text other than an id; any other string field of a body is an id. */
const OTHER_BODY_FIELDS = new Set([
  "name",
  // An ISO 4217 code: three capitals and nothing else pass.
  "currency",
  "description",
  "variantName",
  "url",
  "eventTypes",
  "email",
  "startDate",
  "endDate",
  "activateAt",
  "deactivateAt",
  "expiresAt",
  "op",
  "from",
  "to",
  // A plan's page token, as in a query: opaque, checked as a token.
  "nextToken",
]);

const routeKey = (spec: { method: string; path: string }) => `${spec.method.toUpperCase()} ${spec.path}`;
const paramsOf = (path: string) => [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]);
/** A well-formed id for each path parameter: validation answers before any lookup. */
const SOME_ID: Record<string, string> = {
  operationId: "op_00000000000000000000000000",
  ruleId: "qr_00000000000000000000000000",
  cartId: "cart_00000000000000000000000000",
  orderId: "ord_00000000000000000000000000",
  keyId: "key_00000000000000000000000000",
  webhookId: "wh_00000000000000000000000000",
  version: "1",
};
/** Path parameters that are numbers, not ids: any character but a digit is refused as not an integer. */
const NUMBER_PATH_PARAMETERS = new Set(["version"]);
const pathOf = (path: string, bad?: { name: string; value: string }) =>
  path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(name === bad?.name ? bad.value : SOME_ID[name]));

/** For each route with a body: bodies that would pass validation, and where in each an id sits. */
const BODIES: Record<string, { body: unknown; ids: (string | number)[][] }[]> = {
  "POST /v1/operations": [{ body: operationBody({ externalId: "EXT-1", ownerIds: ["u-1"] }), ids: [["code"], ["externalId"], ["ownerIds", 0]] }],
  "PATCH /v1/operations/:operationId": [{ body: { code: "C-1", externalId: "EXT-1", ownerIds: ["u-1"] }, ids: [["code"], ["externalId"], ["ownerIds", 0]] }],
  "POST /v1/operations/:operationId/status": [{ body: { status: "ACTIVE" }, ids: [] }],
  "PUT /v1/operations/:operationId/lines": [
    {
      body: [{ variantExternalId: "SKU-1", variantId: "v-1", minQuantity: 0, maxQuantity: 1 }],
      ids: [
        [0, "variantExternalId"],
        [0, "variantId"],
      ],
    },
  ],
  "DELETE /v1/operations/:operationId/lines": [{ body: ["SKU-1"], ids: [[0]] }],
  "PUT /v1/accounts": [
    {
      body: [{ accountId: "A-1", name: "A", users: [{ userId: "u-1", email: "u@example.test" }] }],
      ids: [
        [0, "accountId"],
        [0, "users", 0, "userId"],
      ],
    },
  ],
  "PUT /v1/operations/:operationId/accounts": [{ body: ["A-1"], ids: [[0]] }],
  "POST /v1/operations/:operationId/accounts": [{ body: ["A-1"], ids: [[0]] }],
  "DELETE /v1/operations/:operationId/accounts": [{ body: ["A-1"], ids: [[0]] }],
  "POST /v1/buying-policies/quotas/rules": [
    { body: { accountId: "A-1", supplierId: "S-1", storeId: "ST-1", minimum: 1 }, ids: [["accountId"], ["supplierId"], ["storeId"]] },
  ],
  "PUT /v1/buying-policies/quotas/rules/:ruleId": [
    { body: { accountId: "A-1", supplierId: "S-1", storeId: "ST-1", minimum: 1 }, ids: [["accountId"], ["supplierId"], ["storeId"]] },
  ],
  "PUT /v1/buying-policies/quotas/rules": [
    {
      body: [{ accountId: "A-1", supplierId: "S-1", storeId: "ST-1", minimum: 1 }],
      ids: [
        [0, "accountId"],
        [0, "supplierId"],
        [0, "storeId"],
      ],
    },
  ],
  "DELETE /v1/buying-policies/quotas/rules": [{ body: ["qr_00000000000000000000000000"], ids: [[0]] }],
  "PUT /v1/buying-policies/quotas/default": [{ body: { minimum: 1 }, ids: [] }],
  "POST /v1/buying-policies/quotas/evaluate": [
    {
      body: { orders: [{ accountId: "A-1", supplierId: "S-1", storeId: "ST-1", amount: 1 }] },
      ids: [
        ["orders", 0, "accountId"],
        ["orders", 0, "supplierId"],
        ["orders", 0, "storeId"],
      ],
    },
  ],
  "POST /v1/operations/:operationId/revert": [{ body: { toVersion: 1 }, ids: [] }],
  // A decision's comment is text shown as it is, held to the rule of ids (and of svc-change-reason): no control or format characters.
  "POST /v1/operations/:operationId/approvals": [{ body: { decision: "APPROVE", version: 1, comment: "Checked" }, ids: [["comment"]] }],
  "PUT /v1/settings/approvals": [{ body: { activation: { required: 0 } }, ids: [] }],
  "PUT /v1/settings/display": [{ body: { currency: "EUR" }, ids: [] }],
  "PUT /v1/settings/history": [{ body: { retentionYears: 5 }, ids: [] }],
  "POST /v1/tenant/moves": [{ body: { to: "SHARD_2", keepSourceMinutes: 5 }, ids: [] }],
  "POST /v1/buying-policies/quotas/impact": [
    {
      body: {
        changes: [
          { op: "create", rule: { accountId: "A-1", supplierId: "S-1", storeId: "ST-1", minimum: 1 } },
          { op: "delete", ruleId: "qr_00000000000000000000000000" },
        ],
      },
      ids: [
        ["changes", 0, "rule", "accountId"],
        ["changes", 0, "rule", "supplierId"],
        ["changes", 0, "rule", "storeId"],
        ["changes", 1, "ruleId"],
      ],
    },
  ],
  "POST /v1/carts": [{ body: cartOf(), ids: [["operationId"], ["accountId"], ["storeId"], ["lines", 0, "variantExternalId"], ["lines", 0, "supplierId"]] }],
  "POST /v1/orders": [
    { body: cartOf(), ids: [["operationId"], ["accountId"], ["storeId"], ["lines", 0, "variantExternalId"], ["lines", 0, "supplierId"]] },
    { body: { cartId: SOME_ID.cartId }, ids: [["cartId"]] },
  ],
  "POST /v1/operations/:operationId/compare": [
    { body: { lines: [{ variantExternalId: "SKU-1", quantity: 1 }], accountId: "A-1" }, ids: [["lines", 0, "variantExternalId"], ["accountId"]] },
    { body: { orderId: SOME_ID.orderId }, ids: [["orderId"]] },
  ],
  "PUT /v1/operations/:operationId/allocations": [{ body: [{ variantExternalId: "SKU-1", poolQuantity: 1 }], ids: [[0, "variantExternalId"]] }],
  "PUT /v1/operations/:operationId/allocations/accounts": [
    {
      body: [{ variantExternalId: "SKU-1", accountId: "A-1", maxQuantity: 1 }],
      ids: [
        [0, "variantExternalId"],
        [0, "accountId"],
      ],
    },
  ],
  "POST /v1/operations/:operationId/allocations/plan": [
    { body: { method: "equal", variantExternalIds: ["SKU-1"] }, ids: [["variantExternalIds", 0]] },
    { body: { method: "proportional", basis: { operationId: SOME_ID.operationId } }, ids: [["basis", "operationId"]] },
  ],
  // A cancellation's reason is text shown as it is, held to the rule of ids (as a comment is).
  "POST /v1/orders/:orderId/cancel": [{ body: { reason: "Asked by phone" }, ids: [["reason"]] }],
  "POST /v1/keys": [{ body: { role: "ACCOUNT", userId: "u-1" }, ids: [["userId"]] }],
  "POST /v1/webhooks": [{ body: { url: "https://hooks.example.com/in" }, ids: [] }],
  "PATCH /v1/webhooks/:webhookId": [{ body: { description: "d" }, ids: [] }],
};

function cartOf() {
  return {
    operationId: SOME_ID.operationId,
    accountId: "A-1",
    storeId: "ST-1",
    lines: [{ variantExternalId: "SKU-1", quantity: 1, unitPrice: 1, supplierId: "S-1" }],
  };
}

function withValueAt(body: unknown, at: (string | number)[], value: string): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let target = copy;
  for (const step of at.slice(0, -1)) target = target[step] as Record<string | number, unknown>;
  target[at[at.length - 1]] = value;
  return copy;
}

const document = buildOpenApiDocument(apiRoutes) as unknown as OpenApiDocument;

/** Every string field of a request body schema, as a path ("*" for an array item or a map value); enums left out. */
function stringFields(schema: OpenApiSchema, path: string[] = []): string[] {
  if (schema.$ref) return stringFields(document.components.schemas[schema.$ref.split("/").pop()!], path);
  const alternatives = [...((schema.oneOf as OpenApiSchema[]) ?? []), ...((schema.anyOf as OpenApiSchema[]) ?? [])];
  if (alternatives.length) return alternatives.flatMap((alternative) => stringFields(alternative, path));
  const fields = [schema.type].flat().includes("string") && !schema.enum ? [path.join(".")] : [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) fields.push(...stringFields(property, [...path, name]));
  if (schema.items) fields.push(...stringFields(schema.items, [...path, "*"]));
  if (typeof schema.additionalProperties === "object") fields.push(...stringFields(schema.additionalProperties as OpenApiSchema, [...path, "*"]));
  return fields;
}

const fieldPattern = (at: (string | number)[]) => at.map((step) => (typeof step === "number" ? "*" : step)).join(".");
const isOtherText = (field: string) =>
  OTHER_BODY_FIELDS.has(
    field
      .split(".")
      .filter((step) => step !== "*")
      .pop()!,
  );

/** A 400 validation_failed whose errors[] names `field` (or a field under it), saying which character. */
function expectRefused(response: ApiResponse, field: string): string | undefined {
  try {
    const problem = expectProblem(response, 400, "validation_failed");
    const named = problem.errors?.filter((error) => error.field === field || error.field?.startsWith(`${field}.`)) ?? [];
    if (!named.length) return `names ${JSON.stringify(problem.errors?.map((error) => error.field))}, not ${field}`;
    if (!named.some((error) => /U\+[0-9A-F]{4}/.test(error.message))) return `does not say which character: ${named[0].message}`;
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe("ids with control or format characters, on every registered route", () => {
  let op: Caller;
  let before: Awaited<ReturnType<typeof snapshotWholeTenant>>;
  beforeAll(async () => {
    op = await newTenant();
    before = await snapshotWholeTenant(op.tenantId);
  });
  afterAll(async () => {
    // Hundreds of refused requests: none changed anything.
    expect(await snapshotWholeTenant(op.tenantId)).toEqual(before);
  });

  it("classifies every query parameter and every string body field of every route", () => {
    const unclassified: string[] = [];
    for (const { spec } of apiRoutes) {
      for (const name of Object.keys(spec.query?.shape ?? {})) {
        if (!ID_QUERY_PARAMETERS.has(name) && !OTHER_QUERY_PARAMETERS.has(name)) unclassified.push(`${routeKey(spec)} ?${name}`);
      }
      if (!spec.body) continue;
      const entries = BODIES[routeKey(spec)];
      if (!entries) {
        unclassified.push(`${routeKey(spec)}: a body that passes validation, with its ids, in BODIES`);
        continue;
      }
      const operation = document.paths[spec.path.replace(/:([A-Za-z]+)/g, "{$1}")][spec.method];
      const listed = new Set(entries.flatMap((entry) => entry.ids.map(fieldPattern)));
      for (const field of stringFields(operation.requestBody.content["application/json"].schema)) {
        if (!listed.has(field) && !isOtherText(field)) unclassified.push(`${routeKey(spec)} body ${field}`);
      }
    }
    expect(unclassified, "an id goes in ID_QUERY_PARAMETERS or BODIES[…].ids, other text in OTHER_QUERY_PARAMETERS or OTHER_BODY_FIELDS").toEqual([]);
  });

  for (const { spec } of apiRoutes) {
    const key = routeKey(spec);
    const method = spec.method.toUpperCase();
    it(`${key}: 400 naming the field for each id position, nothing changed`, async () => {
      const wrong: string[] = [];
      const record = (what: string, problem: string | undefined) => problem && wrong.push(`${what}: ${problem}`);
      const someBody = BODIES[key]?.[0].body;
      for (const name of paramsOf(spec.path)) {
        if (NUMBER_PATH_PARAMETERS.has(name)) {
          for (const value of UNSEEN)
            expect((await call(op, method, pathOf(spec.path, { name, value }))).status, `path ${name}=${JSON.stringify(value)}`).toBe(400);
          continue;
        }
        for (const value of UNSEEN) {
          const response = await call(op, method, pathOf(spec.path, { name, value }), { body: someBody });
          record(`path ${name}=${JSON.stringify(value)}`, expectRefused(response, `path.${name}`));
        }
      }
      for (const name of Object.keys(spec.query?.shape ?? {}).filter((name) => ID_QUERY_PARAMETERS.has(name))) {
        for (const value of UNSEEN) {
          // Alone, and as an item of a comma list after a good one.
          for (const sent of [value, `GOOD-1,${value}`]) {
            const response = await call(op, method, pathOf(spec.path), { query: { [name]: sent }, body: someBody });
            record(`query ${name}=${JSON.stringify(sent)}`, expectRefused(response, `query.${name}`));
          }
        }
      }
      for (const name of (spec.headers ?? []).filter((name) => name === "svc-store" || name === "svc-store-view")) {
        for (const value of UNSEEN_IN_HEADERS) {
          const response = await call(op, method, pathOf(spec.path), { headers: { [name]: value }, body: someBody });
          record(`header ${name}=${JSON.stringify(value)}`, expectRefused(response, `header.${name}`));
        }
      }
      for (const { body, ids } of BODIES[key] ?? []) {
        for (const at of ids) {
          for (const value of [...UNSEEN, ...LONE_SURROGATES]) {
            const response = await call(op, method, pathOf(spec.path), { body: withValueAt(body, at, value) });
            record(`body ${at.join(".")}=${JSON.stringify(value)}`, expectRefused(response, ["body", ...at].join(".")));
          }
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});

describe("DELETE /v1/buying-policies/quotas/rules with ids holding control characters", () => {
  it("answers 400 naming each, deletes nothing, and takes the ids once corrected", async () => {
    const op = await newTenant();
    const rule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: "A-1", minimum: 10 } }), 201);
    const before = await snapshotWholeTenant(op.tenantId);
    const sent = [rule.id, `${rule.id}\u0000`, `${rule.id}\r\nX`, `${rule.id}\bX`];
    const problem = expectProblem(await callRoute(op, routes.deleteRules, { body: sent }), 400, "validation_failed");
    expect(problem.errors?.map((error) => error.field)).toEqual(["body.1", "body.2", "body.3"]);
    expect(await snapshotWholeTenant(op.tenantId)).toEqual(before);
    expect(expectStatus(await callRoute(op, routes.deleteRules, { body: [rule.id, "qr_00000000000000000000000000"] }), 200)).toEqual({
      deleted: 1,
      notFound: ["qr_00000000000000000000000000"],
    });
  });
});

describe("two spellings of one id are one id (NFC)", () => {
  it("an Operation code: the NFD spelling is the NFC code, stored and found as NFC", async () => {
    const op = await newTenant();
    const created = expectStatus(await callRoute(op, routes.createOperation, { body: operationBody({ code: NFD, externalId: NFD }) }), 201);
    expect(created.code).toBe(NFC);
    expect(created.externalId).toBe(NFC);
    expectProblem(await callRoute(op, routes.createOperation, { body: operationBody({ code: NFC }) }), 409, "duplicate_code");
    for (const spelling of [NFC, NFD]) {
      const found = expectStatus(await callRoute(op, routes.listOperations, { query: { idType: "code", ids: spelling } }), 200);
      expect(found.items.map((item) => item.id)).toEqual([created.id]);
    }
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items).toHaveLength(1);
  });

  it("quota rules: one scope whatever the spelling, so evaluation finds one minimum", async () => {
    const op = await newTenant();
    const rule = expectStatus(await callRoute(op, routes.createRule, { body: { accountId: NFC, supplierId: NFD, minimum: 500 } }), 201);
    expect(rule).toMatchObject({ accountId: NFC, supplierId: NFC });
    expectProblem(await callRoute(op, routes.createRule, { body: { accountId: NFD, supplierId: NFC, minimum: 700 } }), 409, "duplicate_scope");
    // A bulk PUT with both spellings of one scope names the repeat.
    const repeated = expectProblem(
      await callRoute(op, routes.upsertRules, {
        body: [
          { accountId: NFC, minimum: 1 },
          { accountId: NFD, minimum: 2 },
        ],
      }),
      400,
      "validation_failed",
    );
    expect(repeated.errors?.map((error) => [error.field, error.code])).toEqual([["body.1.scope", "duplicate_key"]]);
    // A bulk PUT in the other spelling updates the same rule.
    expect(expectStatus(await callRoute(op, routes.upsertRules, { body: [{ accountId: NFD, supplierId: NFD, minimum: 600 }] }), 200)).toEqual({
      created: 0,
      updated: 1,
      unchanged: 0,
    });
    for (const [accountId, supplierId] of [
      [NFC, NFC],
      [NFD, NFD],
      [NFC, NFD],
    ]) {
      const evaluation = expectStatus(await callRoute(op, routes.evaluateQuotas, { body: { orders: [{ accountId, supplierId, amount: 100 }] } }), 200);
      expect(evaluation.results[0]).toMatchObject({ effectiveMinimum: 600, source: { kind: "ACCOUNT_SUPPLIER", ruleId: rule.id } });
    }
    const listed = expectStatus(await callRoute(op, routes.listRules, { query: { accountId: NFD } }), 200);
    expect(listed.items.map((item) => item.id)).toEqual([rule.id]);
  });

  it("lines, the directory and attachments: the NFD spelling finds the NFC row, in JSON, CSV and query filters", async () => {
    const op = await newTenant();
    const draft = await setUpOperation(op, { status: "DRAFT", lines: [] });
    const params = { operationId: draft.id };
    expect(
      expectStatus(await callRoute(op, routes.putLines, { params, body: [{ variantExternalId: NFC, minQuantity: 0, maxQuantity: 5 }] }), 200),
    ).toMatchObject({ created: 1 });
    const csv = await call(op, "PUT", `/v1/operations/${draft.id}/lines`, {
      rawBody: `variantExternalId,minQuantity,maxQuantity\r\n${NFD},0,6\r\n`,
      headers: { "content-type": "text/csv" },
    });
    expect(expectStatus(csv, 200)).toMatchObject({ created: 0, updated: 1, lineCount: 1 });
    const lines = expectStatus(await callRoute(op, routes.listLines, { params, query: { variantIds: NFD } }), 200);
    expect(lines.items.map((item) => [item.variantExternalId, item.maxQuantity])).toEqual([[NFC, 6]]);

    await putAccounts(op, [{ accountId: NFD, users: [{ userId: NFD, email: "cafe@example.test" }] }]);
    const directory = expectStatus(await callRoute(op, routes.listDirectory, { query: { accountIds: NFC, userId: NFD } }), 200);
    expect(directory.items.map((item) => [item.accountId, item.users[0].userId])).toEqual([[NFC, NFC]]);
    expect(expectStatus(await callRoute(op, routes.attachAccounts, { params, body: [NFC] }), 200)).toMatchObject({ attached: 1 });
    expect(expectStatus(await callRoute(op, routes.attachAccounts, { params, body: [NFD] }), 200)).toMatchObject({ attached: 0, alreadyAttached: 1 });
    expect(expectStatus(await callRoute(op, routes.detachAccounts, { params, body: [NFD] }), 200)).toMatchObject({ detached: 1, notAttached: [] });
  });

  it("the store a cart is for, from the body or the svc-store header", async () => {
    const op = await newTenant();
    const accountId = uniqueId("acc");
    await putAccounts(op, [{ accountId }]);
    const open = await setUpOperation(op, { attach: [accountId] });
    const cart = expectStatus(await callRoute(op, routes.createCart, { body: { ...cartBody(open.id, accountId, [line("SKU-A", 1)]), storeId: NFD } }), 201);
    expect(cart.storeId).toBe(NFC);
    const fromHeader = expectStatus(
      await callRoute(op, routes.createCart, { body: cartBody(open.id, accountId, [line("SKU-A", 1)]), headers: { "svc-store": NFD } }),
      201,
    );
    expect(fromHeader.storeId).toBe(NFC);
  });
});

describe("CSV cells and lone surrogates", () => {
  it("a CSV cell with a format character is 400 naming the item and its row, and imports nothing", async () => {
    const op = await newTenant();
    const draft = await setUpOperation(op, { status: "DRAFT", lines: [] });
    const before = await snapshotWholeTenant(op.tenantId);
    const imports: [string, string, string][] = [
      [`/v1/operations/${draft.id}/lines`, "variantExternalId,minQuantity,maxQuantity\r\nSKU-1,0,5\r\nSKU\u200b2,0,5\r\n", "body.1.variantExternalId"],
      ["/v1/buying-policies/quotas/rules", "accountId,supplierId,minimum\r\nA-1,,5\r\nA-2,S\u202e1,5\r\n", "body.1.supplierId"],
      [`/v1/operations/${draft.id}/accounts`, "accountId\r\nA-1\r\n\ufeffA-2\r\n", "body.1"],
    ];
    for (const [path, rawBody, field] of imports) {
      const problem = expectProblem(await call(op, "PUT", path, { rawBody, headers: { "content-type": "text/csv" } }), 400, "validation_failed");
      expect(problem.errors?.map((error) => [error.field, error.row])).toEqual([[field, 3]]);
    }
    expect(await snapshotWholeTenant(op.tenantId)).toEqual(before);
  });

  it("a JSON body with a lone surrogate (an escape no character is) in a code is 400; the corrected body creates", async () => {
    const op = await newTenant();
    const body = JSON.stringify(operationBody({ code: "X" })).replace('"code":"X"', '"code":"OP-\\ud800"');
    const problem = expectProblem(await call(op, "POST", "/v1/operations", { rawBody: body }), 400, "validation_failed");
    expect(problem.errors).toEqual([expect.objectContaining({ field: "body.code", message: expect.stringContaining("U+D800 (a lone surrogate)") })]);
    expect(expectStatus(await callRoute(op, routes.listOperations), 200).items).toEqual([]);
    expectStatus(await call(op, "POST", "/v1/operations", { rawBody: body.replace("OP-\\ud800", "OP-1") }), 201);
  });
});
