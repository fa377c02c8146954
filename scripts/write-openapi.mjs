// npm run spec
//   Writes client/openapi.json: the OpenAPI document exactly as GET /v1/openapi.json serves it, for
//   code generation and the linter. test/openapi/committed-document.test.ts fails when it is stale.
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

const workDir = mkdtempSync(join(tmpdir(), "write-openapi-"));
try {
  const { build } = await import("esbuild");
  const bundle = join(workDir, "openapi.mjs");
  await build({
    stdin: {
      contents: 'export { apiRoutes } from "./src/app.ts"; export { buildOpenApiDocument } from "./src/platform/openapi.ts";',
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
  const { apiRoutes, buildOpenApiDocument } = await import(pathToFileURL(bundle).href);
  const outDir = join(repoRoot, "client");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "openapi.json"), `${JSON.stringify(buildOpenApiDocument(apiRoutes), null, 2)}\n`);
  console.error("Wrote client/openapi.json");
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
