// client/openapi.json (the document the Worker serves, written by `npm run spec`) passes a real
// OpenAPI linter: Redocly CLI with redocly.yaml (its recommended rules, examples checked against
// their schemas). test/openapi/committed-document.test.ts keeps the file equal to what is served.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const redocly = join(repoRoot, "node_modules", "@redocly", "cli", "bin", "cli.js");

describe("redocly lint client/openapi.json", () => {
  it("reports no error", async () => {
    let code = 0;
    let stdout;
    try {
      ({ stdout } = await promisify(execFile)(process.execPath, [redocly, "lint", "client/openapi.json", "--format", "json"], {
        cwd: repoRoot,
        // Offline and quiet: no usage report, no update check.
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        maxBuffer: 16 * 1024 * 1024,
      }));
    } catch (error) {
      ({ code, stdout } = error);
    }
    const report = JSON.parse(stdout);
    const errors = report.problems
      .filter((problem) => problem.severity === "error")
      .map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location?.[0]?.pointer}`);
    assert.deepEqual(errors, []);
    assert.equal(report.totals.errors, 0);
    assert.equal(code, 0);
  });
});
