// npm run tenant:move -- --tenant <tenantId> --to SHARD_… [--drain-seconds N] [--persist-to DIR] [--remote]
//   Moves a tenant's rows to another shard: writes answer 503 tenant_moving meanwhile, reads keep
//   working; rows are copied in chunks, counted and checksummed on both sides, the directory is
//   switched, and the old rows are deleted once every Worker instance has read the new placement.
//   A move that fails leaves the tenant on its old shard, whole; run it again to start over.
// Runs the Worker's own move code (src/tenants/move.ts) against the D1 bindings of wrangler.toml:
// the local databases `npm start` serves (it may keep serving meanwhile), or with --remote the deployed ones.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { commandLine, fail } from "./lib/command-line.mjs";
import { isShard, repoRoot, wranglerEnv } from "./lib/wrangler.mjs";

const usage = "usage: npm run tenant:move -- --tenant <tenantId> --to SHARD_… [--drain-seconds N] [--persist-to DIR] [--remote]";

const options = commandLine(
  {
    tenant: { type: "string" },
    to: { type: "string" },
    "drain-seconds": { type: "string" },
    "persist-to": { type: "string" },
    remote: { type: "boolean", default: false },
  },
  usage,
);
if (!options.tenant || !options.to || !isShard(options.to)) fail("--tenant and --to (a shard binding name, SHARD_…) are required.", usage);
const drainSeconds = options["drain-seconds"] === undefined ? undefined : Number(options["drain-seconds"]);
if (drainSeconds !== undefined && !(Number.isFinite(drainSeconds) && drainSeconds >= 0)) fail("--drain-seconds must be a number of seconds ≥ 0.", usage);

// wrangler's own notices ("Using secrets defined in .dev.vars") would mix with the report on stdout.
Object.assign(process.env, wranglerEnv({ WRANGLER_LOG: process.env.WRANGLER_LOG ?? "warn" }));
const workDir = mkdtempSync(join(tmpdir(), "tenant-move-"));
let proxy;
try {
  // The move is the Worker's own code: bundled for Node so both runtimes share one implementation.
  const { build } = await import("esbuild");
  const bundle = join(workDir, "move.mjs");
  await build({
    entryPoints: [join(repoRoot, "src", "tenants", "move.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: bundle,
    logLevel: "error",
  });
  const { moveTenant, MoveRefused } = await import(pathToFileURL(bundle).href);

  let configPath = join(repoRoot, "wrangler.toml");
  if (options.remote) {
    // Remote bindings: the same databases, reached through Cloudflare's API (needs `wrangler login`).
    configPath = join(repoRoot, ".tenant-move.wrangler.toml");
    writeFileSync(configPath, readFileSync(join(repoRoot, "wrangler.toml"), "utf8").replace(/(migrations_dir = "[^"]+")/g, "$1\nremote = true"));
  }
  const { getPlatformProxy } = await import("wrangler");
  proxy = await getPlatformProxy({
    configPath,
    persist: options["persist-to"] ? { path: join(options["persist-to"], "v3") } : true,
    remoteBindings: options.remote,
  });
  try {
    const report = await moveTenant(proxy.env, options.tenant, options.to, {
      drainMs: drainSeconds === undefined ? undefined : drainSeconds * 1000,
      log: (line) => console.error(line),
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    if (error instanceof MoveRefused) {
      console.error(error.message);
      process.exitCode = 1;
    } else throw error;
  }
} finally {
  await proxy?.dispose();
  rmSync(workDir, { recursive: true, force: true });
  if (options.remote) rmSync(join(repoRoot, ".tenant-move.wrangler.toml"), { force: true });
}
