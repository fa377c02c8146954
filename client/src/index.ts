/**
 * The API's typed client: every path, parameter, body, answer and problem typed from the OpenAPI
 * document (src/schema.d.ts, generated: never edit it by hand), on openapi-fetch. Built to dist/ (JavaScript
 * and declarations) by `npm run build`; docs/client.md shows how a project installs it.
 *
 *   const api = createClient({ baseUrl: "https://api.example.com", apiKey, client: "OPERATOR", idempotency: true });
 *   const operation = await unwrap(api.POST("/v1/operations", { body: { code: "SPRING", … } }));
 *   for await (const line of api.paginate("/v1/operations/{operationId}/lines", { path: { operationId: operation.id } })) …
 */
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
/** Every named schema of the document: `Schemas["Operation"]`, `Schemas["LinePage"]`, … */
export type Schemas = components["schemas"];
export type Problem = components["schemas"]["Problem"];

export interface ClientOptions {
  /** Where the API is served, e.g. "https://api.example.com" (no trailing /v1). */
  baseUrl: string;
  /** The secret key (`npm run key`). */
  apiKey: string;
  /** The key's role, sent as svc-client. */
  client: "OPERATOR" | "ACCOUNT";
  /** Send a fresh Idempotency-Key with every POST, PUT, PATCH and DELETE that has none: a retry of the same call object is then safe. */
  idempotency?: boolean;
  /** Carry x-d1-bookmark from each answer to the next request, so every read sees this client's writes (default true). */
  bookmarks?: boolean;
  /** Another fetch (tests, a Worker's service binding). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request (locale, svc-store, …). */
  headers?: Record<string, string>;
  /**
   * Told once per method and path when an answer says the request used a deprecated form (its
   * Deprecation header; deprecated calls and parameters are also marked @deprecated in the types).
   * Default: console.warn.
   */
  onDeprecation?: (notice: DeprecationNotice) => void;
}

/** What an answer to a deprecated form says about it. */
export interface DeprecationNotice {
  method: string;
  path: string;
  /** The Deprecation header (RFC 9745): "@<unix seconds>" of the announcement. */
  deprecation: string;
  /** Where the replacement is documented (the Link with rel="deprecation"), if given. */
  link?: string;
  /** The Sunset header (RFC 8594), once a date is set. */
  sunset?: string;
}

/** A problem+json answer, thrown by `unwrap` and `paginate`. */
export class ApiProblem extends Error {
  /** The answer's HTTP status. */
  readonly status: number;
  /** The problem+json body: `code` names the condition (the package's error-catalogue.json lists every code). */
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(`${status} ${problem.code}: ${problem.detail ?? problem.title}`);
    this.name = "ApiProblem";
    this.status = status;
    this.problem = problem;
  }
}

/** The answer's body, or an ApiProblem thrown for a problem answer. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw new ApiProblem(response.status, error as Problem);
  return data as T;
}

type JsonAnswer<Operation> = Operation extends { responses: { 200: { content: { "application/json": infer Body } } } } ? Body : never;
/** The paths whose GET answers a page: `{ items, nextToken }`. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: infer Get } ? (JsonAnswer<Get> extends { items: unknown[]; nextToken: string | null } ? P : never) : never;
}[keyof paths];
/** One item of a list path's pages. */
export type ListItem<P extends ListPath> = JsonAnswer<paths[P]["get"]> extends { items: (infer Item)[] } ? Item : never;
type ListParameters<P extends ListPath> = paths[P]["get"] extends { parameters: infer Parameters } ? Parameters : never;
/** A list's parameters, without the nextToken the iterator carries from page to page. */
export type ListRequest<P extends ListPath> = {
  [K in keyof ListParameters<P> as K extends "query" ? K : ListParameters<P>[K] extends undefined ? never : K]: K extends "query"
    ? Omit<NonNullable<ListParameters<P>[K]>, "nextToken">
    : ListParameters<P>[K];
};

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type ApiClient = Client<paths> & {
  /** Every item of a list, page after page (each page one request, with the same filters and sort). */
  paginate<P extends ListPath>(path: P, params?: ListRequest<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The latest x-d1-bookmark an answer carried (undefined before the first). */
  readonly bookmark: string | undefined;
};

export function createClient(options: ClientOptions): ApiClient {
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: { ...options.headers, "svc-client": options.client, "svc-api-key": options.apiKey },
    // Lists take comma lists: ?status=ACTIVE,DRAFT.
    querySerializer: { array: { style: "form", explode: false } },
  });
  let bookmark: string | undefined;
  const carryBookmarks = options.bookmarks ?? true;
  const noticed = new Set<string>();
  const onDeprecation =
    options.onDeprecation ??
    ((notice: DeprecationNotice) =>
      console.warn(
        `${notice.method} ${notice.path} used a deprecated form (${notice.link ?? "see the API documentation"})${notice.sunset ? `; it stops answering on ${notice.sunset}` : ""}.`,
      ));
  const middleware: Middleware = {
    onRequest({ request }) {
      if (options.idempotency && UNSAFE.has(request.method) && !request.headers.has("idempotency-key"))
        request.headers.set("idempotency-key", crypto.randomUUID());
      if (carryBookmarks && bookmark && !request.headers.has("x-d1-bookmark")) request.headers.set("x-d1-bookmark", bookmark);
      return request;
    },
    onResponse({ request, response }) {
      const answered = response.headers.get("x-d1-bookmark");
      if (answered) bookmark = answered;
      const deprecation = response.headers.get("deprecation");
      const path = new URL(request.url).pathname;
      if (deprecation && !noticed.has(`${request.method} ${path}`)) {
        noticed.add(`${request.method} ${path}`);
        const link = /<([^>]*)>\s*;\s*rel="?deprecation"?/.exec(response.headers.get("link") ?? "")?.[1];
        onDeprecation({
          method: request.method,
          path,
          deprecation,
          ...(link && { link }),
          ...(response.headers.get("sunset") && { sunset: response.headers.get("sunset")! }),
        });
      }
      return response;
    },
  };
  client.use(middleware);

  async function* paginate<P extends ListPath>(path: P, params?: ListRequest<P>): AsyncGenerator<ListItem<P>, void, undefined> {
    const request = (params ?? {}) as { query?: Record<string, unknown> };
    let nextToken: string | undefined;
    do {
      const page = (await unwrap(
        (client.GET as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>)(path, {
          params: { ...request, query: { ...request.query, ...(nextToken && { nextToken }) } },
        }),
      )) as { items: ListItem<P>[]; nextToken: string | null };
      yield* page.items;
      nextToken = page.nextToken ?? undefined;
    } while (nextToken);
  }

  // A getter, not a copied value: the bookmark moves with every answer.
  return Object.defineProperties(Object.assign(client, { paginate }), { bookmark: { get: () => bookmark, enumerable: true } }) as ApiClient;
}
