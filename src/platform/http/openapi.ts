import * as z from "zod";
import { CSV_MEDIA_TYPE } from "./csv";
import type { ShownOnce } from "./idempotency";
import { ERROR_CATALOGUE, problemBody, type ErrorCode } from "../core/errors";
import type { DocumentedQuery } from "../schema/fields";
import { API_TAGS, deprecatedQueryParameters, rateLimitClassOf, routeWrites, type RouteDefinition } from "./routes";
import { API_VERSION, VERSION_HEADER } from "../core/version";
import { deprecationNote, type Deprecation } from "./deprecation";
import { validationError } from "../schema/validation";

type JsonSchema = Record<string, unknown>;

const COMPONENT_SCHEMAS = "#/components/schemas/";
const componentRef = (id: string) => `${COMPONENT_SCHEMAS}${id}`;

/**
 * How zod schemas become JSON Schema: inputs as a client sends them (before defaults and
 * transforms); the representations have neither, so one conversion serves bodies and answers alike.
 * Examples are written as a client sends them too, but zod drops the examples of any schema with a
 * transform inside (taking them for outputs): they are put back.
 */
const CONVERSION: z.core.ToJSONSchemaParams = {
  io: "input",
  unrepresentable: "any",
  target: "draft-2020-12",
  override: ({ zodSchema, jsonSchema }) => {
    const examples = z.globalRegistry.get(zodSchema)?.examples;
    if (Array.isArray(examples)) jsonSchema.examples = examples;
  },
};

/** The health check's answer: app.ts serves it outside the /v1 routes. */
const healthRepresentation = z
  .object({
    status: z.literal("ok"),
    version: z.string().describe("The build that answers: the API version, and +<commit> on a deployment that names it (as svc-api-version on every answer)."),
  })
  .meta({ id: "Health", examples: [{ status: "ok", version: API_VERSION }] });

/** What every /v1 route can answer, whatever it is: credentials, the key's rate limit, a failure of ours. */
const COMMON_ERRORS: ErrorCode[] = ["unauthorized", "client_mismatch", "rate_limited", "internal"];

/** Headers some problems carry. */
const PROBLEM_HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  rate_limited: {
    "Retry-After": "Seconds until the budget renews: the key's for this class, or (limitClass authentication) the client address's for failed authentications.",
  },
  tenant_moving: { "Retry-After": "Seconds to wait before retrying: the tenant's data is being moved to another database." },
};
/** What the Idempotency-Key middleware can answer, on every route that writes. */
const IDEMPOTENCY_ERRORS: ErrorCode[] = ["validation_failed", "idempotency_key_reused", "idempotency_in_progress", "idempotency_answer_lost"];

/** Exactly the problems a route can answer: each middleware's own, and the route's. */
function errorsOf(spec: RouteDefinition["spec"]): ErrorCode[] {
  const codes: ErrorCode[] = [...COMMON_ERRORS];
  if (spec.roles.length < 2 || spec.operatorOnlyQuery?.length) codes.push("forbidden");
  if (spec.query || spec.body || spec.params) codes.push("validation_failed");
  if (spec.body) codes.push("unsupported_media_type");
  // Every method but GET reads at most 8 MiB of body (a GET's is never read).
  if (spec.method !== "get") codes.push("payload_too_large");
  // While the tenant is moved to another shard, writes wait with 503 tenant_moving; reads (a POST
  // that only reads included) keep being served.
  if (routeWrites(spec)) codes.push(...IDEMPOTENCY_ERRORS, "tenant_moving");
  return [...new Set([...codes, ...spec.errors])];
}

const IDEMPOTENCY_KEY_SCHEMA = { type: "string", maxLength: 255 };

