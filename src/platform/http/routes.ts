import { zValidator } from "@hono/zod-validator";
import { bodyLimit } from "hono/body-limit";
import type { Context, MiddlewareHandler } from "hono";
import type * as z from "zod";
import { routeNotFound } from "./create-app";
import type { App, AppBindings } from "./context";
import type { Role } from "../core/principal";
import { requireRole } from "./auth";
import { ApiError, type ErrorCode, type ProblemItem } from "../core/errors";
import { problemResponse } from "./problem-response";
import { rateLimit, type RateLimitClass } from "./rate-limits";
import { tenantMovingError } from "../data/tenancy";
import { announceDeprecations, deprecationOf, type Deprecation } from "./deprecation";
import { isCsvContentType, parseCsv } from "./csv";
import { idempotency, type ShownOnce } from "./idempotency";
import { streamsOnPurpose } from "./streaming";
import { identifierText } from "../schema/fields";
import { canonicalIdentifier, characterCount, identifierProblem } from "../core/identifier-text.mjs";
import type { RequestScope } from "../core/principal";
import { invalidJsonError, throwZodError, validationError, zodProblemItems } from "../schema/validation";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

type AnyObject = z.ZodObject<z.ZodRawShape>;

/** The OpenAPI document's tags, each with the description a reader of the reference sees first. */
export const API_TAGS = {
  Operations: "Campaigns of product-variant lines: create, change, move through DRAFT, ACTIVE and INACTIVE, delete.",
  Lines: "An Operation's product-variant lines and their quantity bounds, upserted and removed in batches (JSON or CSV).",
  Accounts: "The tenant's directory of buyer accounts and their users, and the accounts attached to a PRIVATE Operation.",
  Quotas: "Quotas Rules (minimum order amounts by account, supplier and store), the tenant's default minimum, and the evaluation of orders against them.",
  "Carts and orders": "Carts and orders placed against an open Operation, their cancellation, and the comparison of an order with the Operation's lines.",
  Allocation: "Scarce supply shared fairly: a line's pool, caps per account, a proposed split; orders never exceed what is left.",
  Live: "An Operation's page that updates itself: a ticket, then a WebSocket that hears of every committed change and who else is here.",
  Totals: "What a running campaign has done: orders, amounts, accounts that ordered or not, refusals, per line and per day, kept as orders happen.",
  Front: "What a storefront shows: the Operations open now and their lines, each localized text in one language.",
  Events: "The change log: every change in commit order, to poll.",
  History:
    "Who changed what from what to what: change records with previous and next values for every resource, an Operation as it was at any version, the difference between two versions, and a way back. Records past 90 days move to an archive: every read answers them the same, only slower; the retention setting (≥ 3 years) says when they go.",
  Approvals: "Four eyes before an Operation goes ACTIVE: the tenant's setting, and decisions bound to a version.",
  Settings: "How the tenant's data is shown: the currency its amounts are in.",
  Keys: "The tenant's API keys: issue, list, read, revoke.",
  Webhooks: "Subscriptions that push each event to a URL (signed, retried, recorded per delivery), instead of polling the change log.",
  Tenant: "Moving the tenant to another database while it keeps serving (for the platform's operators).",
  Service: "The instance itself: health.",
} as const;
export type ApiTag = keyof typeof API_TAGS;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, string>;
}

/** One route: its contract (fed to validation and to the OpenAPI document) and its handler. */
export interface RouteSpec<
  P extends AnyObject | undefined,
  Q extends AnyObject | undefined,
  B extends z.ZodType | undefined,
  R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
