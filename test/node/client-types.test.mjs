// The typed client's types are generated from the committed OpenAPI document, never edited by hand:
// regenerating them must give the committed file byte for byte (run `npm run spec` after an API change).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const repoRoot = join(import.meta.dirname, "..", "..");
const generator = join(repoRoot, "node_modules", "openapi-typescript", "bin", "cli.js");

test("client/src/schema.d.ts is exactly what openapi-typescript generates from client/openapi.json", () => {
  const dir = mkdtempSync(join(tmpdir(), "client-types-"));
  try {
    const output = join(dir, "schema.d.ts");
    execFileSync(process.execPath, [generator, join(repoRoot, "client", "openapi.json"), "--output", output], { stdio: "pipe" });
    const committed = readFileSync(join(repoRoot, "client", "src", "schema.d.ts"), "utf8");
    assert.ok(readFileSync(output, "utf8") === committed, "client/src/schema.d.ts differs from the generated types: run `npm run spec` and commit the result");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
