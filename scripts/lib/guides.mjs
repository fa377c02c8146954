// The guides under docs/: what the README links to, what the /docs page lists, what the docs test runs.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyIfChanged, writeIfChanged } from "./write-if-changed.mjs";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the /docs page serves a guide's text (public/docs/guides/, copied there by writeGuideList). */
export const guideUrl = (path) => `/docs/guides/${path.replace(/^docs\//, "")}`;

/** Every docs/*.md, in name order, with its title (its first `# ` heading, else its file name). */
export function listGuides(root = repoRoot) {
  const folder = join(root, "docs");
  let names = [];
  try {
    names = readdirSync(folder)
      .filter((name) => name.endsWith(".md"))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    const heading = readFileSync(join(folder, name), "utf8").match(/^# (.+)$/m);
    return { path: `docs/${name}`, title: heading ? heading[1].trim() : name };
  });
}

/**
 * Writes public/docs/guides.json, the list the /docs page shows (each guide by its title, a link to
 * its text), and copies the guides under public/docs/guides/ (both git-ignored: docs/ is their source).
 * Only what changed is written and only what went is removed: servers may be serving these files.
 */
export function writeGuideList(root = repoRoot) {
  const guides = listGuides(root).map((guide) => ({ ...guide, url: guideUrl(guide.path) }));
  const folder = join(root, "public", "docs", "guides");
  mkdirSync(folder, { recursive: true });
  const copies = new Set(guides.map((guide) => basename(guide.url)));
  for (const name of readdirSync(folder)) if (!copies.has(name)) rmSync(join(folder, name), { recursive: true, force: true });
  for (const guide of guides) copyIfChanged(join(root, guide.path), join(root, "public", guide.url));
  writeIfChanged(join(root, "public", "docs", "guides.json"), `${JSON.stringify(guides, null, 2)}\n`);
}