> {
  method: HttpMethod;
  /** Hono path syntax: /v1/operations/:operationId */
  path: string;
  /** The OpenAPI operationId, the name generated clients give the call: a camelCase verb phrase (listOperations, upsertLines), unique in the API. */
  operationId: string;
  summary: string;
  description?: string;
  tag: ApiTag;
  /** Roles allowed to call; anything else answers 403 forbidden. */
  roles: Role[];
  /**
   * Whether the route may change anything; by default every method but GET does. A POST that only
   * reads (an evaluation, a comparison) says `writes: false`. This one flag decides the rest alike:
   * a write spends the `write` budget, waits while its tenant moves (503) and takes an
   * Idempotency-Key; a read spends a read budget (`rateLimit`), is served during a move, and never
   * touches the idempotency store (it changes nothing, so a retry is safe as it is).
   */
  writes?: boolean;
  /** The budget a read spends: `read` unless named. A write always spends `write`. */
  rateLimit?: Exclude<RateLimitClass, "write">;
  /** Query parameters only OPERATOR keys may send (any other key sending one: 403 forbidden, before any validation). */
  operatorOnlyQuery?: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** Extra request headers the route reads (documented). Idempotency-Key needs no mention: every unsafe method takes it. */
  headers?: ("If-Match" | "locale" | "svc-store" | "svc-store-view")[];
  responses: R;
  /** Problem codes this route can answer beyond the ones every route can. */
  errors: ErrorCode[];
  /**
   * Codes this route answers with another status than the catalogue's, for a reason of its own: a
   * version named in a body that is no longer the current one is a conflict (409), where a stale
   * If-Match is a failed precondition (412). Applied to what its handler throws, and documented so.
   */
  errorStatuses?: Partial<Record<ErrorCode, number>>;
  /**
   * A batch body: an array (or the array at `field` of an object body) longer than `maxItems`
   * answers 413 batch_too_large before any per-item validation runs.
   */
  batch?: { maxItems: number; field?: string };
  /** The body may also be sent as CSV (Content-Type: text/csv): its columns, and how a record becomes one item of the JSON body. */
  csvImport?: CsvImport;
  /** The list can be read whole as one streamed CSV (Accept: text/csv): its columns. */
  csvExport?: { columns: readonly string[] };
  /** The whole route is a deprecated form (another route does the same): its answers say so. */
  deprecated?: Deprecation;
  /**
   * Secrets its answer shows once (an issued key, a signing secret): never kept with the stored
   * Idempotency-Key answer, so a replay answers without them, with a Warning.
   */
  shownOnce?: ShownOnce;
}

export interface CsvImport {
  columns: { allowed: readonly string[]; required: readonly string[] };
  toItem(cells: Record<string, string>, c: Context<AppBindings>): unknown;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteInput<P, Q, B> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
}

export type RouteHandler<P, Q, B> = (c: Context<AppBindings>, input: RouteInput<P, Q, B>) => Response | Promise<Response>;

export interface RouteDefinition {
  spec: RouteSpec<AnyObject | undefined, AnyObject | undefined, z.ZodType | undefined>;
  handler: RouteHandler<unknown, unknown, unknown>;
}

/** The body of a route's successful answers: the output of each declared response schema. */
type ResponseBody<R> = { [S in keyof R]: R[S] extends { schema: infer T extends z.ZodType } ? z.output<T> : undefined }[keyof R];

/**
 * What a caller sends and gets, for clients and tests (`RouteTypes<typeof route>`): the inputs as
 * sent (before defaults and coercion) and the body of a successful answer. Types only: no value.
 */
export interface RouteTypes<P, Q, B, R> {
  params: P extends z.ZodType ? z.input<P> : undefined;
  query: Q extends z.ZodType ? z.input<Q> : undefined;
  body: B extends z.ZodType ? z.input<B> : undefined;
  response: ResponseBody<R>;
}

/** A route definition that still carries its types (`RouteDefinition` erases them for mounting). */
export type TypedRoute<P, Q, B, R> = RouteDefinition & { readonly types?: RouteTypes<P, Q, B, R> };

export function defineRoute<
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  const R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
>(spec: RouteSpec<P, Q, B, R>, handler: RouteHandler<P, Q, B>): TypedRoute<P, Q, B, R> {
  return { spec, handler } as unknown as TypedRoute<P, Q, B, R>;
}

const JSON_CONTENT_TYPE = /^application\/([a-z.-]+\+)?json\s*(;.*)?$/i;

