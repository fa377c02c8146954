// `npm run deploy` checks the deployed Worker's secrets before uploading it (a Worker without one
// answers every request 503 service_misconfigured): the check itself, on what `wrangler secret list`
// prints, without an account or the network.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listedSecretNames, missingSecretsAdvice } from "../../scripts/lib/deploy-secrets.mjs";

const printed = (names) => ({
  stdout: JSON.stringify(
    names.map((name) => ({ name, type: "secret_text" })),
    null,
    "  ",
  ),
});

describe("npm run deploy's secret check", () => {
  it("lets a Worker with both secrets deploy", () => {
    assert.equal(missingSecretsAdvice(listedSecretNames(printed(["KEY_SIGNING_SECRET", "PAGINATION_SECRET", "CORS_ORIGINS"]))), null);
  });

  it("refuses a Worker with only PAGINATION_SECRET (what docs/deploy.md used to lead to), naming the command that sets the other", () => {
    const advice = missingSecretsAdvice(listedSecretNames(printed(["PAGINATION_SECRET"])));
    assert.match(advice, /^The deployed Worker has no KEY_SIGNING_SECRET: it would answer every request 503 service_misconfigured/);
    assert.match(advice, /^ {2}npx wrangler secret put KEY_SIGNING_SECRET$/m);
    assert.doesNotMatch(advice, /secret put PAGINATION_SECRET/);
  });

  it("counts a Worker not deployed yet as having no secret: both are asked for", () => {
    const failure =
      'wrangler secret list failed (exit 1):\n✘ [ERROR] Worker "campaign-policy-api" not found.\n\nIf this is a new Worker, run `wrangler deploy` first to create it.';
    const advice = missingSecretsAdvice(listedSecretNames({ failure }));
    assert.match(advice, /no PAGINATION_SECRET and no KEY_SIGNING_SECRET/);
    assert.match(advice, /secret put PAGINATION_SECRET\n {2}npx wrangler secret put KEY_SIGNING_SECRET/);
  });

  it("reads the list after a notice wrangler printed first, and stops on any other failure (no account), saying what to do", () => {
    assert.deepEqual(listedSecretNames({ stdout: `▲ [WARNING] something\n${printed(["KEY_SIGNING_SECRET"]).stdout}` }), ["KEY_SIGNING_SECRET"]);
    assert.throws(
      () => listedSecretNames({ failure: "Not logged in." }),
      /Could not list the deployed Worker's secrets \(is `npx wrangler login` done\?\):\nNot logged in\./,
    );
    assert.throws(() => listedSecretNames({ stdout: "nothing" }), /printed no list/);
  });
});
