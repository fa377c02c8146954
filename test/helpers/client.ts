import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import createOperationRoute from "../../src/operations/routes/create";
import listEventsRoute from "../../src/events/routes/list";
import getOperationRoute from "../../src/operations/routes/get";
import statusRoute from "../../src/operations/routes/status";
import { DEFAULT_LIMIT } from "../../src/platform/data/pagination";
import type { ShardName } from "../../src/platform/core/shards";
import type { ProblemItem } from "../../src/platform/core/errors";
import type { RouteDefinition, RouteTypes } from "../../src/platform/http/routes";
import { keyPrefix, mintSignedKey } from "../../src/platform/core/key-format.mjs";
import { createTenant } from "../../src/tenants/placement";
import { testShard } from "./shards";

export type Role = "OPERATOR" | "ACCOUNT";

export interface Caller {
  tenantId: string;
  role: Role;
  key: string;
  userId?: string;
  /** The key's id (key_…), for callers whose key a test stored itself. */
  keyId?: string;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

let counter = 0;
export function uniqueId(prefix: string): string {
  counter++;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A fresh tenant (own data, nothing shared with other tests) and an OPERATOR key on it. */
export async function newTenant(options: { defaultLocale?: string; shard?: ShardName } = {}): Promise<Caller> {
  const tenantId = uniqueId("t");
  await createTenant(env, { tenantId, defaultLocale: options.defaultLocale ?? "en", shard: options.shard ?? testShard() });
  return issueKey(tenantId, "OPERATOR");
}

/** A key as the Worker issues them (signed, issued now), stored straight into the control database. */
export async function issueKey(tenantId: string, role: Role, userId?: string): Promise<Caller> {
  return storeKey(await mintSignedKey(env.KEY_SIGNING_SECRET), tenantId, role, userId);
}

/** A key in the format issued before keys were signed ("sk_" and 43 base64url characters). */
export function legacyKeyText(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sk_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "")}`;
}

/** A key issued before keys were signed, stored as it was. */
export function issueLegacyKey(tenantId: string, role: Role, userId?: string): Promise<Caller> {
  return storeKey(legacyKeyText(), tenantId, role, userId);
}

/** Stores a key's row with the prefix it was issued with. */
async function storeKey(key: string, tenantId: string, role: Role, userId?: string): Promise<Caller> {
  const keyId = uniqueId("key");
  await env.CONTROL.prepare("insert into api_keys (id, tenant_id, role, user_id, key_hash, prefix, created_at) values (?, ?, ?, ?, ?, ?, ?)")
    .bind(keyId, tenantId, role, userId ?? null, await sha256Hex(key), keyPrefix(key), new Date().toISOString())
    .run();
  return { tenantId, role, key, userId, keyId };
}

export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Parameters; undefined and null (e.g. the last page's nextToken) are left out. */
  query?: Record<string, string | number | null | undefined>;
  /** Bindings to swap in (e.g. a tiny rate limit): the request then goes to the Worker's fetch with them. */
  env?: Partial<Cloudflare.Env>;
  /**
   * Returns only once the work the request left running after its answer (waitUntil) has finished:
   * a test that depends on that work waits for it instead of sleeping.
   */
  drain?: boolean;
}

/** An answer; its body is `unknown` unless the call says what it expects (callRoute types it from the route). */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Calls the Worker over HTTP as `caller` would. */
export async function call<T = unknown>(caller: Caller | null, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(path, "http://api.test");
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { ...(caller && { "svc-client": caller.role, "svc-api-key": caller.key }) };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, options.headers);
  const response =
    options.env || options.drain
      ? await fetchWithEnv(new Request(url, { method, headers, body }), options.env ?? {})
      : await SELF.fetch(url.toString(), { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

async function fetchWithEnv(request: Request, bindings: Partial<Cloudflare.Env>): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, ...bindings } as Cloudflare.Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

// Any route's own RouteTypes fits this constraint; what comes out is read from the route's own types.
type AnyTypedRoute = RouteDefinition & { readonly types?: { [Part in keyof RouteTypes<never, never, never, never>]: unknown } };
type TypesOf<Route extends AnyTypedRoute> = NonNullable<Route["types"]>;
/** The body of a route's successful answer. */
export type ResponseOf<Route extends AnyTypedRoute> = TypesOf<Route>["response"];
/** An item of a list route's page. */
export type ItemOf<Route extends AnyTypedRoute> = Extract<ResponseOf<Route>, { items: unknown[] }>["items"][number];

/**
 * Calls a route through its own definition: the path, method, inputs and the answer's body are
 * typed from the route's zod schemas (a successful answer's body; problems are read with expectProblem).
 */
export async function callRoute<Route extends AnyTypedRoute>(
  caller: Caller | null,
  route: Route,
  input: {
    params?: TypesOf<Route>["params"];
    /** Any value: tests send invalid bodies and queries on purpose (the route's own types are in RouteTypes). */
    body?: unknown;
    query?: Record<string, string | number | null | undefined>;
    headers?: Record<string, string>;
    env?: Partial<Cloudflare.Env>;
    drain?: boolean;
  } = {},
): Promise<ApiResponse<ResponseOf<Route>>> {
  // Substituted as given, like a hand-written path: a test may send an id that is not a valid one on purpose.
  const path = routePath(route, (input.params ?? {}) as Record<string, string>);
  return call(caller, route.spec.method.toUpperCase(), path, {
    body: input.body,
    query: input.query,
    headers: input.headers,
    env: input.env,
    drain: input.drain,
  });
}

/** The path of a route with its parameters filled in (for a test that must send something callRoute does not). */
export function routePath(route: AnyTypedRoute, params: Record<string, string>): string {
  return route.spec.path.replace(/:([A-Za-z]+)/g, (_, name: string) => String(params[name]));
}

/** A problem+json body: RFC 9457's members, the API's code and requestId, and the problem's own extras. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  /** Validation problems' items (absent on other problems: read it as `errors?.`). */
  errors?: ProblemItem[];
  [extra: string]: unknown;
}

/** Asserts the response is a problem+json with this status and code, and returns its body. */
export function expectProblem(response: ApiResponse, status: number, code: string): ProblemBody {
  const body = response.body as Partial<ProblemBody> | undefined;
  if (response.status !== status || body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${response.status}: ${response.text.slice(0, 500)}`);
  }
  if (!response.headers.get("content-type")?.startsWith("application/problem+json")) {
    throw new Error(`expected application/problem+json, got ${response.headers.get("content-type")}`);
  }
  if (!body.requestId || body.requestId !== response.headers.get("x-request-id")) {
    throw new Error("problem body requestId must equal the x-request-id header");
  }
  return body as ProblemBody;
}

