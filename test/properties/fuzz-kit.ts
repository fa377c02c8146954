// Shared by the fuzz files: arbitraries for random bodies, query strings, ids and headers, the tenant
// they run against, and the invariant (never a 500; every 4xx a clean problem+json that changes nothing).
// The fuzz is split over several files because the test harness's SELF.fetch slows down with every
// request a file makes (cloudflare/workers-sdk#15446); each file gets a fresh runtime.
import fc from "fast-check";
import { expect } from "vitest";
import {
  call,
  createOperation,
  expectStatus,
  newTenant,
  OPERATION_LIST_PARAMETERS,
  uniqueId,
  type ApiResponse,
  type Caller,
  callRoute,
  problemCodeOf,
} from "../helpers/client";
import { routes } from "../helpers/routes";
import { accountKeyAttachedTo, activeOperation, linkDirectly, snapshotTenant } from "../helpers/direct";
import { expectCleanProblem } from "../helpers/problems";

// ---- arbitraries ---------------------------------------------------------------------------

const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "\u001f",
  "%",
  "_",
  "\\",
  "'",
  '"',
  "'; drop table operations; --",
  '" or 1=1 --',
  "../../etc/passwd",
  "💥🔥",
  "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}",
  "É",
  "ß",
  "İ",
  "\uFEFF",
  "\uD800",
  "a".repeat(2001),
  "x".repeat(70_000),
  "2027-02-30",
  "2027-02-29T24:00:00Z",
  "9999-12-31T23:59:59-14:00",
  "0000-01-01T00:00:00+01:00",
  "2027-03-01T00:00:00.123456789Z",
  "+275760-09-13T00:00:00Z",
  "NaN",
  "Infinity",
  "-1",
  "1e400",
  "__proto__",
  "constructor",
  "toString",
  "null",
  "DRAFT",
  "ACTIVE",
  "PUBLIC",
  "op_",
  "%zz",
  "%",
  "%E0%A4%A",
];

export const oddString = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);

export const hugeNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 31, 2_147_483_648, -0, Number.MIN_VALUE, 0.1),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

export const anyJson = fc.jsonValue({ maxDepth: 3 });

export const wrongValue = fc.oneof(anyJson, oddString, hugeNumber, fc.constant(null), fc.boolean(), fc.array(oddString, { maxLength: 3 }), fc.constant({}));

const localeKey = fc.oneof(
  fc.constantFrom("en", "fr", "fr-FR", "de", "zh-Hant-TW", "EN", "x", "toString", "__proto__", "en_US", ""),
  fc.string({ maxLength: 10 }),
);

const localized = fc.oneof(fc.dictionary(localeKey, fc.oneof(oddString, fc.constant(null), hugeNumber), { maxKeys: 4 }), wrongValue);

