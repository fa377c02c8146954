// npm run spec (also run by every install and, first, by npm test)
//   Writes the contract as built now, from the route specs: client/openapi.json, the OpenAPI document
//   exactly as GET /v1/openapi.json serves it (for code generation and the linter), and
//   client/error-catalogue.json, every error code with its status and title; with --types, also the
//   typed client's types (client/src/schema.d.ts, openapi-typescript). None of them is committed:
//   the one committed copy of the contract is the accepted one in spec/, which the compatibility gate
//   (test/node/compatibility.test.mjs) holds these to. test/openapi/built-document.test.ts
//   checks that this build gives what the Worker serves.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { compactJson } from "./lib/compact-json.mjs";
import { repoRoot } from "./lib/wrangler.mjs";

/** The document is built from the route specs only; the Durable Object class they import along the way never runs here. */
const workersRuntimeStub = {
  name: "workers-runtime-stub",
  setup(build) {
    build.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: "cloudflare:workers", namespace: "workers-runtime-stub" }));
    build.onLoad({ filter: /.*/, namespace: "workers-runtime-stub" }, () => ({ contents: "export class DurableObject {}", loader: "js" }));
  },
};

let esbuild;
try {
  esbuild = await import("esbuild");
} catch (error) {
  // An install without devDependencies (`npm ci --omit=dev`) has nothing to build with, and needs no client.
  if (process.env.npm_lifecycle_event === "postinstall") {
    console.warn("esbuild is not installed: the contract (client/openapi.json) was not built");
    process.exit(0);
  }
  throw error;
}

const outDir = join(repoRoot, "client");
const workDir = mkdtempSync(join(tmpdir(), "write-openapi-"));
try {
  const bundle = join(workDir, "openapi.mjs");
  await esbuild.build({
    stdin: {
      contents: [
        'export { apiRoutes } from "./src/app.ts";',
        'export { buildOpenApiDocument } from "./src/platform/http/openapi.ts";',
        'export { ERROR_CATALOGUE } from "./src/platform/core/errors.ts";',
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
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "openapi.json"), compactJson(buildOpenApiDocument(apiRoutes)));
  // Sorted by code, so a new code shows in a diff as one added entry wherever it sits in the source.
  const codes = Object.keys(ERROR_CATALOGUE).sort();
  writeFileSync(
    join(outDir, "error-catalogue.json"),
    compactJson(Object.fromEntries(codes.map((code) => [code, { status: ERROR_CATALOGUE[code].status, title: ERROR_CATALOGUE[code].title }]))),
  );
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

if (process.argv.includes("--types")) {
  // The package exports no bin path: the CLI is found beside its package.json.
  const generator = join(dirname(createRequire(import.meta.url).resolve("openapi-typescript/package.json")), "bin", "cli.js");
  execFileSync(process.execPath, [generator, join(outDir, "openapi.json"), "--output", join(outDir, "src", "schema.d.ts"), "--silent"], { stdio: "inherit" });
}
console.error(`Wrote client/openapi.json and client/error-catalogue.json${process.argv.includes("--types") ? ", and client/src/schema.d.ts" : ""}`);