/** The request headers routes read, each one parameter under components/parameters. */
const HEADER_PARAMETERS = {
  "If-Match": { component: "IfMatchHeader", description: 'The ETag from GET ("<version>"). Stale: 412 version_mismatch.', schema: { type: "string" } },
  "Idempotency-Key": {
    component: "IdempotencyKeyHeader",
    description:
      "Replays with the same key, method, path and body return the first answer (kept 48 h). Other requests with the key: 422 idempotency_key_reused. While the first runs: 409 idempotency_in_progress. A first request cut off mid-way: run again after 60 s if it wrote nothing, else 409 idempotency_answer_lost naming what it did (changeSetId, cartId, orderId, or eventId of a refused order): never run twice.",
    schema: IDEMPOTENCY_KEY_SCHEMA,
  },
  // On a read sent by POST: taken and ignored.
  "Idempotency-Key (ignored)": {
    component: "IgnoredIdempotencyKeyHeader",
    name: "Idempotency-Key",
    description: "Ignored: this call only reads, so a retry is safe as it is; no answer is stored and a reused key is never refused.",
    deprecated: true,
    schema: IDEMPOTENCY_KEY_SCHEMA,
  },
  "svc-change-reason": {
    component: "SvcChangeReasonHeader",
    description:
      "Why the change is made, in your words (UTF-8, at most 500 characters, no control or format characters): kept as `reason` on every change record the request writes (GET /v1/history).",
    schema: { type: "string", maxLength: 500 },
  },
  locale: { component: "LocaleHeader", description: "BCP 47 tag selecting the language of front representations.", schema: { type: "string" } },
  "svc-store": {
    component: "SvcStoreHeader",
    description:
      "Default storeId for carts, orders and quota evaluation. Taken in NFC; a control or format character in it is 400 validation_failed (field header.svc-store).",
    schema: { type: "string" },
  },
  "svc-store-view": {
    component: "SvcStoreViewHeader",
    description:
      "Store view, echoed in front representations. Taken in NFC; a control or format character in it is 400 validation_failed (field header.svc-store-view).",
    schema: { type: "string" },
  },
} satisfies Record<string, { component: string; name?: string; description: string; deprecated?: boolean; schema: JsonSchema }>;
type HeaderName = keyof typeof HEADER_PARAMETERS;

function headerParameterComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(HEADER_PARAMETERS).map(([name, { component, ...parameter }]) => [component, { name, in: "header", ...parameter }]));
}

