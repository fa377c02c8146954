// The guides under docs/: what the README links to, what the /docs page lists, what the docs test runs.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

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

/** Writes public/docs/guides.json, the list the /docs page shows (git-ignored: docs/ is its source). */
export function writeGuideList(root = repoRoot) {
  writeFileSync(join(root, "public", "docs", "guides.json"), `${JSON.stringify(listGuides(root), null, 2)}\n`);
}
