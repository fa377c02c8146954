import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import clientPackage from "../../client/package.json";
import packageJson from "../../package.json";
import { apiRoutes, buildApp } from "../../src/app";
import { mountRoutes } from "../../src/platform/http/routes";
import { defineRoute } from "../../src/platform/http/routes";
import { deprecatedQueryParameters } from "../../src/platform/http/routes";
import { serve } from "../../src/platform/http/serve";
import { createClient, type DeprecationNotice } from "../../client/src/index";
import { call, createOperation, newTenant, uniqueId, callRoute } from "../helpers/client";
import { servedDocument } from "../helpers/openapi";
import { routes } from "../helpers/routes";
import { putAccounts } from "../helpers/setup";

const ANNOUNCED = `@${Date.parse("2026-11-23T00:00:00Z") / 1000}`;

/** Everything an answer says but the headers that differ between any two answers (request id, bookmark, deprecation). */
function comparable(response: { status: number; body: unknown }) {
  return { status: response.status, body: response.body };
}

describe("the build that answered", () => {
  it("every answer carries svc-api-version, the package version; /healthz says the same", async () => {
    const operator = await newTenant();
    const answers = [
      await SELF.fetch("http://api.test/healthz"),
      await SELF.fetch("http://api.test/"),
      await SELF.fetch("http://api.test/v1/openapi.json"),
      await SELF.fetch("http://api.test/docs"),
      await SELF.fetch("http://api.test/v1/operations"),
      await SELF.fetch("http://api.test/nowhere"),
      await SELF.fetch("http://api.test/v1/operations", {
        method: "OPTIONS",
        headers: { origin: "https://admin.example.test", "access-control-request-method": "GET" },
      }),
      await SELF.fetch("http://api.test/v1/operations", { headers: { "svc-client": "OPERATOR", "svc-api-key": operator.key } }),
      await SELF.fetch("http://api.test/v1/operations", {
        method: "POST",
        headers: { "svc-client": "OPERATOR", "svc-api-key": operator.key, "content-type": "application/json" },
        body: "{",
      }),
    ];
    for (const answer of answers) expect(answer.headers.get("svc-api-version"), answer.url).toBe(packageJson.version);
    expect(await (await SELF.fetch("http://api.test/healthz")).json()).toEqual({ status: "ok", version: packageJson.version });
  });

  it("names the deployed commit when the deployment gives one (BUILD_COMMIT)", async () => {
    const ctx = createExecutionContext();
    const answer = await serve(buildApp())(new Request("http://api.test/healthz"), { ...env, BUILD_COMMIT: "3f9c2ab" }, ctx);
    await waitOnExecutionContext(ctx);
    expect(answer.headers.get("svc-api-version")).toBe(`${packageJson.version}+3f9c2ab`);
    expect(await answer.json()).toEqual({ status: "ok", version: `${packageJson.version}+3f9c2ab` });
  });

  it("the document's info.version and the typed client's package version are the API's version", async () => {
    const document = await servedDocument();
    expect(document.info.version).toBe(packageJson.version);
    expect(clientPackage.version).toBe(packageJson.version);
    expect(document.components.headers.ApiVersion).toBeTruthy();
    expect(document.paths["/healthz"].get.responses["200"].headers["svc-api-version"]).toEqual({ $ref: "#/components/headers/ApiVersion" });
  });
});

