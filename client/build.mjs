// Builds the package to dist/: ESM JavaScript and declarations from src/ (tsc), plus the generated
// src/schema.d.ts, which tsc reads but never copies. Run by `npm run build` here, by `npm pack`
// (prepack) and, from the repository root, by `npm run build:client`, `npm run spec` and every install.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";

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

/** The files under `dir`, as paths relative to it. */
function filesUnder(dir, root = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), root) : [relative(root, join(dir, entry.name))],
  );
}

// Built beside dist/, then moved in file by file (a rename replaces a file at once): two builds at the
// same time (two `npm pack`s of the package) never leave a reader of dist/ a file missing or half written.
const building = mkdtempSync(join(here, ".dist-"));
try {
  execFileSync(process.execPath, [tsc, "-p", join(here, "tsconfig.build.json"), "--outDir", building], { stdio: "inherit" });
  copyFileSync(join(here, "src", "schema.d.ts"), join(building, "schema.d.ts"));
  const built = filesUnder(building);
  for (const file of built) {
    mkdirSync(join(dist, file, ".."), { recursive: true });
    renameSync(join(building, file), join(dist, file));
  }
  for (const stale of filesUnder(dist).filter((file) => !built.includes(file))) rmSync(join(dist, stale), { force: true });
} finally {
  rmSync(building, { recursive: true, force: true });
}
