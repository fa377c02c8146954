import { call, expectStatus, type Caller } from "./client";

/*
 * The served OpenAPI document as tests walk it. Members are typed as present where our document
 * has them on the operations tests read (a GET has no requestBody, a 204 no content): a test that
 * reads one that is absent gets undefined and fails on its assertion, never on a type it trusted.
 */
export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  required?: string[];
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
  oneOf?: OpenApiSchema[];
  enum?: unknown[];
  [keyword: string]: unknown;
}

export interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  deprecated?: boolean;
  description?: string;
  schema: OpenApiSchema;
  [member: string]: unknown;
}

export interface OpenApiMediaType {
  schema: OpenApiSchema;
  [member: string]: unknown;
}

export interface OpenApiResponse {
  description: string;
  content: Record<string, OpenApiMediaType>;
  headers: Record<string, { $ref?: string; schema?: OpenApiSchema; [member: string]: unknown }>;
  [member: string]: unknown;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  deprecated?: boolean;
  tags: string[];
  security?: unknown[];
  parameters: OpenApiParameter[];
  requestBody: { required?: boolean; content: Record<string, OpenApiMediaType> };
  responses: Record<string, OpenApiResponse>;
  [member: string]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [member: string]: unknown };
  servers: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, OpenApiSchema>; [member: string]: Record<string, unknown> };
  [member: string]: unknown;
}

/** GET /v1/openapi.json as `caller` (none by default: the document is public), asserted 200 JSON, exactly as served. */
export async function servedDocumentAsIs(caller: Caller | null = null): Promise<OpenApiDocument> {
  const response = await call<OpenApiDocument>(caller, "GET", "/v1/openapi.json");
  const document = expectStatus(response, 200);
  if (!response.headers.get("content-type")?.startsWith("application/json"))
    throw new Error(`the document is served as ${response.headers.get("content-type")}`);
  return document;
}

/**
 * The served document with each operation's shared parameters and answers (components/parameters,
 * components/responses) put in place, as a client generator sees them: tests read what an operation
 * declares, wherever the document keeps it. Schema $refs stay.
 */
export async function servedDocument(caller: Caller | null = null): Promise<OpenApiDocument> {
  const document = await servedDocumentAsIs(caller);
  const component = (ref: string) => {
    const [, , kind, name] = ref.split("/");
    const found = document.components[kind]?.[name];
    if (!found) throw new Error(`${ref} points to nothing`);
    return found;
  };
  const inPlace = <T>(value: T): T => (typeof (value as { $ref?: unknown }).$ref === "string" ? (component((value as { $ref: string }).$ref) as T) : value);
  for (const item of Object.values(document.paths)) {
    // A path parameter every operation of the path has is declared on the path: each operation gets it back.
    const { parameters: onPath = [] } = item as unknown as { parameters?: OpenApiParameter[] };
    delete (item as Record<string, unknown>).parameters;
    for (const operation of Object.values(item)) {
      operation.parameters = [...(onPath as OpenApiParameter[]), ...(operation.parameters ?? [])].map(inPlace);
      operation.responses = Object.fromEntries(Object.entries(operation.responses).map(([status, answer]) => [status, inPlace(answer)]));
    }
  }
  return document;
}

/** The example a media type shows: its own, else the first of the component its schema names. */
export function exampleOf(document: OpenApiDocument, media: OpenApiMediaType): unknown {
  if (media.example !== undefined) return media.example;
  const ref = media.schema.$ref;
  const examples = ref ? document.components.schemas[ref.split("/").pop()!]?.examples : undefined;
  return Array.isArray(examples) ? examples[0] : undefined;
}
