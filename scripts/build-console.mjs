// Builds the console (console/ → public/console, the Worker's static assets) with Vite.
// --if-changed: only when its sources (console/, client/src, src/common) differ from the last build's.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const out = join(root, "public", "console");
const stamp = join(out, ".sources");
// src/common: the code the console shares with the Worker (its only way into src/, held by test/architecture/imports.test.ts).
const SOURCES = ["console", "client/src", "client/openapi.json", "src/common", "package-lock.json"];

function* files(path) {
  if (!existsSync(path)) return;
  if (statSync(path).isFile()) return yield path;
  for (const entry of readdirSync(path).sort()) yield* files(join(path, entry));
}

export function sourcesHash() {
  const hash = createHash("sha256");
  for (const source of SOURCES) for (const file of files(join(root, source))) hash.update(relative(root, file)).update("\0").update(readFileSync(file));
  return hash.digest("hex");
}

/** A language's catalog chunk (console/i18n-messages.ts): assets/de-<hash>.js. */
const LANGUAGE_CHUNK = /^assets\/(en|fr|de|es|it)-[\w-]+\.js$/;

/** What only the Excel library's chunk holds (its own links to its upgrade notes name it): no other chunk may. */
export const EXCEL_LIBRARY_MARK = /exceljs/i;

/**
 * The built console's weight, gzipped (level 9) in bytes: what its page loads first (index.html and
 * the scripts and style sheets it names, preloads included), the heaviest language's catalog (read
 * beside the first page: `language`), the chunks loaded on a page's first visit or on choosing
 * another language (`lazy`), and the Excel library's, loaded on the first Export or Import Excel
 * (`excel`). `firstFiles` are the files of the first load.
 */
export function consoleWeight() {
  const html = readFileSync(join(out, "index.html"), "utf8");
  const named = new Set([...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]));
  const gzipped = (file) => gzipSync(readFileSync(join(out, file)), { level: 9 }).length;
  const weight = {
    js: 0,
    css: 0,
    html: gzipSync(html, { level: 9 }).length,
    language: 0,
    lazy: 0,
    excel: 0,
    firstFiles: [...named].map((file) => join(out, file)),
  };
  for (const file of readdirSync(join(out, "assets")).map((name) => `assets/${name}`)) {
    if (!/\.(js|css)$/.test(file)) continue;
    if (LANGUAGE_CHUNK.test(file)) {
      weight.lazy += Math.min(weight.language, gzipped(file));
      weight.language = Math.max(weight.language, gzipped(file));
    } else if (named.has(file)) weight[file.endsWith(".js") ? "js" : "css"] += gzipped(file);
    else if (EXCEL_LIBRARY_MARK.test(readFileSync(join(out, file), "utf8"))) weight.excel += gzipped(file);
    else weight.lazy += gzipped(file);
  }
  return weight;
}

export async function buildConsole({ ifChanged = false } = {}) {
  const hash = sourcesHash();
  if (ifChanged && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return false;
  const vite = join(root, "node_modules", "vite", "bin", "vite.js");
  if (!existsSync(vite)) {
    console.warn("vite is not installed (npm install): the console is not built");
    return false;
  }
  const code = await new Promise((resolve) => {
    spawn(process.execPath, [vite, "build", "--config", join(root, "console", "vite.config.ts"), "--logLevel", "warn"], { cwd: root, stdio: "inherit" }).on(
      "close",
      resolve,
    );
  });
  if (code !== 0) throw new Error(`building the console failed (vite exited ${code})`);
  writeFileSync(stamp, hash);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildConsole({ ifChanged: process.argv.includes("--if-changed") }).then(
    (built) => console.error(built ? "Console built into public/console." : "Console up to date."),
    (error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
