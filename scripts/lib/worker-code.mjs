// The Worker's own code run from a script (tenant:move, tenant:delete): one of its src/ files bundled
// for Node, so both runtimes share one implementation, against wrangler.toml's bindings through
// wrangler's platform proxy: the local databases and bucket `npm start` serves (it may keep serving
// meanwhile), or the deployed ones.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot, wranglerEnv } from "./wrangler.mjs";

/**
 * Bundles `entry` (a path under the repository), then calls `use(module, env)` with its exports and the
 * bindings; `persistTo` names the local state (default: the one `npm start` uses), `remote` the
 * deployed bindings instead (needs `wrangler login`).
 */
export async function withWorkerCode({ entry, persistTo, remote = false }, use) {
  // wrangler's own notices ("Using secrets defined in .dev.vars") would mix with the report on stdout.
  Object.assign(process.env, wranglerEnv({ WRANGLER_LOG: process.env.WRANGLER_LOG ?? "warn" }));
  const workDir = mkdtempSync(join(tmpdir(), "worker-code-"));
  const remoteConfig = join(repoRoot, `.${process.pid}.remote.wrangler.toml`);
  let proxy;
  try {
    const { build } = await import("esbuild");
    const bundle = join(workDir, "entry.mjs");
    await build({ entryPoints: [join(repoRoot, entry)], bundle: true, format: "esm", platform: "node", outfile: bundle, logLevel: "error" });
    const module = await import(pathToFileURL(bundle).href);

    let configPath = join(repoRoot, "wrangler.toml");
    if (remote) {
      // Remote bindings: the same databases and bucket, reached through Cloudflare's API.
      configPath = remoteConfig;
      writeFileSync(
        configPath,
        readFileSync(join(repoRoot, "wrangler.toml"), "utf8").replace(/((?:migrations_dir|bucket_name) = "[^"]+")/g, "$1\nremote = true"),
      );
    }
    const { getPlatformProxy } = await import("wrangler");
    proxy = await getPlatformProxy({ configPath, persist: persistTo ? { path: join(persistTo, "v3") } : true, remoteBindings: remote });
    return await use(module, proxy.env);
  } finally {
    await proxy?.dispose();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(remoteConfig, { force: true });
  }
}