// orderedQuantity[gte] → OrderedQuantityGte: a component's name holds letters and digits only.
const pascalCase = (name: string) =>
  name.replace(/(?:^|[^a-zA-Z0-9]+)([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase()).replace(/[^a-zA-Z0-9]/g, "");

/**
 * A path or query parameter that several routes declare alike (nextToken, dryRun, an Operation's id
 * in the path, a list's limit) is described once under components/parameters and referred to; a
 * declaration only one route has (a list's sort fields) stays with it.
 * Names: the parameter's own in PascalCase, with "Path" after a path parameter's ("Header" after
 * a header's, all of which are components).
 */
function shareParameters(paths: Record<string, Record<string, unknown>>): Record<string, JsonSchema> {
  const operations = Object.values(paths).flatMap((item) => Object.values(item) as { parameters?: JsonSchema[] }[]);
  const variants = new Map<string, Map<string, number>>();
  for (const { parameters = [] } of operations) {
    for (const parameter of parameters) {
      if (parameter.$ref) continue;
      const key = `${parameter.in} ${parameter.name}`;
      const shapes = variants.get(key) ?? new Map<string, number>();
      const shape = JSON.stringify(parameter);
      shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
      variants.set(key, shapes);
    }
  }
  const shared = new Map<string, string>();
  for (const shapes of variants.values()) {
    // Each declaration several routes share is one component: the most shared takes the parameter's
    // name, the others the name and a number (2, 3…), in a stable order.
    const sharedShapes = [...shapes].filter(([, uses]) => uses > 1).sort(([a, usesA], [b, usesB]) => usesB - usesA || (a < b ? -1 : 1));
    sharedShapes.forEach(([shape], index) => {
      const { in: location, name } = JSON.parse(shape) as { in: string; name: string };
      shared.set(shape, `${pascalCase(name)}${location === "path" ? "Path" : ""}${index ? index + 1 : ""}`);
    });
  }
  const components: Record<string, JsonSchema> = headerParameterComponents();
  for (const operation of operations) {
    if (!operation.parameters) continue;
    operation.parameters = operation.parameters.map((parameter) => {
      const name = parameter.$ref ? undefined : shared.get(JSON.stringify(parameter));
      if (!name) return parameter;
      components[name] = parameter;
      return { $ref: `#/components/parameters/${name}` };
    });
  }
  return sortedByName(components);
}

/** A path parameter every operation of a path declares is declared once, on the path. */
function hoistPathParameters(paths: Record<string, Record<string, unknown>>): void {
  for (const item of Object.values(paths)) {
    const operations = Object.values(item) as { parameters?: JsonSchema[] }[];
    const refsOf = (operation: { parameters?: JsonSchema[] }) =>
      (operation.parameters ?? []).map((parameter) => parameter.$ref).filter((ref): ref is string => typeof ref === "string" && ref.endsWith("Path"));
    const common = refsOf(operations[0]).filter((ref) => operations.every((operation) => refsOf(operation).includes(ref)));
    if (!common.length) continue;
    for (const operation of operations) operation.parameters = operation.parameters!.filter((parameter) => !common.includes(parameter.$ref as string));
    item.parameters = common.map(($ref) => ({ $ref }));
  }
}

function sortedByName<T>(entries: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Error answers, each described once under components/responses and referred to by every
 * operation that can give it: named after the codes it may carry (409 duplicate_code alone:
 * DuplicateCode), with "OnDeprecatedForm" after those of a deprecated form (they carry its headers).
 */
class ErrorResponses {
  readonly components: Record<string, JsonSchema> = {};

  refer(codes: ErrorCode[], deprecated: boolean): JsonSchema {
    const name = `${codes.map(pascalCode).join("Or")}${deprecated ? "OnDeprecatedForm" : ""}`;
    this.components[name] ??= {
      description: codes.map((code) => `${code}: ${ERROR_CATALOGUE[code].title}`).join("; "),
      headers: answerHeaders(Object.assign({}, ...codes.map((code) => PROBLEM_HEADERS[code])), deprecated),
      // The description names each code and its title: a problem of it is the Problem's example with that code.
      content: { "application/problem+json": { schema: { $ref: componentRef("Problem") } } },
    };
    return { $ref: `#/components/responses/${name}` };
  }
}

/**
 * What the document shows for a converted schema: a body's two shapes (eitherBody's
 * `oneOfComponents`) as a oneOf of their components, and named schemas as $refs to their components.
 */
function documented(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(documented);
  if (json === null || typeof json !== "object") return json;
  const { oneOfComponents, $defs: _nested, ...rest } = json as JsonSchema;
  const shown: JsonSchema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, documented(value)]));
  // A schema converted on its own holds its named parts under $defs; they are components already.
  if (typeof shown.$ref === "string") shown.$ref = shown.$ref.replace(/^#\/\$defs\//, COMPONENT_SCHEMAS);
  if (Array.isArray(oneOfComponents)) shown.oneOf = oneOfComponents.map((id: string) => ({ $ref: componentRef(id) }));
  // An integer with no bounds of its own gets zod's safe-integer pair: bounds that say nothing more than "an integer".
  if (shown.type === "integer" && shown.minimum === Number.MIN_SAFE_INTEGER && shown.maximum === Number.MAX_SAFE_INTEGER) {
    delete shown.minimum;
    delete shown.maximum;
  }
  return shown;
}

function toSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, CONVERSION) as JsonSchema;
  return documented(json) as JsonSchema;
}