/** The body's media type: JSON, or CSV where the route takes it; anything else is 415 before the body is read. */
function requireBodyType(takesCsv: boolean): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const contentType = c.req.header("content-type") ?? "";
    if (!JSON_CONTENT_TYPE.test(contentType) && !(takesCsv && isCsvContentType(contentType))) {
      throw new ApiError(
        "unsupported_media_type",
        takesCsv
          ? "Send the body as JSON (Content-Type: application/json) or as CSV (Content-Type: text/csv)."
          : "Send the body as JSON with Content-Type: application/json.",
      );
    }
    await next();
  };
}

/** `middleware` for JSON bodies only: a CSV body was validated already (csvBody). */
function unlessCsv(middleware: MiddlewareHandler<AppBindings>): MiddlewareHandler<AppBindings> {
  return async (c, next) => (isCsvContentType(c.req.header("content-type")) ? next() : middleware(c, next));
}

function validator(target: "param" | "query" | "json", schema: z.ZodType): MiddlewareHandler<AppBindings> {
  const label = target === "param" ? "path" : target === "json" ? "body" : "query";
  return zValidator(target, schema as never, (result) => {
    if (!result.success) throwZodError(result.error as z.ZodError, label);
  }) as unknown as MiddlewareHandler<AppBindings>;
}

function batchItems(body: unknown, field: string | undefined): unknown {
  if (field === undefined) return body;
  return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined;
}

/**
 * Body validation for batch routes: parses the JSON once, answers 413 for an oversized batch
 * (so a 6000-item body is "too large", not 6000 shape errors), then validates the shape.
 */
function batchBodyValidator(schema: z.ZodType, batch: { maxItems: number; field?: string }): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      throw invalidJsonError(error);
    }
    const items = batchItems(body, batch.field);
    if (Array.isArray(items) && items.length > batch.maxItems) {
      throw new ApiError("batch_too_large", `This batch holds ${items.length} items; the limit is ${batch.maxItems} per call.`, {
        limit: batch.maxItems,
        received: items.length,
      });
    }
    const result = await schema.safeParseAsync(body);
    if (!result.success) throwZodError(result.error, "body");
    c.req.addValidatedData("json", result.data as object);
    await next();
  };
}

/** A body sent as CSV becomes the JSON body it stands for, validated by the same schema; a JSON body passes on. */
function csvBody(schema: z.ZodType, batch: { maxItems: number } | undefined, csv: CsvImport): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    if (!isCsvContentType(c.req.header("content-type"))) return next();
    const records = parseCsv(await c.req.text(), csv.columns);
    if (batch && records.length > batch.maxItems) {
      throw new ApiError("batch_too_large", `This batch holds ${records.length} items; the limit is ${batch.maxItems} per call.`, {
        limit: batch.maxItems,
        received: records.length,
      });
    }
    const rows = records.map((record) => record.row);
    const result = await schema.safeParseAsync(records.map((record) => csv.toItem(record.cells, c)));
    if (!result.success) throw withCsvRows(validationError(zodProblemItems(result.error, "body")), rows);
    c.req.addValidatedData("json", result.data as object);
    await next();
    // A refusal about items (errors[] with their index, e.g. 422 line_bounds_invalid) also names their CSV rows.
    if (c.error instanceof ApiError && c.error.problem.extras?.errors?.some((item) => item.index !== undefined)) {
      c.res = problemResponse(c, withCsvRows(c.error, rows).problem);
    }
  };
}

/** The problem with each errors[] entry that has an item index also carrying that item's CSV row. */
function withCsvRows(error: ApiError, rows: number[]): ApiError {
  const errors = error.problem.extras?.errors?.map((item) =>
    item.index !== undefined && rows[item.index] !== undefined ? { ...item, row: rows[item.index] } : item,
  );
  return ApiError.from({ ...error.problem, extras: { ...error.problem.extras, errors } });
}

/** The query parameters of the route that are deprecated aliases of others. */
export function deprecatedQueryParameters(spec: RouteDefinition["spec"]): [string, Deprecation][] {
  return Object.entries(spec.query?.shape ?? {}).flatMap(([name, schema]) => {
    const deprecation = deprecationOf(schema as z.ZodType);
    return deprecation ? [[name, deprecation] as [string, Deprecation]] : [];
  });
}

