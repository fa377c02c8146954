// A freshly migrated local state for checks that start servers of their own. Migrating starts a local
// runtime (about 3 s of CPU), copying takes milliseconds: the migrated state is made once per schema
// (the migrations, wrangler.toml and the wrangler that applied them) and copied.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { applyMigrations, repoRoot } from "./wrangler.mjs";

/**
 * Beside the installed packages, not in the temp dir: npm test gives its checks a temp dir of their own
 * (in memory, removed after the run), and the template must outlive it.
 */
const TEMPLATES = join(repoRoot, "node_modules", ".cache", "npm-test");

const COMPLETE = "migrated.json";
/** Templates of other schemas untouched this long are removed when a new one is made. */
const STALE_MS = 24 * 60 * 60 * 1000;

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/** What the migrated state depends on, as one digest. */
function schemaDigest() {
  const hash = createHash("sha256");
  const inputs = [
    ...filesUnder(join(repoRoot, "migrations")).sort(),
    join(repoRoot, "wrangler.toml"),
    join(repoRoot, "node_modules", "wrangler", "package.json"),
  ];
  for (const file of inputs)
    hash
      .update(`${relative(repoRoot, file)}\0`)
      .update(readFileSync(file))
      .update("\0");
  return hash.digest("hex").slice(0, 16);
}

function removeStaleTemplates(keep) {
  for (const name of readdirSync(TEMPLATES)) {
    if (!name.startsWith("migrated-state-") || name === keep) continue;
    const path = join(TEMPLATES, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another run removed it first.
    }
  }
}

/** The migrated template of the current schema, made if missing (two runs making it at once: one keeps its copy). */
export async function migratedTemplate() {
  const name = `migrated-state-${schemaDigest()}`;
  const template = join(TEMPLATES, name);
  if (existsSync(join(template, COMPLETE))) return template;
  mkdirSync(TEMPLATES, { recursive: true });
  const building = mkdtempSync(join(TEMPLATES, `${name}-building-`));
  try {
    await applyMigrations({ persistTo: building });
    writeFileSync(join(building, COMPLETE), JSON.stringify({ madeAt: new Date().toISOString() }));
    renameSync(building, template);
    removeStaleTemplates(name);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(template, COMPLETE))) throw error;
  }
  return template;
}

/** Fills the local state directory `state` (empty) with every database migrated, as `applyMigrations({ persistTo: state })` would. */
export async function copyMigratedState(state) {
  cpSync(await migratedTemplate(), state, { recursive: true, filter: (source) => !source.endsWith(COMPLETE) });
}