/**
 * Every schema named with `.meta({ id })` and the Problem, converted together so that a named schema
 * inside another is a $ref to its component. Sorted by name, so the document does not change with import order.
 */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { ...CONVERSION, uri: componentRef }) as { schemas: Record<string, JsonSchema> };
  // Only a cycle makes zod put an unnamed part aside: name that part, so it gets a component.
  if (schemas.__shared) throw new Error(`Unnamed schemas shared between components: ${Object.keys(schemas.__shared.$defs as JsonSchema).join(", ")}`);
  const components: Record<string, JsonSchema> = { Problem: problemSchema, CsvFile: csvFileSchema };
  for (const [id, { $schema: _dialect, $id: _uri, ...json }] of Object.entries(schemas)) components[id] = documented(json) as JsonSchema;
  return sortedByName(components);
}

/** A body's or an answer's schema: a $ref to its component, the schema itself if it is unnamed. */
function mediaSchema(schema: z.ZodType): JsonSchema {
  const id = z.globalRegistry.get(schema)?.id;
  return id ? { $ref: componentRef(id) } : toSchema(schema);
}

/**
 * An example of `schema`: its own (`examples`, `const`, `default`, first `enum` value) where it
 * has one, else one built from its type and bounds; $refs are followed into `components`.
 */
function exampleOf(schema: JsonSchema, components: Record<string, JsonSchema>): unknown {
  if (typeof schema.$ref === "string") return exampleOf(components[schema.$ref.slice(COMPONENT_SCHEMAS.length)], components);
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ("const" in schema) return schema.const;
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (alternatives?.length) return exampleOf(alternatives[0], components);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, exampleOf(property, components)]));
    }
    case "array":
      return Array.from({ length: Math.max(1, (schema.minItems as number | undefined) ?? 0) }, () => exampleOf((schema.items ?? {}) as JsonSchema, components));
    case "integer":
    case "number": {
      const { minimum, exclusiveMinimum, maximum } = schema as { minimum?: number; exclusiveMinimum?: number; maximum?: number };
      const lowest = minimum ?? (exclusiveMinimum === undefined ? 0 : exclusiveMinimum + 1);
      return Math.min(Math.max(lowest, 0), maximum ?? Number.MAX_SAFE_INTEGER);
    }
    case "boolean":
      return true;
    case "string":
      return schema.format === "date-time" ? "2026-03-01T00:00:00Z" : "string".padEnd((schema.minLength as number | undefined) ?? 0, "s");
    case "null":
      return null;
    default:
      return {};
  }
}

/** A request id as the API makes them, for example problems. */
const EXAMPLE_REQUEST_ID = "6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f";

/** The Problem's example: a validation_failed answer, as the API builds it. */
function problemExample(): JsonSchema {
  return problemBody(
    validationError([{ field: "query.status.0", code: "invalid_value", message: 'Invalid option: expected one of "DRAFT"|"ACTIVE"|"INACTIVE"' }]).problem,
    EXAMPLE_REQUEST_ID,
  );
}

/** `code` as a component's name: invalid_next_token → InvalidNextToken. */
const pascalCode = (code: ErrorCode) => code.replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase());

function joinDescriptions(...descriptions: unknown[]): string | undefined {
  return descriptions.filter(Boolean).join(" ") || undefined;
}

function withoutDescription({ description: _description, ...schema }: JsonSchema): JsonSchema {
  return schema;
}