/** Where the interactive documentation (/docs) shows the route. */
export function documentationLink(spec: RouteDefinition["spec"]): string {
  return `/docs#/${encodeURIComponent(spec.tag)}/${spec.operationId}`;
}

/** Whether the route may change anything (`RouteSpec.writes`). */
export function routeWrites(spec: RouteDefinition["spec"]): boolean {
  return spec.writes ?? spec.method !== "get";
}

export function rateLimitClassOf(spec: RouteDefinition["spec"]): RateLimitClass {
  return routeWrites(spec) ? "write" : (spec.rateLimit ?? "read");
}

/** Every route that takes a body takes at most 8 MiB of it. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const limitBodySize = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes (8 MiB).`);
  },
});

/**
 * Who may call the route, whatever they sent: the route's roles (403), the query parameters only
 * OPERATOR keys may send (403), and no write while the tenant is being moved (its shard's fence
 * would refuse it anyway).
 */
function requireAccess(spec: RouteDefinition["spec"]): MiddlewareHandler<AppBindings> {
  const writes = routeWrites(spec);
  const operatorOnly = spec.operatorOnlyQuery ?? [];
  return async function requireRouteAccess(c, next) {
    const { principal } = c.var;
    requireRole(principal, ...spec.roles);
    if (writes && c.var.placement.state === "MOVING") throw tenantMovingError();
    const sent = operatorOnly.filter((name) => c.req.query(name) !== undefined);
    if (sent.length && principal.role !== "OPERATOR") {
      throw new ApiError("forbidden", `${sent.join(", ")} may only be sent with an OPERATOR key.`);
    }
    await next();
  };
}

/** The headers that name a store, and where the request's scope keeps them. */
const SCOPE_HEADERS = { "svc-store": "storeId", "svc-store-view": "storeView" } as const satisfies Record<string, keyof RequestScope>;
type ScopeHeader = keyof typeof SCOPE_HEADERS;
const scopeHeaderValue = identifierText(128, { trim: true });

/**
 * The store headers the route reads, checked as every id is (identifierText) and kept in the
 * spelling ids are compared in; a bad one is 400 naming the header. Routes that do not read them
 * ignore them, as any header they do not know.
 */
function scopeHeaderValidator(names: ScopeHeader[]): MiddlewareHandler<AppBindings> {
  return async function validateScopeHeaders(c, next) {
    const scope = { ...c.var.scope };
    const errors: ProblemItem[] = [];
    for (const name of names) {
      const value = scope[SCOPE_HEADERS[name]];
      if (value === null) continue;
      const result = scopeHeaderValue.safeParse(value);
      if (result.success) scope[SCOPE_HEADERS[name]] = result.data;
      else errors.push(...zodProblemItems(result.error, `header.${name}`));
    }
    if (errors.length) throw validationError(errors);
    c.set("scope", scope);
    await next();
  };
}

/** The longest svc-change-reason a write takes. */
export const MAX_CHANGE_REASON = 500;

/**
 * svc-change-reason, on a route that writes: why, in the sender's words, kept on every change record
 * the request writes. UTF-8, checked like any text that is shown (no control or format characters),
 * at most 500 characters; a bad one is 400 naming the header.
 */
function changeReasonValidator(): MiddlewareHandler<AppBindings> {
  return async function validateChangeReason(c, next) {
    const sent = c.req.header("svc-change-reason")?.trim();
    if (sent) {
      const problem = identifierProblem(sent) ?? (characterCount(sent) > MAX_CHANGE_REASON ? `is longer than ${MAX_CHANGE_REASON} characters` : undefined);
      if (problem) throw validationError([{ field: "header.svc-change-reason", code: "invalid_string", message: `svc-change-reason ${problem}` }]);
      c.set("changeReason", canonicalIdentifier(sent));
    }
    await next();
  };
}

