import { describe, expect, it } from "vitest";
import committedCatalogue from "../../client/error-catalogue.json";
import committed from "../../client/openapi.json";
import { ERROR_CATALOGUE } from "../../src/platform/core/errors";
import { call, expectStatus } from "../helpers/client";

/*
 * client/openapi.json is built from the route specs in Node (npm run spec, run by every install and
 * first by npm test): what clients are generated from and what the linter reads
 * (test/node/openapi-lint.test.mjs). It must be the document the Worker serves. With
 * client/error-catalogue.json it is the contract the compatibility gate holds to its accepted
 * snapshot in spec/ (test/node/compatibility.test.mjs).
 */
describe("client/openapi.json, as built", () => {
  it("is the document GET /v1/openapi.json serves", async () => {
    const served = expectStatus(await call(null, "GET", "/v1/openapi.json"), 200);
    expect(served, "client/openapi.json is not what the Worker serves: run `npm run spec`").toEqual(committed);
  });
});

describe("client/error-catalogue.json", () => {
  it("is the error catalogue, sorted by code", () => {
    expect(committedCatalogue, "client/error-catalogue.json is stale: run `npm run spec`").toEqual(ERROR_CATALOGUE);
    expect(Object.keys(committedCatalogue)).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });
});