function objectParameters(schema: z.ZodType | undefined, location: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, converted]) => {
    // A value parsed from text (fields.ts documentedQuery) is shown as the value it stands for.
    const {
      documentedQuery: query,
      deprecation,
      deprecated: _,
      ...plain
    } = converted as JsonSchema & { documentedQuery?: DocumentedQuery; deprecation?: Deprecation; deprecated?: boolean };
    const property = query ? { ...query.schema, description: joinDescriptions(plain.description, query.schema.description) } : plain;
    return {
      name,
      in: location,
      // Optional unless said (OpenAPI's default), so only a required parameter says so.
      ...((location === "path" || (required.has(name) && property.default === undefined)) && { required: true }),
      description: deprecation ? joinDescriptions(property.description as string | undefined, deprecationNote(deprecation)) : property.description,
      ...(deprecation && { deprecated: true }),
      ...(query?.style && { style: query.style }),
      ...(query?.explode !== undefined && { explode: query.explode }),
      // The parameter's description says it once; its schema need not repeat it.
      schema: withoutDescription(property),
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
          quantityIncrement: { type: "integer", minimum: 1, description: "On increment_mismatch entries: the line's pack size." },
          nearestValid: {
            type: "array",
            items: { type: ["integer", "null"] },
            minItems: 2,
            maxItems: 2,
            description:
              "On order_lines_invalid increment_mismatch entries: the nearest valid quantities [below, above] (multiples of the pack size within the bounds), either null when there is none. The quantity is never rounded by the server.",
          },
        },
      },
    },
  },
  additionalProperties: true,
  examples: [problemExample()],
};

/** How every CSV the API takes or answers is written, said once (components/schemas/CsvFile). */
const csvFileSchema: JsonSchema = {
  type: "string",
  description:
    "RFC 4180 CSV in UTF-8 (a BOM is accepted) with a header row naming the columns in any order (the example shows each column). An empty cell is an omitted field. Cells a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return, other than plain numbers) are exported with a leading single quote, which an import takes off again.",
};

/** A CSV media type: the shared file schema, and the route's own columns as its example's header row. */
function csvContent(columns: readonly string[]): JsonSchema {
  return { schema: { $ref: componentRef("CsvFile") }, example: `${columns.join(",")}\r\n` };
}

function documentedHeaders(headers: Record<string, string>): JsonSchema {
  return Object.fromEntries(Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: "string" } }]));
}