/** The route's inputs, validated: path, query, store headers, then the body (its media type first; JSON or, where the route takes it, CSV). */
function validateInput(spec: RouteDefinition["spec"]): MiddlewareHandler<AppBindings>[] {
  const checks: MiddlewareHandler<AppBindings>[] = [];
  const scopeHeaders = (spec.headers ?? []).filter((name): name is ScopeHeader => name in SCOPE_HEADERS);
  if (spec.params) checks.push(validator("param", spec.params));
  if (spec.query) checks.push(validator("query", spec.query));
  if (scopeHeaders.length) checks.push(scopeHeaderValidator(scopeHeaders));
  if (routeWrites(spec)) checks.push(changeReasonValidator());
  if (spec.body) {
    const jsonBody = spec.batch ? batchBodyValidator(spec.body, spec.batch) : validator("json", spec.body);
    if (spec.csvImport) checks.push(requireBodyType(true), csvBody(spec.body, spec.batch, spec.csvImport), unlessCsv(jsonBody));
    else checks.push(requireBodyType(false), jsonBody);
  }
  return checks;
}

/** The route's handler, given its validated inputs. An answer that streams on purpose says so on the trace (serve lets it through unbuffered). */
function invokeHandler({ spec, handler }: RouteDefinition): MiddlewareHandler<AppBindings> {
  return async function invokeRouteHandler(c) {
    let response: Response;
    try {
      response = await handler(c, {
        params: spec.params ? c.req.valid("param" as never) : undefined,
        query: spec.query ? c.req.valid("query" as never) : undefined,
        body: spec.body ? c.req.valid("json" as never) : undefined,
      });
    } catch (error) {
      const status = error instanceof ApiError ? spec.errorStatuses?.[error.problem.code] : undefined;
      throw status === undefined ? error : ApiError.from({ ...(error as ApiError).problem, status });
    }
    if (streamsOnPurpose(response)) c.var.trace.answerStreams = true;
    return response;
  };
}

/**
 * A route's whole chain, in the order its answers take precedence (credentials came before it, for
 * every /v1 request):
 *   the key's budget for the route's class (429) → the route's access (403, 503 while moving) →
 *   the body's size (413) → Idempotency-Key, on writes only (a stored answer replayed, 409, 422) →
 *   deprecation headers (on whatever follows) → validation (400, 413, 415) → the handler.
 * Access answers before anything reads the body; an Idempotency-Key replay answers the stored
 * answer before validation runs again.
 */
function routeChain(route: RouteDefinition): MiddlewareHandler<AppBindings>[] {
  const { spec } = route;
  const announce = announceDeprecations({ route: spec.deprecated, queryAliases: deprecatedQueryParameters(spec), documentation: documentationLink(spec) });
  return [
    rateLimit(rateLimitClassOf(spec)),
    requireAccess(spec),
    ...(spec.method === "get" ? [] : [limitBodySize]),
    ...(routeWrites(spec) ? [idempotency(spec.shownOnce)] : []),
    ...(announce ? [announce] : []),
    ...validateInput(spec),
    invokeHandler(route),
  ];
}

/** Mounts each route with its whole chain (`routeChain`). */
export function mountRoutes(app: App, routes: RouteDefinition[]): void {
  for (const route of routes) app.on([route.spec.method.toUpperCase()], [route.spec.path], ...routeChain(route));
}

/**
 * The not-found handler of an app serving `routes`: a path one of them has, called with a method
 * none takes, answers 405 method_not_allowed with Allow; anything else 404 not_found.
 */
export function answerUnrouted(routes: RouteDefinition[]): (c: Context<AppBindings>) => Response {
  const patterns = routes.map(({ spec }) => ({
    method: spec.method.toUpperCase(),
    path: new RegExp(`^${spec.path.replace(/:[A-Za-z]+/g, "[^/]+")}$`),
  }));
  return (c) => {
    const path = new URL(c.req.url).pathname;
    const allowed = [...new Set(patterns.filter((route) => route.path.test(path)).map((route) => route.method))];
    if (!allowed.length) return routeNotFound(c);
    return problemResponse(c, {
      code: "method_not_allowed",
      detail: `${path} takes ${allowed.join(", ")}, not ${c.req.method}.`,
      extras: { allowed },
      headers: { allow: allowed.join(", ") },
    });
  };
}