describe("deprecated forms", () => {
  it("a filter alias answers exactly as its canonical name, with Deprecation and a Link to the documentation", async () => {
    const operator = await newTenant();
    const [first] = [await createOperation(operator, { name: { en: "Alpha sale" } }), await createOperation(operator, { name: { en: "Beta" } })];
    const pairs: [alias: Record<string, string>, canonical: Record<string, string>][] = [
      [{ operationId: first.id }, { ids: first.id }],
      [{ operationName: "alpha" }, { name: "alpha" }],
    ];
    for (const [alias, canonical] of pairs) {
      const viaAlias = await callRoute(operator, routes.listOperations, { query: alias });
      const viaCanonical = await callRoute(operator, routes.listOperations, { query: canonical });
      expect(comparable(viaAlias)).toEqual(comparable(viaCanonical));
      expect(viaAlias.body.items.map((item: { id: string }) => item.id)).toEqual([first.id]);
      expect(viaAlias.headers.get("deprecation")).toBe(ANNOUNCED);
      expect(viaAlias.headers.get("link")).toBe('</docs#/Operations/listOperations>; rel="deprecation"; type="text/html"');
      expect(viaAlias.headers.get("sunset")).toBeNull();
      expect(viaCanonical.headers.get("deprecation")).toBeNull();
      expect(viaCanonical.headers.get("link")).toBeNull();
    }
    // The directory's alias too.
    const accountId = uniqueId("acc");
    await putAccounts(operator, [{ accountId }]);
    const directoryAlias = await callRoute(operator, routes.listDirectory, { query: { accountId } });
    expect(comparable(directoryAlias)).toEqual(comparable(await callRoute(operator, routes.listDirectory, { query: { accountIds: accountId } })));
    expect(directoryAlias.headers.get("deprecation")).toBe(ANNOUNCED);
  });

  it("every deprecated query parameter of every route is announced on the wire, even on a refused request", async () => {
    const operator = await newTenant();
    const withAliases = apiRoutes.filter(({ spec }) => deprecatedQueryParameters(spec).length);
    expect(withAliases.length).toBeGreaterThanOrEqual(4);
    for (const { spec } of withAliases) {
      for (const [name] of deprecatedQueryParameters(spec)) {
        const path = spec.path.replace(/:[A-Za-z]+/g, "op_01ARZ3NDEKTSV4RRFFQ69G5FAV");
        const answer = await call(operator, spec.method.toUpperCase(), path, { query: { [name]: "x" } });
        expect(answer.headers.get("deprecation"), `${spec.method} ${spec.path}?${name}`).toBe(ANNOUNCED);
        expect(answer.headers.get("link"), `${spec.method} ${spec.path}?${name}`).toContain(`/docs#/${encodeURIComponent(spec.tag)}/${spec.operationId}`);
      }
    }
  });

  it("the document marks the deprecated parameters and POST attach, naming what to use", async () => {
    const document = await servedDocument();
    const listOperations = document.paths["/v1/operations"].get;
    const parameter = (name: string) => listOperations.parameters.find((p) => p.name === name);
    expect(parameter("operationId")).toMatchObject({ deprecated: true });
    expect(parameter("operationId")?.description).toContain("use ids");
    expect(parameter("ids")?.deprecated).toBeUndefined();
    expect(listOperations.responses["200"].headers.Deprecation).toEqual({ $ref: "#/components/headers/Deprecation" });
    const attach = document.paths["/v1/operations/{operationId}/accounts"];
    expect(attach.post.deprecated).toBe(true);
    expect(attach.post.description).toContain("use PUT /v1/operations/{operationId}/accounts");
    expect(attach.put.deprecated).toBeUndefined();
  });

  it("POST attach answers exactly as PUT, with Deprecation; the typed client tells once", async () => {
    const operator = await newTenant();
    const accounts = [uniqueId("acc"), uniqueId("acc")];
    await putAccounts(
      operator,
      accounts.map((accountId) => ({ accountId })),
    );
    const [viaPost, viaPut] = [await createOperation(operator), await createOperation(operator)];
    const posted = await callRoute(operator, routes.attachAccountsByPost, { params: { operationId: viaPost.id }, body: accounts });
    const put = await callRoute(operator, routes.attachAccounts, { params: { operationId: viaPut.id }, body: accounts });
    expect(comparable(posted)).toEqual(comparable(put));
    expect(posted.status).toBe(200);
    expect(posted.headers.get("deprecation")).toBe(ANNOUNCED);
    expect(posted.headers.get("link")).toBe('</docs#/Accounts/attachAccountsViaPost>; rel="deprecation"; type="text/html"');
    expect(put.headers.get("deprecation")).toBeNull();

    const notices: DeprecationNotice[] = [];
    const api = createClient({
      baseUrl: "http://api.test",
      apiKey: operator.key,
      client: "OPERATOR",
      fetch: (request) => SELF.fetch(request),
      onDeprecation: (notice) => notices.push(notice),
    });
    const third = await createOperation(operator);
    await api.POST("/v1/operations/{operationId}/accounts", { params: { path: { operationId: third.id } }, body: accounts });
    await api.POST("/v1/operations/{operationId}/accounts", { params: { path: { operationId: third.id } }, body: accounts });
    await api.PUT("/v1/operations/{operationId}/accounts", { params: { path: { operationId: third.id } }, body: accounts });
    expect(notices).toEqual([
      { method: "POST", path: `/v1/operations/${third.id}/accounts`, deprecation: ANNOUNCED, link: "/docs#/Accounts/attachAccountsViaPost" },
    ]);
  });

  it("a deprecated route given a sunset date carries Sunset (RFC 8594)", async () => {
    const operator = await newTenant();
    const retiring = defineRoute(
      {
        operationId: "retiringExample",
        method: "get",
        path: "/v1/__retiring",
        summary: "A route on its way out",
        tag: "Service",
        roles: ["OPERATOR"],
        responses: { 200: { description: "Still answering." } },
        errors: [],
        deprecated: { since: "2026-11-23", use: "GET /v1/operations", sunset: "2027-12-01" },
      },
      (c) => c.json({ stillHere: true }),
    );
    const app = buildApp((extended) => mountRoutes(extended, [retiring]));
    const ctx = createExecutionContext();
    const answer = await serve(app)(
      new Request("http://api.test/v1/__retiring", { headers: { "svc-client": "OPERATOR", "svc-api-key": operator.key } }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ stillHere: true });
    expect(answer.headers.get("sunset")).toBe("Wed, 01 Dec 2027 00:00:00 GMT");
    expect(answer.headers.get("deprecation")).toBe(ANNOUNCED);
  });
});
