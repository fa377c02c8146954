import { describe, expect, it } from "vitest";
import committedCatalogue from "../../client/error-catalogue.json";
import committed from "../../client/openapi.json";
import { ERROR_CATALOGUE } from "../../src/platform/errors";
import { call, expectStatus } from "../helpers/client";

/*
 * client/openapi.json is what clients are generated from and what the linter reads
 * (test/node/openapi-lint.test.mjs): it must be the document the Worker serves. With
 * client/error-catalogue.json it is the contract the compatibility gate holds to its accepted
 * snapshot (test/node/compatibility.test.mjs), so neither may lag behind the code.
 */
describe("client/openapi.json", () => {
  it("is the document GET /v1/openapi.json serves", async () => {
    const served = expectStatus(await call(null, "GET", "/v1/openapi.json"), 200);
    expect(served, "client/openapi.json is stale: run `npm run spec` and commit it").toEqual(committed);
  });
});

describe("client/error-catalogue.json", () => {
  it("is the error catalogue, sorted by code", () => {
    expect(committedCatalogue, "client/error-catalogue.json is stale: run `npm run spec` and commit it").toEqual(ERROR_CATALOGUE);
    expect(Object.keys(committedCatalogue)).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });
});
