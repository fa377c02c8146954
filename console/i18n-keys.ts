/**
 * Which catalog messages the console's first load names, from its sources alone (no file system: the
 * build reads the files, the catalogs test reads them through Vite). A module's imports that run
 * (`import type` brings nothing) are followed from the entries; a key written out, or every key a
 * template starts (`problem.${code}`: each problem's), is named by the module that writes it.
 */

const RUN_IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^"';]*?\sfrom\s*)?["'](\.{1,2}\/[^"']+)["']/gm;
const SOURCE_ENDINGS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

/** `path` (relative, ./ or ../) from the module `file`, as a /-separated path. */
export function resolveFrom(file: string, path: string): string {
  const parts = file.split("/").slice(0, -1);
  for (const part of path.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** The console module (a .ts or .tsx file, found through `exists`) that `file` names by `path`, if it is one. */
export function resolveModule(file: string, path: string, exists: (file: string) => boolean): string | undefined {
  const base = resolveFrom(file, path);
  return SOURCE_ENDINGS.map((ending) => base + ending).find((candidate) => /\.tsx?$/.test(candidate) && exists(candidate));
}

/** The console modules `file` imports statically. */
export function staticImports(file: string, source: string, exists: (file: string) => boolean): string[] {
  return [...source.matchAll(RUN_IMPORT)].flatMap(([, path]) => resolveModule(file, path, exists) ?? []);
}

/** `entries` and every module they import statically, transitively, with their sources (`read`: undefined for no such file). */
export function staticClosure(entries: readonly string[], read: (file: string) => string | undefined): Map<string, string> {
  const sources = new Map<string, string>();
  const queue = [...entries];
  for (let file = queue.shift(); file; file = queue.shift()) {
    const source = sources.has(file) ? undefined : read(file);
    if (source === undefined) continue;
    sources.set(file, source);
    queue.push(...staticImports(file, source, (candidate) => read(candidate) !== undefined));
  }
  return sources;
}

/** The keys a source names: a key written out, and every key a template starts. */
export function keysNamedIn(source: string, keys: readonly string[]): Set<string> {
  const known = new Set(keys);
  const named = new Set([...source.matchAll(/["'`]([a-zA-Z][\w-]*(?:\.[\w-]+)+)["'`]/g)].map(([, key]) => key).filter((key) => known.has(key)));
  for (const [, prefix] of source.matchAll(/`([a-zA-Z][\w-]*(?:\.[\w-]+)*\.)\$\{/g)) for (const key of keys) if (key.startsWith(prefix)) named.add(key);
  return named;
}

/** The keys the modules of `sources` name. */
export function keysNamedBy(sources: Iterable<string>, keys: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (const source of sources) for (const key of keysNamedIn(source, keys)) named.add(key);
  return named;
}