const date = fc.oneof(
  fc.date({ min: new Date("1900-01-01"), max: new Date("2200-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom("2027-03-01T00:00:00Z", "2027-04-30T23:59:59Z", "2027-03-01", "2027-03-01T10:00+02:00"),
  oddString,
  hugeNumber,
);

/** Wild bodies: every field odd, missing or unknown at once. */
const wildOperationBody = fc
  .record(
    {
      code: fc.oneof(fc.constant("__unique__"), oddString, hugeNumber),
      externalId: fc.oneof(oddString, fc.constant(null), hugeNumber),
      name: localized,
      description: localized,
      type: fc.oneof(fc.constantFrom("PUBLIC", "PRIVATE", "public", "BOTH"), wrongValue),
      status: fc.constantFrom("DRAFT", "ACTIVE", "INACTIVE", "DELETED"),
      startDate: date,
      endDate: date,
      ownerIds: fc.oneof(fc.array(fc.oneof(oddString, hugeNumber), { maxLength: 4 }), wrongValue),
      id: oddString,
      version: hugeNumber,
      lineCount: hugeNumber,
    },
    { requiredKeys: [] },
  )
  .map((body) => (body.code === "__unique__" ? { ...body, code: uniqueId("FZ") } : body));

const validText = fc.string({ unit: "grapheme", maxLength: 30 });
const validLocale = fc.constantFrom("en", "fr", "de", "fr-FR", "zh-Hant-TW", "pt-BR");
const validName = fc.dictionary(validLocale, validText, { minKeys: 1, maxKeys: 3 });
const validDate = fc
  .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
  // A date-time with its zone (Z or an offset): a date alone is refused since date-times need one.
  .chain((d) => fc.constantFrom(d.toISOString(), `${d.toISOString().slice(0, 19)}Z`, `${d.toISOString().slice(0, 19)}+02:00`));
const validDates = fc.tuple(validDate, validDate).map(([a, b]) => (Date.parse(a) <= Date.parse(b) ? [a, b] : [b, a]) as [string, string]);
const ownerIds = fc.array(fc.stringMatching(/^[a-z0-9_]{1,12}$/), { maxLength: 3 });
const externalId = fc.oneof(fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/), fc.constant(null));

const OPERATION_FIELDS = ["code", "externalId", "name", "description", "type", "startDate", "endDate", "ownerIds"];
const UNKNOWN_FIELDS = ["status", "id", "version", "lineCount", "accountCount", "createdAt", "__proto__", "constructor", ""];

/** None, or one or two changes that each make a valid body invalid (or, by chance, keep it valid). */
const mutations = fc.oneof(
  { weight: 2, arbitrary: fc.constant([]) },
  {
    weight: 3,
    arbitrary: fc.array(
      fc.oneof(
        fc.record({ set: fc.constantFrom(...OPERATION_FIELDS, ...UNKNOWN_FIELDS), value: wrongValue }),
        fc.record({ drop: fc.constantFrom(...OPERATION_FIELDS) }),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  },
);

function mutate(body: Record<string, unknown>, changes: readonly ({ set: string; value: unknown } | { drop: string })[]) {
  const result: Record<string, unknown> = { ...body };
  for (const change of changes) {
    if ("drop" in change) delete result[change.drop];
    else Object.defineProperty(result, change.set, { value: change.value, enumerable: true, configurable: true, writable: true });
  }
  return result;
}

const validCreateBody = fc
  .record({
    name: validName,
    description: fc.option(validName, { nil: undefined }),
    type: fc.constantFrom("PUBLIC", "PRIVATE"),
    dates: validDates,
    ownerIds: fc.option(ownerIds, { nil: undefined }),
    externalId: fc.option(externalId, { nil: undefined }),
  })
  .map(({ dates: [startDate, endDate], ...rest }) => {
    const body: Record<string, unknown> = { code: uniqueId("FZ"), startDate, endDate };
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) body[key] = value;
    return body;
  });

/** Create bodies: valid ones, valid ones with a field or two broken, and wild ones. */
export const nearOperationBody = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(validCreateBody, mutations).map(([body, changes]) => mutate(body, changes)) },
  { weight: 1, arbitrary: wildOperationBody },
);

const validPatchBody = fc
  .record(
    {
      code: fc.constant(null).map(() => uniqueId("FZ")),
      externalId,
      name: fc.dictionary(validLocale, fc.oneof(validText, fc.constant(null)), { maxKeys: 3 }),
      description: fc.dictionary(validLocale, fc.oneof(validText, fc.constant(null)), { maxKeys: 3 }),
      type: fc.constantFrom("PUBLIC", "PRIVATE"),
      dates: validDates,
      ownerIds,
    },
    { requiredKeys: [] },
  )
  .map(({ dates, ...rest }) => (dates ? { ...rest, startDate: dates[0], endDate: dates[1] } : rest) as Record<string, unknown>);

/** Merge patches: valid ones (which may still be refused by state or merged dates), broken ones, wild ones. */
export const nearOperationPatch = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(validPatchBody, mutations).map(([body, changes]) => mutate(body, changes)) },
  { weight: 1, arbitrary: wildOperationBody },
);

export const statusBody = fc.oneof(
  { weight: 3, arbitrary: fc.record({ status: fc.constantFrom("DRAFT", "ACTIVE", "INACTIVE") }) },
  { weight: 1, arbitrary: fc.record({ status: fc.oneof(fc.constantFrom("active", "ARCHIVED", ""), wrongValue) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ status: fc.constantFrom("DRAFT", "ACTIVE", "INACTIVE"), extra: wrongValue }) },
);

export type Body = { json: unknown } | { raw: string } | { none: true };

export const body = (shape: fc.Arbitrary<unknown>): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: 8, arbitrary: shape.map((json) => ({ json })) },
    { weight: 2, arbitrary: anyJson.map((json) => ({ json })) },
    { weight: 1, arbitrary: fc.oneof(oddString, fc.constantFrom("{", "[1,", '{"a":1}}', "\u0000{}", '{"code": "\\ud800"}')).map((raw) => ({ raw })) },
    { weight: 1, arbitrary: fc.constant({ none: true as const }) },
  );

/** The Operation list's parameters and those of /v1/events. */
const QUERY_KEYS = [...OPERATION_LIST_PARAMETERS, "after", "types"];

const queryValue = fc.oneof(
  fc.constantFrom(
    "0",
    "1",
    "500",
    "501",
    "-1",
    "1.5",
    "DRAFT,ACTIVE",
    "DRAFT,,",
    ",",
    "-name,code",
    "name,-",
    "price",
    "code",
    "externalId",
    "PUBLIC",
    "fr",
    "2027-03-01",
    "op_x,op_y",
    "operation.created",
  ),
  oddString,
  fc.constant("a,".repeat(600)),
  fc.string({ unit: "binary", maxLength: 60 }),
);

/** A query string: known and unknown keys, odd values, repeats, and sometimes raw undecodable text. */
export const queryString = fc.oneof(
  fc
    .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, fc.string({ maxLength: 12 })), queryValue), { maxLength: 5 })
    .map((pairs) => {
      const params = new URLSearchParams();
      for (const [key, value] of pairs) params.append(key, value);
      return params.toString();
    }),
  fc.constantFrom("limit=%zz", "name=%E0%A4%A", "%=%", "&&&", "limit", "sort=%2Cname", "ids=%00", "nextToken=a.b"),
);

