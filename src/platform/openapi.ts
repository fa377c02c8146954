import { z } from "zod";
import { CSV_MEDIA_TYPE } from "./csv";
import { ERROR_CATALOGUE, type ErrorCode } from "./errors";
import type { DocumentedQuery } from "./fields";
import { API_TAGS, rateLimitClassOf, type RouteDefinition } from "./routes";

type JsonSchema = Record<string, unknown>;

/** What every /v1 route can answer, whatever it is: credentials, the key's rate limit, the body size limit, a failure of ours. */
const COMMON_ERRORS: ErrorCode[] = ["unauthorized", "client_mismatch", "rate_limited", "payload_too_large", "internal"];

/** Headers some problems carry. */
const PROBLEM_HEADERS: Partial<Record<number, Record<string, string>>> = {
  429: { "Retry-After": "Seconds until the key's budget for this class renews." },
  503: { "Retry-After": "Seconds to wait before retrying: the tenant's data is being moved to another database." },
};
/** What the Idempotency-Key middleware can answer, on every POST, PUT, PATCH and DELETE. */
const IDEMPOTENCY_ERRORS: ErrorCode[] = ["validation_failed", "idempotency_key_reused", "idempotency_in_progress"];

const isUnsafe = (method: string) => method !== "get";

/** Exactly the problems a route can answer: each middleware's own, and the route's. */
function errorsOf(spec: RouteDefinition["spec"]): ErrorCode[] {
  const codes: ErrorCode[] = [...COMMON_ERRORS];
  if (spec.roles.length < 2 || spec.operatorOnlyQuery?.length) codes.push("forbidden");
  if (spec.query || spec.body || spec.params) codes.push("validation_failed");
  if (spec.body) codes.push("unsupported_media_type");
  // Every unsafe request may write (a route's change, or a stored Idempotency-Key answer): while the
  // tenant is moved to another shard, writes wait with 503 tenant_moving; reads keep being served.
  if (isUnsafe(spec.method)) codes.push(...IDEMPOTENCY_ERRORS, "tenant_moving");
  return [...new Set([...codes, ...spec.errors])];
}

const HEADER_DOCS: Record<string, { description: string; schema: JsonSchema }> = {
  "If-Match": { description: 'The ETag from GET ("<version>"). Stale: 412 version_mismatch.', schema: { type: "string" } },
  "Idempotency-Key": {
    description: "Replays with the same key, method, path and body return the first answer (kept 48 h). Other requests with the key: 422 idempotency_key_reused.",
    schema: { type: "string", maxLength: 255 },
  },
  locale: { description: "BCP 47 tag selecting the language of front representations.", schema: { type: "string" } },
  "svc-store": { description: "Default storeId for carts, orders and quota evaluation.", schema: { type: "string" } },
  "svc-store-view": { description: "Store view, echoed in front representations.", schema: { type: "string" } },
};

function toSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json.$schema;
  return json;
}

function joinDescriptions(...descriptions: unknown[]): string | undefined {
  return descriptions.filter(Boolean).join(" ") || undefined;
}

function objectParameters(schema: z.ZodType | undefined, location: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, converted]) => {
    // A value parsed from text (fields.ts documentedQuery) is shown as the value it stands for.
    const { documentedQuery: query, ...plain } = converted as JsonSchema & { documentedQuery?: DocumentedQuery };
    const property = query ? { ...query.schema, description: joinDescriptions(plain.description, query.schema.description) } : plain;
    return {
      name,
      in: location,
      required: location === "path" || (required.has(name) && property.default === undefined),
      description: property.description,
      ...(query?.style && { style: query.style }),
      ...(query?.explode !== undefined && { explode: query.explode }),
      schema: property,
    };
  });
}

const problemSchema: JsonSchema = {
  type: "object",
  required: ["type", "title", "status", "code", "requestId"],
  properties: {
    type: { type: "string", format: "uri" },
    title: { type: "string" },
    status: { type: "integer" },
    code: { type: "string", enum: Object.keys(ERROR_CATALOGUE) },
    detail: { type: "string" },
    requestId: { type: "string" },
    errors: {
      type: "array",
      items: {
        type: "object",
        properties: {
          index: { type: "integer" },
          field: { type: "string" },
          code: { type: "string" },
          message: { type: "string" },
          variantExternalId: { type: "string" },
        },
      },
    },
  },
  additionalProperties: true,
};