/** The problem code an answer carries, if its body is a problem (for filters and messages; assert one with expectProblem). */
export function problemCodeOf(response: ApiResponse): string | undefined {
  const body = response.body;
  return typeof body === "object" && body !== null && "code" in body && typeof body.code === "string" ? body.code : undefined;
}

/** An answer's body without its requestId (which differs between any two answers), to compare two answers. */
export function withoutRequestId(body: unknown): unknown {
  return body && typeof body === "object" && "requestId" in body ? { ...body, requestId: undefined } : body;
}

export function expectStatus<T>(response: ApiResponse<T>, status: number): T {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text.slice(0, 800)}`);
  return response.body;
}

type PageQuery = Record<string, string | number | undefined>;

/**
 * Walks every page of a list, asserting the page sizes: every page but the last full at the requested
 * limit (the default page size when none is given), the last not over it. Given a route, the items
 * are typed from it; given a path, say what they are (`collectPages<Item>(…)`).
 */
export async function collectPages<Route extends AnyTypedRoute>(
  caller: Caller,
  route: Route,
  input?: { params?: TypesOf<Route>["params"]; query?: PageQuery },
): Promise<{ items: ItemOf<Route>[]; pages: number }>;
export async function collectPages<T = unknown>(caller: Caller, path: string, query?: PageQuery): Promise<{ items: T[]; pages: number }>;
export async function collectPages(
  caller: Caller,
  list: string | AnyTypedRoute,
  input: PageQuery | { params?: unknown; query?: PageQuery } = {},
): Promise<{ items: unknown[]; pages: number }> {
  const path = typeof list === "string" ? list : routePath(list, (input as { params?: Record<string, string> }).params ?? {});
  const query = (typeof list === "string" ? input : ((input as { query?: PageQuery }).query ?? {})) as PageQuery;
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  const items: unknown[] = [];
  let nextToken: string | undefined;
  let pages = 0;
  do {
    const response = await call<{ items: unknown[]; nextToken: string | null }>(caller, "GET", path, { query: { ...query, nextToken } });
    const page = expectStatus(response, 200);
    nextToken = page.nextToken ?? undefined;
    pages++;
    const size = page.items.length;
    if (nextToken ? size !== limit : size > limit) {
      throw new Error(
        `GET ${path} page ${pages}${nextToken ? "" : " (the last)"} has ${size} items, limit ${limit}: every page but the last is full, the last not over it`,
      );
    }
    items.push(...page.items);
    if (pages > 10_000) throw new Error("pagination does not end");
  } while (nextToken);
  return { items, pages };
}

/** The query parameters API.md gives GET /v1/operations (and the front list). */
export const OPERATION_LIST_PARAMETERS = [
  "limit",
  "nextToken",
  "sort",
  "status",
  "ids",
  "idType",
  "operationId",
  "name",
  "operationName",
  "type",
  "startDateFrom",
  "startDateTo",
  "endDateFrom",
  "endDateTo",
  "ownerIds",
  "locale",
];

export function operationBody(overrides: Record<string, unknown> = {}) {
  return {
    code: uniqueId("OP"),
    name: { en: "Spring 2027", fr: "Printemps 2027" },
    type: "PRIVATE",
    startDate: "2027-03-01T00:00:00Z",
    endDate: "2027-04-30T23:59:59Z",
    ...overrides,
  };
}

export async function createOperation(caller: Caller, overrides: Record<string, unknown> = {}) {
  return expectStatus(await callRoute(caller, createOperationRoute, { body: operationBody(overrides) }), 201);
}

export async function readOperation(caller: Caller, operationId: string) {
  return expectStatus(await callRoute(caller, getOperationRoute, { params: { operationId } }), 200);
}

export async function setStatus(caller: Caller, operationId: string, status: string, headers: Record<string, string> = {}) {
  return callRoute(caller, statusRoute, { params: { operationId }, body: { status }, headers });
}

/** Every event of the caller's tenant that matches `query` (GET /v1/events), walking all pages. */
export async function eventsOf(caller: Caller, query: PageQuery = {}) {
  return (await collectPages(caller, listEventsRoute, { query })).items;
}
