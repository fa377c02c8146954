// Copies the API reference viewer (swagger-ui-dist) into the Worker's static assets so /docs works offline,
// and lists the guides of docs/ for the /docs page (public/docs/guides.json, git-ignored like the viewer).
// Run by every `npm start` too, beside servers that may be running: only files that differ are written.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeGuideList } from "./lib/guides.mjs";
import { copyIfChanged } from "./lib/write-if-changed.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "node_modules", "swagger-ui-dist");
const target = join(root, "public", "docs", "vendor");
writeGuideList(root);
if (!existsSync(source)) {
  console.warn("swagger-ui-dist is not installed; /docs will have no viewer");
  process.exit(0);
}
mkdirSync(target, { recursive: true });
for (const file of ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"]) {
  copyIfChanged(join(source, file), join(target, file));
}