const headerValue = fc.stringMatching(/^[\x21-\x7e]{0,40}$/);

const oddHeaders = fc.record(
  {
    "If-Match": fc.oneof(headerValue, fc.constantFrom('"1"', '"2"', "*", 'W/"1"', '"1", "2"')),
    "Idempotency-Key": headerValue,
    locale: fc.oneof(headerValue, fc.constantFrom("fr-FR", "en")),
    "content-type": fc.constantFrom("application/json", "text/plain", "application/merge-patch+json", "application/json; charset=utf-8"),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, string>>;

/** Mostly no extra headers (so valid requests get through); otherwise odd If-Match, keys, locales, content types. */
export const headers = fc.oneof({ weight: 3, arbitrary: fc.constant({} as Record<string, string>) }, { weight: 2, arbitrary: oddHeaders });

// ---- the world the requests run against ------------------------------------------------------

export interface World {
  operator: Caller;
  account: Caller;
  otherTenant: Caller;
  /** A DRAFT, an ACTIVE, a linked ACTIVE, an INACTIVE Operation of `operator`, and one of `otherTenant`. */
  idPool: string[];
}

/** A tenant with an Operation in each state (one with a linked cart), an ACCOUNT key and a second tenant. */
export async function setupWorld(): Promise<World> {
  const operator = await newTenant();
  const otherTenant = await newTenant();
  const draft = await createOperation(operator, { type: "PRIVATE" });
  const active = await activeOperation(operator, { type: "PUBLIC" });
  const linked = await activeOperation(operator, { type: "PRIVATE" });
  await linkDirectly(linked.id, { carts: 1 });
  const inactive = await activeOperation(operator);
  expectStatus(await callRoute(operator, routes.changeStatus, { params: { operationId: inactive.id }, body: { status: "INACTIVE" } }), 200);
  const { caller: account } = await accountKeyAttachedTo(operator.tenantId, [draft.id, linked.id]);
  const foreign = await createOperation(otherTenant);
  return { operator, account, otherTenant, idPool: [draft.id, active.id, linked.id, inactive.id, foreign.id] };
}

export const operationIdIn = (world: World) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...world.idPool) },
    { weight: 1, arbitrary: fc.oneof(oddString, fc.constant("op_00000000000000000000000000")).filter((s) => s.length > 0 && s.length < 300) },
  );

export const callerIn = (world: World) =>
  fc.constantFrom("operator", "operator", "operator", "operator", "account").map((who) => (who === "account" ? world.account : world.operator));

// ---- the invariant -----------------------------------------------------------------------

/** encodeURIComponent without throwing on lone surrogates (they become U+FFFD, as URLs would carry them). */
export const encodeSegment = (text: string) =>
  encodeURIComponent(text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));

export async function send(who: Caller, method: string, path: string, query: string, sent: Body, extraHeaders: Record<string, string>) {
  const url = `${path}${query ? `?${query}` : ""}`;
  const options: Parameters<typeof call>[3] = { headers: { ...extraHeaders } };
  if ("json" in sent) options.rawBody = JSON.stringify(sent.json) ?? "null";
  else if ("raw" in sent) options.rawBody = sent.raw;
  if (options.rawBody !== undefined && !extraHeaders["content-type"]) options.headers!["content-type"] = "application/json";
  return call(who, method, url, options);
}

/** Runs one request and checks the invariant; `mayChange`: a 2xx answer may change the tenant's data. */
export async function checkRequest(world: World, request: () => Promise<ApiResponse>, mayChange: boolean) {
  const { operator, otherTenant } = world;
  const before = await snapshotTenant(operator.tenantId);
  const otherBefore = await snapshotTenant(otherTenant.tenantId);
  const response = await request();
  expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
  expect(response.headers.get("x-request-id")).toBeTruthy();
  if (response.status >= 400) {
    expectCleanProblem(response);
    expect(await snapshotTenant(operator.tenantId), `refused ${response.status} ${problemCodeOf(response)} must change nothing`).toEqual(before);
  } else {
    if (response.status !== 204) expect(typeof response.body).toBe("object");
    if (!mayChange) expect(await snapshotTenant(operator.tenantId)).toEqual(before);
  }
  expect(await snapshotTenant(otherTenant.tenantId)).toEqual(otherBefore);
  return response;
}

/** The statuses a property met: checked afterwards so a generator that never reaches a path is noticed. */
export function outcomes() {
  const statuses = new Set<number>();
  return {
    statuses,
    record(response: ApiResponse) {
      statuses.add(response.status);
    },
    expectSome(predicate: (status: number) => boolean, what: string) {
      expect([...statuses].some(predicate), `${what} among ${[...statuses].join(", ")}`).toBe(true);
    },
  };
}

/** Per property: enough runs to meet the odd cases, capped in time so the fuzz stays within about a minute. */
export const settings = { numRuns: 60, plugins: [fc.interruptAfterTimeLimit(8_000)], endOnFailure: true };
