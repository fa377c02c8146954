// The typed client as another project gets it (run by `npm test` with node:test): `npm pack` of
// client/ (its prepack builds dist/), installed from the tarball into a scratch project outside the
// repository, where plain Node runs it against a real `wrangler dev` and tsc checks a TypeScript
// consumer against its declarations. The install is offline: the scratch project's lockfile pins the
// client's dependencies to what the repository's own lockfile installed, which the npm cache holds.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { serverKeys } from "../../scripts/lib/keys.mjs";
import { localServer } from "../../scripts/lib/shared-server.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const clientDir = join(repoRoot, "client");
const manifest = JSON.parse(readFileSync(join(clientDir, "package.json"), "utf8"));
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
const SETUP = { timeout: 240_000 };

/** Runs a command to completion: { code, stdout, stderr }, never throwing on a non-zero exit. */
async function run(file, args, options = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { maxBuffer: 16 * 1024 * 1024, ...options });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (typeof error.code !== "number") throw error;
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

/**
 * The scratch project's lockfile: the tarball, and each of its runtime dependencies (with theirs) at
 * the version, integrity and registry tarball the repository's lockfile installed, so `npm ci
 * --offline` finds every one in the cache without asking the registry for anything.
 */
function scratchLockfile(tarball) {
  const installed = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")).packages;
  const packages = {
    "": { name: "client-consumer", version: "1.0.0", dependencies: { [manifest.name]: `file:${tarball}` } },
    [`node_modules/${manifest.name}`]: { version: manifest.version, resolved: `file:${tarball}`, dependencies: manifest.dependencies },
  };
  const pending = Object.keys(manifest.dependencies);
  while (pending.length) {
    const name = pending.shift();
    const path = `node_modules/${name}`;
    if (packages[path]) continue;
    const entry = installed[path];
    assert.ok(entry, `${name} (a dependency of the client) is not in the repository's package-lock.json`);
    const { dev, devOptional, peer, ...kept } = entry;
    packages[path] = { ...kept, resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split("/").at(-1)}-${entry.version}.tgz` };
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return { name: "client-consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

// What a project written in JavaScript does with the package: no TypeScript anywhere near it.
const PLAIN_CONSUMER = `
import { ApiProblem, createClient, unwrap } from "${manifest.name}";
import document from "${manifest.name}/openapi.json" with { type: "json" };

const [baseUrl, apiKey] = process.argv.slice(2);
const requests = [];
const api = createClient({ baseUrl, apiKey, client: "OPERATOR", idempotency: true, fetch: (request) => (requests.push(request.method + " " + request.url), fetch(request)) });

const operation = await unwrap(api.POST("/v1/operations", {
  body: { code: "PACKAGE-" + Date.now(), name: { en: "From the package" }, type: "PRIVATE", startDate: "2098-03-01T00:00:00Z", endDate: "2098-04-30T23:59:59Z" },
}));
const lines = ["SKU-A", "SKU-B", "SKU-C", "SKU-D", "SKU-E"].map((variantExternalId, i) => ({ variantExternalId, minQuantity: 0, maxQuantity: 10 + i }));
await unwrap(api.PUT("/v1/operations/{operationId}/lines", { params: { path: { operationId: operation.id } }, body: lines }));
requests.length = 0;
const walked = [];
for await (const line of api.paginate("/v1/operations/{operationId}/lines", { path: { operationId: operation.id }, query: { limit: 2, sort: ["-variantExternalId"] } })) {
  walked.push([line.variantExternalId, line.maxQuantity]);
}
const pageRequests = requests.length;
const missing = await unwrap(api.GET("/v1/operations/{operationId}", { params: { path: { operationId: "op_01ARZ3NDEKTSV4RRFFQ69G5FAV" } } })).catch((error) => error);
const invalid = await unwrap(api.POST("/v1/operations", { body: { code: "" } })).catch((error) => error);
const problem = (error) => ({ isApiProblem: error instanceof ApiProblem, isError: error instanceof Error, status: error.status, code: error.problem?.code, message: error.message });
console.log(JSON.stringify({
  operation: { id: operation.id, status: operation.status },
  walked,
  pageRequests,
  missing: problem(missing),
  invalid: problem(invalid),
  documentVersion: document.openapi,
}));
`;

// What a project written in TypeScript compiles against: the declarations must be real types, so
// every @ts-expect-error below has an error to expect (an unused one fails the check).
const TYPED_CONSUMER = `
import { ApiProblem, createClient, unwrap, type Problem, type Schemas } from "${manifest.name}";

export async function consume(baseUrl: string, apiKey: string): Promise<string[]> {
  const api = createClient({ baseUrl, apiKey, client: "OPERATOR" });
  const body: Schemas["OperationCreate"] = { code: "TYPED", name: { en: "Typed" }, type: "PRIVATE", startDate: "2098-03-01T00:00:00Z", endDate: "2098-04-30T23:59:59Z" };
  const operation: Schemas["Operation"] = await unwrap(api.POST("/v1/operations", { body }));
  const status: "DRAFT" | "ACTIVE" | "INACTIVE" = operation.status;
  // @ts-expect-error "ACTIVEX" is not an Operation status.
  await api.GET("/v1/operations", { params: { query: { status: ["ACTIVEX"] } } });
  // @ts-expect-error an Operation type is PUBLIC or PRIVATE.
  await api.POST("/v1/operations", { body: { ...body, type: "SECRET" } });
  // @ts-expect-error the path has no such route.
  await api.GET("/v1/no-such-route");
  const codes: string[] = [status];
  for await (const line of api.paginate("/v1/operations/{operationId}/lines", { path: { operationId: operation.id }, query: { limit: 2 } })) {
    const maxQuantity: number = line.maxQuantity;
    codes.push(line.variantExternalId + maxQuantity);
  }
  try {
    await unwrap(api.GET("/v1/operations/{operationId}", { params: { path: { operationId: "op_missing" } } }));
  } catch (error) {
    if (error instanceof ApiProblem) {
      const problem: Problem = error.problem;
      const httpStatus: number = error.status;
      codes.push(problem.code + httpStatus);
    }
  }
  return codes;
}
`;

describe("the client package, installed from its tarball into a project outside the repository", () => {
  const scratch = mkdtempSync(join(tmpdir(), "client-package-"));
  let server, key, tarballFiles, distMissing;

  before(async () => {
    // Whether the client's dist/index.js was ever missing while the pack's build ran (another pack at the
    // same time, such as the client guide's, reads it then).
    const built = join(clientDir, "dist", "index.js");
    distMissing = false;
    const watching = setInterval(() => (distMissing ||= !existsSync(built)), 5);
    const packed = await run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: clientDir }).finally(() => clearInterval(watching));
    assert.equal(packed.code, 0, packed.stderr);
    const [tarball] = readdirSync(scratch).filter((file) => file.endsWith(".tgz"));
    assert.equal(tarball, `${manifest.name.replace("@", "").replace("/", "-")}-${manifest.version}.tgz`);
    tarballFiles = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("[")))[0].files.map((file) => file.path);

    writeFileSync(
      join(scratch, "package.json"),
      JSON.stringify(
        { name: "client-consumer", version: "1.0.0", private: true, type: "module", dependencies: { [manifest.name]: `file:${tarball}` } },
        null,
        2,
      ),
    );
    writeFileSync(join(scratch, "package-lock.json"), JSON.stringify(scratchLockfile(tarball), null, 2));
    const installed = await run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: scratch });
    assert.equal(installed.code, 0, `npm ci --offline in the scratch project failed:\n${installed.stderr}`);

    server = await localServer("client-package");
    [{ key }] = await serverKeys(server.operator).issue([{ tenant: "client-package", role: "OPERATOR" }]);
  }, SETUP);

  after(async () => {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("is built without its dist/ ever missing a file: two packs at once each ship the whole package", () => {
    assert.equal(distMissing, false, "dist/index.js was missing while the pack built the client");
  });

  it("ships the built JavaScript, its declarations (the generated schema too), the contract files and its README, not the sources", () => {
    for (const file of ["dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "openapi.json", "error-catalogue.json", "README.md", "package.json"])
      assert.ok(tarballFiles.includes(file), `${file} is missing from the tarball`);
    assert.deepEqual(
      tarballFiles.filter((file) => file.startsWith("src/") || (file.endsWith(".ts") && !file.endsWith(".d.ts"))),
      [],
    );
  });

  it("runs in plain Node: creates an Operation, pages its lines, throws problems as ApiProblem", { timeout: 60_000 }, async () => {
    writeFileSync(join(scratch, "consumer.mjs"), PLAIN_CONSUMER);
    const result = await run(process.execPath, ["consumer.mjs", server.baseUrl, key], { cwd: scratch });
    assert.equal(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout);
    assert.match(seen.operation.id, /^op_/);
    assert.equal(seen.operation.status, "DRAFT");
    assert.deepEqual(seen.walked, [
      ["SKU-E", 14],
      ["SKU-D", 13],
      ["SKU-C", 12],
      ["SKU-B", 11],
      ["SKU-A", 10],
    ]);
    assert.equal(seen.pageRequests, 3, "five lines two by two are three pages");
    assert.deepEqual(seen.missing, { isApiProblem: true, isError: true, status: 404, code: "not_found", message: seen.missing.message });
    assert.match(seen.missing.message, /^404 not_found: /);
    assert.deepEqual(
      { ...seen.invalid, message: undefined },
      { isApiProblem: true, isError: true, status: 400, code: "validation_failed", message: undefined },
    );
    assert.equal(seen.documentVersion, JSON.parse(readFileSync(join(clientDir, "openapi.json"), "utf8")).openapi);
  });

  it("type-checks a TypeScript consumer against the package's declarations (wrong enum values refused)", { timeout: 60_000 }, async () => {
    // Beside it, the same consumer with one @ts-expect-error removed, which must fail: the check is not
    // vacuous. One program holds both (the declarations are read and checked once, about 5 s of CPU).
    writeFileSync(join(scratch, "consumer.ts"), TYPED_CONSUMER);
    writeFileSync(join(scratch, "refused.ts"), TYPED_CONSUMER.replace(`// @ts-expect-error "ACTIVEX" is not an Operation status.`, ""));
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true },
        files: ["consumer.ts", "refused.ts"],
      }),
    );
    const checked = await run(process.execPath, [tsc, "-p", "."], { cwd: scratch });
    assert.notEqual(checked.code, 0);
    assert.match(checked.stdout, /^refused\.ts\(\d+,\d+\): error TS\d+: Type '"ACTIVEX"' is not assignable to type '"DRAFT" \| "ACTIVE" \| "INACTIVE"'.*\n$/);
  });
});

describe("the client's TypeScript source", () => {
  const [major, minor] = process.versions.node.split(".").map(Number);
  const strips = major > 22 || (major === 22 && minor >= 18);
  it("loads in plain Node ≥ 22.18, which strips types but runs no TypeScript-only syntax", {
    skip: !strips && `Node ${process.version} does not strip types`,
  }, async () => {
    const loaded = await run(
      process.execPath,
      [
        "--input-type=module",
        "--eval",
        `const client = await import(${JSON.stringify(join(clientDir, "src", "index.ts"))}); console.log(Object.keys(client).sort().join(","));`,
      ],
      { cwd: repoRoot },
    );
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.equal(loaded.stdout.trim(), "ApiProblem,createClient,unwrap");
  });
});
