// Builds the package to dist/: ESM JavaScript and declarations from src/ (tsc), plus the generated
// src/schema.d.ts, which tsc reads but never copies. Run by `npm run build` here, by `npm pack`
// (prepack) and, from the repository root, by `npm run build:client`, `npm run spec` and every install.
import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const here = import.meta.dirname;
const dist = join(here, "dist");

let tsc;
try {
  // This package's own TypeScript, else the one of the repository that holds it.
  tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
} catch (error) {
  // An install without devDependencies (`npm ci --omit=dev`) has nothing to build with, and needs no client.
  if (process.env.npm_lifecycle_event === "postinstall") {
    console.warn("typescript is not installed: the typed client (client/dist) was not built");
    process.exit(0);
  }
  throw error;
}

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(here, "tsconfig.build.json")], { stdio: "inherit" });
copyFileSync(join(here, "src", "schema.d.ts"), join(dist, "schema.d.ts"));
