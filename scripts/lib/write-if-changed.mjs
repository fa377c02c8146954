// Writes that leave a file alone when it already holds the same bytes: a running local server
// (wrangler dev) reloads, dropping its connections, whenever a file it serves or reads changes.
import { readFileSync, writeFileSync } from "node:fs";

/** Writes `data` to `path` unless it holds it already. */
export function writeIfChanged(path, data) {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  try {
    if (readFileSync(path).equals(bytes)) return;
  } catch {
    // Not there yet.
  }
  writeFileSync(path, bytes);
}

/** Copies `source` to `target` unless `target` holds its bytes already. */
export const copyIfChanged = (source, target) => writeIfChanged(target, readFileSync(source));
