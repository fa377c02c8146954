import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/app";
import { app } from "../../src/index";
import { ERROR_CATALOGUE } from "../../src/platform/core/errors";
import { call, OPERATION_LIST_PARAMETERS } from "../helpers/client";
import {
  exampleOf,
  servedDocument,
  servedDocumentAsIs,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiSchema,
} from "../helpers/openapi";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

const fetchDocument = () => servedDocument();

/** Routes the Hono app answers that the document must describe. */
function documentedRoutes(): { method: string; path: string }[] {
  const seen = new Set<string>();
  const routes: { method: string; path: string }[] = [];
  for (const route of app.routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    if (
      /^\/(v1\/)?__bench\b/.test(route.path) ||
      route.path === "/docs" ||
      route.path === "/console" ||
      route.path === "/favicon.ico" ||
      route.path === "/v1/openapi.json" ||
      route.path === "/"
    )
      continue;
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    routes.push({ method: route.method.toLowerCase(), path: route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}") });
  }
  return routes;
}

function collectRefs(value: unknown, refs: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, refs);
  } else if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref" && typeof child === "string") refs.push(child);
      else collectRefs(child, refs);
    }
  }
  return refs;
}

function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, part) => (node !== null && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined), document);
}

describe("GET /v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document with the shape tools expect", async () => {
    const document = await fetchDocument();
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof document.info?.title).toBe("string");
    expect(typeof document.info?.version).toBe("string");
    expect(document.components.securitySchemes.svcClient).toMatchObject({ type: "apiKey", in: "header", name: "svc-client" });
    expect(document.components.securitySchemes.svcApiKey).toMatchObject({ type: "apiKey", in: "header", name: "svc-api-key" });
    expect(document.components.schemas.Problem.properties?.requestId).toBeTruthy();
    expect(document.components.schemas.Problem.properties?.code.enum?.sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());

    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      expect(path.startsWith("/v1/") || path === "/healthz", path).toBe(true);
      const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(METHODS as readonly string[], where).toContain(method);
        expect(typeof operation.summary, where).toBe("string");
        expect(typeof operation.operationId, where).toBe("string");
        expect(operationIds.has(operation.operationId), `duplicate operationId ${operation.operationId}`).toBe(false);
        operationIds.add(operation.operationId);
        expect(Array.isArray(operation.tags) && operation.tags.length > 0, where).toBe(true);

        const statuses = Object.keys(operation.responses);
        expect(
          // A WebSocket's success is its upgrade (101).
          statuses.some((s) => /^(2\d\d|101)$/.test(s)),
          `${where} has a success response`,
        ).toBe(true);
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(status, where).toMatch(/^[1-5]\d\d$/);
          expect(typeof response.description, `${where} ${status}`).toBe("string");
          if (Number(status) >= 400) expect(response.content["application/problem+json"].schema.$ref).toBe("#/components/schemas/Problem");
        }
        // Every route needs credentials, so 401 is documented everywhere; only the health check is open (security: []).
        if (operation.security?.length === 0) expect(path).toBe("/healthz");
        else expect(statuses, where).toContain("401");

        const parameters: OpenApiParameter[] = operation.parameters ?? [];
        for (const parameter of parameters) {
          expect(["path", "query", "header"], where).toContain(parameter.in);
          expect(typeof parameter.name, where).toBe("string");
          expect(parameter.schema, `${where} ${parameter.name}`).toBeTruthy();
        }
        const declaredPathParams = parameters.filter((p) => p.in === "path");
        expect(declaredPathParams.map((p) => p.name).sort(), `${where} path parameters`).toEqual([...pathParams].sort());
        for (const p of declaredPathParams) expect(p.required, where).toBe(true);
        const names = parameters.map((p) => `${p.in}:${p.name}`);
        expect(new Set(names).size, `${where} has no duplicate parameters`).toBe(names.length);

        if (operation.requestBody) expect(operation.requestBody.content["application/json"].schema, where).toBeTruthy();
      }
    }
    for (const ref of collectRefs(document)) expect(resolvePointer(document, ref), `unresolved ${ref}`).toBeTruthy();
  });

  it("describes every route registered on the app (path and method)", async () => {
    const document = await fetchDocument();
    const routes = documentedRoutes();
    // Sanity: the routes of this issue are among those the app registers.
    for (const expected of [
      "get /v1/operations",
      "post /v1/operations",
      "get /v1/operations/{operationId}",
      "patch /v1/operations/{operationId}",
      "post /v1/operations/{operationId}/status",
      "delete /v1/operations/{operationId}",
      "get /v1/events",
    ]) {
      expect(routes.map((r) => `${r.method} ${r.path}`)).toContain(expected);
    }
    const missing = routes.filter((r) => !document.paths[r.path]?.[r.method]).map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(missing, `routes missing from the OpenAPI document: ${missing.join(", ")}`).toEqual([]);
    // And nothing is documented that the app does not answer.
    const registered = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const extra: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) if (!registered.has(`${method} ${path}`)) extra.push(`${method} ${path}`);
    }
    expect(extra).toEqual([]);
  });

  it("documents the Operation contract: list parameters, bodies, headers and problems", async () => {
    const document = await fetchDocument();
    const list = document.paths["/v1/operations"].get;
    const query = list.parameters.filter((p) => p.in === "query").map((p) => p.name);
    for (const name of OPERATION_LIST_PARAMETERS) expect(query).toContain(name);
    const limit = list.parameters.find((p) => p.name === "limit");
    expect(limit?.schema).toMatchObject({ default: 50, minimum: 1, maximum: 500 });
    expect(limit?.required ?? false).toBe(false);
    const create = document.paths["/v1/operations"].post;
    const createSchema = resolvePointer(document, create.requestBody.content["application/json"].schema.$ref ?? "") as OpenApiSchema;
    expect(createSchema.required).toEqual(expect.arrayContaining(["code", "name", "type", "startDate", "endDate"]));
    expect(createSchema.additionalProperties).toBe(false);
    expect(create.responses["201"].headers.Location).toBeTruthy();
    expect(create.responses["409"].description).toMatch(/duplicate_code/);

    const patch = document.paths["/v1/operations/{operationId}"].patch;
    const headerNames = patch.parameters.filter((p) => p.in === "header").map((p) => p.name);
    expect(headerNames).toEqual(expect.arrayContaining(["If-Match", "Idempotency-Key"]));
    expect(patch.responses["412"].description).toMatch(/version_mismatch/);
    expect(patch.responses["409"].description).toMatch(/operation_not_draft/);
    expect(patch.responses["200"].headers.Warning).toBeTruthy();
    const status = document.paths["/v1/operations/{operationId}/status"].post;
    const statusSchema = resolvePointer(document, status.requestBody.content["application/json"].schema.$ref ?? "") as OpenApiSchema;
    expect(statusSchema.properties?.status.enum?.sort()).toEqual(["ACTIVE", "DRAFT", "INACTIVE"]);
    expect(status.responses["409"].description).toMatch(/invalid_transition/);
    expect(document.paths["/v1/operations/{operationId}"].delete.responses["204"]).toBeTruthy();
    expect(document.paths["/v1/events"].get.parameters.map((p) => p.name)).toContain("after");
  });

  it("is served without credentials and the same on every call", async () => {
    const first = await fetchDocument();
    const second = await fetchDocument();
    expect(second).toEqual(first);
  });
});