/** Headers any answer may carry, described once under components/headers. */
const SHARED_HEADERS: Record<string, JsonSchema> = {
  ApiVersion: {
    description: "The build that answered: the API version, and +<commit> on a deployment that names it. On every answer.",
    schema: { type: "string", example: API_VERSION },
  },
  Deprecation: {
    description: "RFC 9745: the request used a deprecated form (@<unix seconds> of the announcement).",
    schema: { type: "string", example: "@1795392000" },
  },
  DeprecationLink: { description: 'Where the deprecated form and its replacement are documented (rel="deprecation").', schema: { type: "string" } },
  Sunset: { description: "RFC 8594: when the deprecated form stops answering, once a date is set.", schema: { type: "string" } },
};
const sharedHeader = (name: keyof typeof SHARED_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** An answer's headers: the version on every one, the deprecation headers on a deprecated form's, then its own. */
function answerHeaders(headers: Record<string, string> | undefined, deprecated: boolean): JsonSchema {
  return {
    [VERSION_HEADER]: sharedHeader("ApiVersion"),
    ...(deprecated && { Deprecation: sharedHeader("Deprecation"), Link: sharedHeader("DeprecationLink"), Sunset: sharedHeader("Sunset") }),
    ...documentedHeaders(headers ?? {}),
  };
}

/** The Warning an answer with secrets shown once carries when it is an Idempotency-Key replay. */
function shownOnceHeaders({ fields }: ShownOnce): Record<string, string> {
  return { Warning: `On an Idempotency-Key replay only: ${fields.map((field) => `\`${field}\``).join(", ")} is not shown again (it is never stored).` };
}

/** A JSON media type: the schema, and an example of it unless the component it names shows its own. */
function jsonContent(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const component = typeof schema.$ref === "string" ? components[schema.$ref.slice(COMPONENT_SCHEMAS.length)] : undefined;
  if (Array.isArray(component?.examples) && component.examples.length) return { schema };
  return { schema, example: exampleOf(schema, components) };
}

/** OpenAPI 3.1 document built from the same zod schemas that validate requests. */
export function buildOpenApiDocument(routes: RouteDefinition[]): JsonSchema {
  const schemas = componentSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  const errorResponses = new ErrorResponses();
  for (const { spec } of routes) {
    const path = spec.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    const deprecated = Boolean(spec.deprecated) || deprecatedQueryParameters(spec).length > 0;
    for (const [status, response] of Object.entries(spec.responses)) {
      responses[status] = {
        description:
          spec.csvExport && status.startsWith("2")
            ? `${response.description} With Accept: text/csv, the whole filtered, sorted list (no pagination), streamed.`
            : response.description,
        headers: answerHeaders({ ...response.headers, ...(status.startsWith("2") && spec.shownOnce && shownOnceHeaders(spec.shownOnce)) }, deprecated),
        ...(response.schema && {
          content: {
            "application/json": jsonContent(mediaSchema(response.schema), schemas),
            // Accept: text/csv answers the whole filtered, sorted list at once.
            ...(spec.csvExport && status.startsWith("2") && { [CSV_MEDIA_TYPE]: csvContent(spec.csvExport.columns) }),
          },
        }),
      };
    }
    const errorCodes = errorsOf(spec);
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorCodes) {
      const status = spec.errorStatuses?.[code] ?? ERROR_CATALOGUE[code].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) responses[String(status)] = errorResponses.refer(codes, deprecated);
    // Idempotency-Key is honoured on every route that writes, and only there; a read sent by POST
    // still lists it (clients built when it was honoured there may send it), as ignored.
    const headers: HeaderName[] = [
      ...(spec.headers ?? []),
      ...(spec.method === "get" ? [] : routeWrites(spec) ? (["Idempotency-Key", "svc-change-reason"] as const) : (["Idempotency-Key (ignored)"] as const)),
    ];
    const headerParameters = headers.map((name) => ({ $ref: `#/components/parameters/${HEADER_PARAMETERS[name].component}` }));
    paths[path] ??= {};
    paths[path][spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      description: [
        spec.description,
        spec.deprecated && deprecationNote(spec.deprecated),
        `Roles: ${spec.roles.join(", ")}; rate limit: ${rateLimitClassOf(spec)}.`,
      ]
        .filter(Boolean)
        .join("\n\n"),
      ...(spec.deprecated && { deprecated: true, ...(spec.deprecated.sunset && { "x-sunset": spec.deprecated.sunset }) }),
      "x-rate-limit-class": rateLimitClassOf(spec),
      tags: [spec.tag],
      parameters: [...objectParameters(spec.params, "path"), ...objectParameters(spec.query, "query"), ...headerParameters],
      ...(spec.body && {
        requestBody: {
          required: true,
          ...(spec.csvImport && {
            description: `JSON, or the same items as CSV (Content-Type: text/csv; required columns: ${spec.csvImport.columns.required.join(", ")}): every errors[] entry of a refused CSV also carries its row.`,
          }),
          content: {
            "application/json": jsonContent(mediaSchema(spec.body), schemas),
            ...(spec.csvImport && { [CSV_MEDIA_TYPE]: csvContent(spec.csvImport.columns.allowed) }),
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
          headers: answerHeaders(undefined, false),
          content: { "application/json": jsonContent(mediaSchema(healthRepresentation), schemas) },
        },
        503: errorResponses.refer(["service_misconfigured"], false),
      },
    },
  };
  // The live connection carries a ticket instead of a key (browsers send no headers on a WebSocket).
  paths["/v1/operations/{operationId}/live"] = {
    get: {
      operationId: "openLive",
      summary: "Open an Operation's live connection (WebSocket)",
      description:
        'Upgrade: websocket, with a ticket from POST …/live-tickets (single use, 60 s). The server sends { "type": "hello", "version", "seq", "viewers" }, then { "type": "changed", "seq", "version", "changeSetId"? (the change set that made the version; not for orders), "actor", "what": lines | accounts | status | allocation | orders | operation, "counts", "lines"? } after every committed change and { "type": "presence", "viewers": [{ "id", "name", "role", "focus"? }] } as people come, go or move. A client sends { "type": "focus", "focus": { "variantExternalId", "field" } | null } (rate-limited) or { "type": "ping" }. since=<version> replays what was missed, or { "type": "reload" }. A malformed or oversized message closes that connection (1003, 1007, 1008, 1009); a revoked key\'s connections close with 4001. See docs/live.md.',
      tags: ["Live"],
      security: [{ liveTicket: [] }],
      parameters: [
        { $ref: "#/components/parameters/OperationIdPath" },
        { name: "since", in: "query", required: false, schema: { type: "integer", minimum: 0 }, description: "The version last seen." },
      ],
      responses: {
        101: { description: "Switching to the WebSocket." },
        400: errorResponses.refer(["validation_failed"], false),
        401: errorResponses.refer(["unauthorized"], false),
        404: errorResponses.refer(["not_found"], false),
      },
    },
  };
  const parameters = shareParameters(paths);
  hoistPathParameters(paths);
  return {
    openapi: "3.1.0",
    info: {
      title: "Campaign and buying-policy API",
      version: API_VERSION,
      description:
        "Operations (campaigns of product-variant lines and attached buyer accounts), Quotas Rules and their evaluation, carts, orders and server-side comparison. Every error is application/problem+json. Lists are keyset-paginated: pass nextToken from the previous page with the same filters and sort. Unknown query parameters and body fields are rejected with 400 validation_failed so typos never pass silently. Identifiers and codes (codes, external ids, account, supplier, store and user ids, the ids in paths, filters, CSV cells and the svc-store header) are stored and compared in Unicode NFC, so two spellings that look the same are one id; a control character, a format character (e.g. U+200B, U+202E, U+FEFF) or a lone surrogate in one is 400 validation_failed naming the field. A date-time carries a time zone (Z or ±hh:mm) and a date that exists on the calendar (2027-02-30 is refused, never rolled over); a date alone is refused; scheduled times lie before 2100-01-01. A path of this document called with a method it does not list answers 405 method_not_allowed with an Allow header. Read-your-writes: every answer that touched the tenant's data carries x-d1-bookmark (\"SHARD_n:<D1 bookmark>\", naming the database that holds the tenant); send the latest one back as the x-d1-bookmark request header and the answer sees every write up to it. While a tenant's data is moved to another database, every request that may write answers 503 tenant_moving with Retry-After, and reads keep being served. Every answer carries svc-api-version, the build that answered. Within /v1 changes are additive only; a form kept for compatibility is marked deprecated here, and an answer to a request that used one carries Deprecation (RFC 9745) and a Link to its documentation (and Sunset, RFC 8594, once a date is set).",
    },
    // Relative: a viewer resolves it against where it loaded this document, so "Try it out" calls the
    // instance that served it, on any host and port.
    servers: [{ url: "/", description: "The instance that served this document." }],
    security: [{ svcClient: [], svcApiKey: [] }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: {
        liveTicket: { type: "apiKey", in: "query", name: "ticket", description: "A live connection's ticket, from POST …/live-tickets: single use, 60 s." },
        svcClient: { type: "apiKey", in: "header", name: "svc-client", description: "OPERATOR or ACCOUNT; must match the key's role." },
        svcApiKey: {
          type: "apiKey",
          in: "header",
          name: "svc-api-key",
          description:
            "The secret key, issued by `POST /v1/keys` or `npm run key`: `sk3_` and 62 base64url characters, carrying a random part, its issue time and a signature the API checks before reading any database. Keys issued in the earlier formats (`sk2_` and 62 base64url characters, `sk_` and 43) keep working. A client address whose requests fail authentication too often in a minute answers 429 rate_limited with limitClass `authentication` and Retry-After.",
        },
      },
      schemas,
      parameters,
      responses: sortedByName(errorResponses.components),
      headers: SHARED_HEADERS,
    },
    paths,
  };
}
