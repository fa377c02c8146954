// npm run spec
//   Writes client/openapi.json: the OpenAPI document exactly as GET /v1/openapi.json serves it, for
//   code generation and the linter; and client/error-catalogue.json: every error code with its status
//   and title. Together they are the contract the compatibility gate compares with spec/
//   (test/node/compatibility.test.mjs). test/openapi/committed-document.test.ts fails when either is stale.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "./lib/wrangler.mjs";

/** The document is built from the route specs only; the Durable Object class they import along the way never runs here. */
const workersRuntimeStub = {
  name: "workers-runtime-stub",
  setup(build) {
    build.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: "cloudflare:workers", namespace: "workers-runtime-stub" }));
    build.onLoad({ filter: /.*/, namespace: "workers-runtime-stub" }, () => ({ contents: "export class DurableObject {}", loader: "js" }));
  },
};

function writeJson(path, value) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

const workDir = mkdtempSync(join(tmpdir(), "write-openapi-"));
try {
  const { build } = await import("esbuild");
  const bundle = join(workDir, "openapi.mjs");
  await build({
    stdin: {
      contents: [
        'export { apiRoutes } from "./src/app.ts";',
        'export { buildOpenApiDocument } from "./src/platform/openapi.ts";',
        'export { ERROR_CATALOGUE } from "./src/platform/errors.ts";',
      ].join("\n"),
      resolveDir: repoRoot,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: bundle,
    plugins: [workersRuntimeStub],
    logLevel: "error",
  });
  const { apiRoutes, buildOpenApiDocument, ERROR_CATALOGUE } = await import(pathToFileURL(bundle).href);
  const outDir = join(repoRoot, "client");
  mkdirSync(outDir, { recursive: true });
  writeJson(join(outDir, "openapi.json"), buildOpenApiDocument(apiRoutes));
  // Sorted by code, so a new code shows in a diff as one added entry wherever it sits in the source.
  const codes = Object.keys(ERROR_CATALOGUE).sort();
  writeJson(join(outDir, "error-catalogue.json"), Object.fromEntries(codes.map((code) => [code, { status: ERROR_CATALOGUE[code].status, title: ERROR_CATALOGUE[code].title }])));
  console.error("Wrote client/openapi.json and client/error-catalogue.json");
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