/** Every operation of the document, with where it is. */
function operationsOf(document: OpenApiDocument): { where: string; operation: OpenApiOperation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation })),
  );
}

/** Every key anywhere in `value`. */
function keysIn(value: unknown, keys = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keysIn(item, keys);
  } else if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      keys.add(key);
      keysIn(child, keys);
    }
  }
  return keys;
}

const COMPONENT_REF = /^#\/components\/schemas\/[A-Z][A-Za-z0-9]*$/;

describe("the OpenAPI document, for client generation", () => {
  it("names each operation as a person would: the route's camelCase operationId, unique, not derived from the path", async () => {
    const document = await fetchDocument();
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(id).not.toMatch(/^(get|post|put|patch|delete)V1/);
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (const { spec } of apiRoutes) {
      expect(document.paths[spec.path.replace(/:([A-Za-z]+)/g, "{$1}")][spec.method].operationId).toBe(spec.operationId);
    }
    expect(document.paths["/healthz"].get.operationId).toBe("getHealth");
  });

  it("refers every JSON body and every 2xx JSON answer to a named component, with an example", async () => {
    const document = await fetchDocument();
    for (const name of Object.keys(document.components.schemas)) expect(name).toMatch(/^[A-Z][A-Za-z0-9]*$/);
    for (const { where, operation } of operationsOf(document)) {
      const body = operation.requestBody?.content["application/json"];
      if (operation.requestBody) {
        expect(body.schema.$ref, `${where} body`).toMatch(COMPONENT_REF);
        expect(exampleOf(document, body), `${where} body example`).toBeDefined();
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const json = response.content?.["application/json"];
        if (!status.startsWith("2") || !json) continue;
        expect(json.schema.$ref, `${where} ${status}`).toMatch(COMPONENT_REF);
        expect(exampleOf(document, json), `${where} ${status} example`).toBeDefined();
      }
    }
    // The main representations and pages are there under their own names.
    for (const name of [
      "Operation",
      "OperationPage",
      "OperationCreate",
      "OperationPatch",
      "Line",
      "LinePage",
      "Account",
      "QuotaRule",
      "Evaluation",
      "Cart",
      "Order",
      "Comparison",
      "Event",
      "Key",
      "Problem",
    ]) {
      expect(document.components.schemas[name], name).toBeTruthy();
    }
    // Nothing of the conversion shows: no nested $defs, no metadata meant for the document builder.
    const keys = keysIn(document);
    for (const internal of ["$defs", "$id", "$schema", "documentedQuery", "oneOfComponents", "queryInteger"]) expect(keys.has(internal), internal).toBe(false);
  });

  it("shows examples that the route's own schemas accept", async () => {
    const document = await fetchDocument();
    for (const { spec } of apiRoutes) {
      const operation = document.paths[spec.path.replace(/:([A-Za-z]+)/g, "{$1}")][spec.method];
      const where = `${spec.method.toUpperCase()} ${spec.path}`;
      if (spec.body) {
        const parsed = spec.body.safeParse(exampleOf(document, operation.requestBody.content["application/json"]));
        expect(parsed.error?.issues, `${where} body example`).toBeUndefined();
      }
      for (const [status, response] of Object.entries(spec.responses)) {
        if (!response.schema) continue;
        const parsed = response.schema.safeParse(exampleOf(document, operation.responses[status].content["application/json"]));
        expect(parsed.error?.issues, `${where} ${status} example`).toBeUndefined();
      }
    }
  });

  it("types query parameters as the values they stand for, and says how comma lists are sent", async () => {
    const document = await fetchDocument();
    for (const { where, operation } of operationsOf(document)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== "query" || parameter.schema.type !== "array") continue;
        expect({ style: parameter.style, explode: parameter.explode }, `${where} ${parameter.name}`).toEqual({ style: "form", explode: false });
      }
    }
    const parameter = (path: string, method: string, name: string) => document.paths[path][method].parameters.find((p) => p.name === name);
    expect(parameter("/v1/operations", "get", "status")?.schema).toMatchObject({
      type: "array",
      items: { type: "string", enum: ["DRAFT", "ACTIVE", "INACTIVE"] },
    });
    expect(parameter("/v1/operations", "get", "ids")?.schema).toMatchObject({ type: "array", items: { type: "string" } });
    expect(parameter("/v1/operations", "get", "idType")?.schema.enum).toEqual(["id", "code", "externalId"]);
    expect(parameter("/v1/operations", "get", "sort")?.schema.items?.enum).toEqual(expect.arrayContaining(["createdAt", "-createdAt", "name", "-name"]));
    expect(parameter("/v1/operations/{operationId}/accounts", "get", "operationStatus")?.schema.items?.enum).toEqual([
      "NOT_STARTED",
      "CART_CREATED",
      "ORDERED",
    ]);
    expect(parameter("/v1/buying-policies/quotas/evaluate", "post", "explain")?.schema).toMatchObject({ type: "boolean", default: false });
    expect(parameter("/v1/operations/{operationId}/lines", "put", "dryRun")?.schema.type).toBe("boolean");
    expect(parameter("/v1/operations/{operationId}/lines", "get", "minQuantity")?.schema.type).toBe("integer");
  });

  it("says what routes share once (parameters, error answers, examples): per operation, its structure stays under 2,500 bytes and its prose under 1,200", async () => {
    const response = await call(null, "GET", "/v1/openapi.json");
    const document = await servedDocumentAsIs();
    // A tripwire for inlining that grows with the API instead of a total to raise with every route: the
    // document without its prose (descriptions, summaries) per operation was 3,900 bytes before routes
    // shared their parts and 2,275 after (66 operations); the prose is held to its own average.
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item).filter((method) => method !== "parameters")).length;
    const withoutProse = JSON.stringify(JSON.parse(response.text), (key, value) => (key === "description" || key === "summary" ? undefined : value));
    expect(withoutProse.length / operations).toBeLessThanOrEqual(2_500);
    expect((response.text.length - withoutProse.length) / operations).toBeLessThanOrEqual(1_200);
    const inline = new Map<string, number>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        // A path parameter all of a path's operations share is declared on the path, once.
        if (method === "parameters") {
          for (const parameter of operation as unknown as OpenApiParameter[])
            expect(parameter.$ref, path).toMatch(/^#\/components\/parameters\/[A-Za-z]+Path$/);
          continue;
        }
        for (const [status, answer] of Object.entries(operation.responses)) {
          if (!status.startsWith("2") && status !== "101")
            expect(answer.$ref, `${method} ${path} ${status}`).toMatch(/^#\/components\/responses\/[A-Z][A-Za-z]*$/);
        }
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === "header") expect(parameter.$ref, `${method} ${path} header`).toMatch(/^#\/components\/parameters\/[A-Za-z]+Header$/);
          if (parameter.$ref) continue;
          const declaration = JSON.stringify(parameter);
          inline.set(declaration, (inline.get(declaration) ?? 0) + 1);
        }
      }
    }
    // A declaration kept with its route is one no other route has (a list's own sort fields).
    expect([...inline].filter(([, uses]) => uses > 1).map(([declaration]) => declaration)).toEqual([]);
    // The parameter's description is said once, not again in its schema.
    for (const shared of Object.values(document.components.parameters ?? {}) as OpenApiParameter[])
      expect(shared.schema.description, shared.name).toBeUndefined();
  });

  it("describes every tag its operations use", async () => {
    const document = await fetchDocument();
    const described = new Map(document.tags.map((tag) => [tag.name, tag.description]));
    for (const { where, operation } of operationsOf(document)) for (const tag of operation.tags) expect(described.get(tag), `${where}: ${tag}`).toBeTruthy();
  });
});

describe("GET /docs", () => {
  it("serves an HTML reference that loads only local assets, all of which answer 200", async () => {
    const res = await SELF.fetch("http://api.test/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const html = await res.text();
    const refs = [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+url\(\s*["']?(?:https?:)?\/\//i);
    for (const ref of refs) {
      const asset = await SELF.fetch(new URL(ref, "http://api.test/docs/").toString());
      expect(asset.status, ref).toBe(200);
      const body = await asset.text();
      expect(body.length, ref).toBeGreaterThan(0);
    }
    // The page's own script points the viewer at the local document and turns off the online validator.
    const scripts = refs.filter((ref) => ref.endsWith(".js") && !ref.includes("vendor"));
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      const source = await (await SELF.fetch(new URL(script, "http://api.test/docs/").toString())).text();
      expect(source).toContain("/v1/openapi.json");
      expect(source).not.toMatch(/https?:\/\//);
      expect(source).toMatch(/validatorUrl:\s*null/);
    }
  });

  it("answers 404 for a missing docs asset", async () => {
    const res = await SELF.fetch("http://api.test/docs/vendor/nope.js");
    expect(res.status).toBe(404);
  });
});