/** A CSV body: RFC 4180, UTF-8 (a BOM is accepted), a header row naming the columns in any order. */
function csvSchema(columns: readonly string[], what: string): JsonSchema {
  return {
    type: "string",
    description: `${what}. RFC 4180 CSV in UTF-8 with a header row naming the columns in any order: ${columns.join(", ")}. An empty cell is an omitted field. Cells a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return, other than plain numbers) are exported with a leading single quote, which an import takes off again.`,
    example: `${columns.join(",")}\r\n`,
  };
}

function documentedHeaders(headers: Record<string, string>): JsonSchema {
  return Object.fromEntries(Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: "string" } }]));
}

/** OpenAPI 3.1 document built from the same zod schemas that validate requests. */
export function buildOpenApiDocument(routes: RouteDefinition[]): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of routes) {
    const path = spec.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.headers && { headers: documentedHeaders(response.headers) }),
        ...(response.schema && {
          content: {
            "application/json": { schema: toSchema(response.schema) },
            // Accept: text/csv answers the whole filtered, sorted list at once.
            ...(spec.csvExport && status.startsWith("2") && { [CSV_MEDIA_TYPE]: { schema: csvSchema(spec.csvExport.columns, "The whole filtered, sorted list (no pagination), streamed") } }),
          },
        }),
      };
    }
    const errorCodes = errorsOf(spec);
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorCodes) {
      const status = ERROR_CATALOGUE[code].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
      const headers = PROBLEM_HEADERS[status];
      responses[String(status)] = {
        description: codes.map((code) => `${code}: ${ERROR_CATALOGUE[code].title}`).join("; "),
        ...(headers && { headers: documentedHeaders(headers) }),
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      };
    }
    // Idempotency-Key is honoured on every unsafe method (the middleware takes it on all of them).
    const headers = [...(spec.headers ?? []), ...(isUnsafe(spec.method) ? (["Idempotency-Key"] as const) : [])];
    const headerParameters = headers.map((name) => ({ name, in: "header", required: false, ...HEADER_DOCS[name] }));
    paths[path] ??= {};
    paths[path][spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      description: `${spec.description ?? ""}\n\nRoles: ${spec.roles.join(", ")}. Rate limit class: ${rateLimitClassOf(spec)}.`.trim(),
      "x-rate-limit-class": rateLimitClassOf(spec),
      tags: [spec.tag],
      parameters: [...objectParameters(spec.params, "path"), ...objectParameters(spec.query, "query"), ...headerParameters],
      ...(spec.body && {
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: toSchema(spec.body) },
            ...(spec.csvImport && { [CSV_MEDIA_TYPE]: { schema: csvSchema(spec.csvImport.columns.allowed, `The same items as CSV; required columns: ${spec.csvImport.columns.required.join(", ")}; every errors[] entry also carries its CSV row`) } }),
          },
        },
      }),
      responses,
    };
  }
  paths["/healthz"] = {
    get: {
      operationId: "getHealth",
      summary: "Health check",
      description: "No key, no tenant data, no database read: cheap enough to poll every second.",
      tags: ["Service"],
      security: [],
      responses: {
        200: {
          description: "The instance serves.",
          content: { "application/json": { schema: { type: "object", required: ["status", "version"], properties: { status: { const: "ok" }, version: { type: "string" } } } } },
        },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Campaign and buying-policy API",
      version: "1.0.0",
      description:
        "Operations (campaigns of product-variant lines and attached buyer accounts), Quotas Rules and their evaluation, carts, orders and server-side comparison. Every error is application/problem+json. Lists are keyset-paginated: pass nextToken from the previous page with the same filters and sort. Unknown query parameters and body fields are rejected with 400 validation_failed so typos never pass silently. A path of this document called with a method it does not list answers 405 method_not_allowed with an Allow header. Read-your-writes: every answer that touched the tenant's data carries x-d1-bookmark (\"SHARD_n:<D1 bookmark>\", naming the database that holds the tenant); send the latest one back as the x-d1-bookmark request header and the answer sees every write up to it. While a tenant's data is moved to another database, every request that may write answers 503 tenant_moving with Retry-After, and reads keep being served.",
    },
    // Relative: a viewer resolves it against where it loaded this document, so "Try it out" calls the
    // instance that served it, on any host and port.
    servers: [{ url: "/", description: "The instance that served this document." }],
    security: [{ svcClient: [], svcApiKey: [] }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: {
        svcClient: { type: "apiKey", in: "header", name: "svc-client", description: "OPERATOR or ACCOUNT; must match the key's role." },
        svcApiKey: { type: "apiKey", in: "header", name: "svc-api-key", description: "The secret key, issued by `npm run key`." },
      },
      schemas: { Problem: problemSchema },
    },
    paths,
  };
}
