import { describe, expect, it } from "vitest";
import committed from "../../client/openapi.json";
import { call, expectStatus } from "../helpers/client";

/*
 * client/openapi.json is what clients are generated from and what the linter reads
 * (test/node/openapi-lint.test.mjs): it must be the document the Worker serves.
 */
describe("client/openapi.json", () => {
  it("is the document GET /v1/openapi.json serves", async () => {
    const served = expectStatus(await call(null, "GET", "/v1/openapi.json"), 200);
    expect(served, "client/openapi.json is stale: run `npm run spec` and commit it").toEqual(committed);
  });
});
