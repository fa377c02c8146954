/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/*
 * The shape of src/ and console/src/, read from the source itself (bundled into the test as text):
 * no import circle, and no import that runs up a layer. Layers of src/, lowest first:
 *   common (what the Worker and the console share: the language and zod, nothing else) →
 *   platform/core (no I/O, no HTTP) → platform/data (D1) → platform/schema (the contract's zod
 *   vocabulary) → platform/http (the Hono chain and its document) → the resources (operations/,
 *   the aggregate with its Durable Object, lowest among those that use it) → app.ts (every route
 *   and every Operation command) → index.ts.
 * A resource may use another resource below it (folders never in a circle), never the app or the entry.
 * The console reaches src/ through src/common alone (`@campaign-policy/common/…`).
 */
type Sources = Map<string, string>;
const read = (sources: Record<string, string>, root: string): Sources => new Map(Object.entries(sources).map(([path, text]) => [path.replace(root, ""), text]));
const files = read(import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>, "../../src/");
const consoleFiles = read(
  import.meta.glob("../../console/src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>,
  "../../console/src/",
);

type Layers = [string, (file: string) => boolean][];
const LAYERS: Layers = [
  ["common", (file) => file.startsWith("common/")],
  ["platform/core", (file) => file.startsWith("platform/core/")],
  ["platform/data", (file) => file.startsWith("platform/data/")],
  ["platform/schema", (file) => file.startsWith("platform/schema/")],
  ["platform/http", (file) => file.startsWith("platform/http/")],
  ["resources", (file) => /^[a-z-]+\//.test(file) && !file.startsWith("platform/") && !file.startsWith("common/")],
  ["app", (file) => file === "app.ts"],
  ["entry", (file) => file === "index.ts"],
];
/** The console's floors: its plumbing, the API's calls, what things are called, the sections (which never use one another), the routes, the entry. */
const SECTIONS = ["operations/", "rules/", "desk/"];
const CONSOLE_LAYERS: Layers = [
  ["shared", (file) => file.startsWith("shared/")],
  ["api", (file) => file.startsWith("api/")],
  ["labels", (file) => file.startsWith("labels/")],
  ["sections", (file) => SECTIONS.some((section) => file.startsWith(section))],
  // The routes, and the pages read on their first visit.
  ["app", (file) => file === "App.tsx" || file === "pages.ts"],
  // The console's scripts: main.tsx, and early.ts which starts reading words and a lazy page beside it.
  ["entry", (file) => file === "main.tsx" || file === "early.ts"],
];

/** Every import's specifier (type-only ones too: they tie the files together for a reader just the same). */
const specifiersOf = (text: string) =>
  [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']/g)].map((match) => match[1] ?? match[2]);

/** A relative specifier as a file of `tree` (outside it: the path as it runs out, starting with ".."). */
function resolve(tree: Sources, from: string, specifier: string): string | undefined {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.length && parts.at(-1) !== ".." ? parts.pop() : parts.push("..");
    else if (part !== ".") parts.push(part);
  }
  const path = parts.join("/");
  if (path.startsWith("..")) return path;
  return [`${path}.ts`, `${path}.tsx`, `${path}/index.ts`].find((candidate) => tree.has(candidate));
}

/** A relative import of code (not of data or a style sheet: package.json, grid.css). */
const codeImport = (specifier: string) => specifier.startsWith(".") && !/\.(json|css)$/.test(specifier);

/** Each file's relative imports, as files of its tree. */
const graphOf = (tree: Sources) =>
  new Map(
    [...tree].map(([file, text]) => [
      file,
      specifiersOf(text)
        .filter(codeImport)
        .flatMap((specifier) => resolve(tree, file, specifier) ?? []),
    ]),
  );

function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of edges.keys()) {
    if (!state.has(node)) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return null;
}

function folderCycle(graph: Map<string, string[]>, folderOf: (file: string) => string) {
  const folders = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const list = folders.get(from) ?? [];
    for (const target of targets) if (folderOf(target) !== from) list.push(folderOf(target));
    folders.set(from, list);
  }
  return findCycle(folders);
}

function upwardImports(graph: Map<string, string[]>, layers: Layers) {
  const layerOf = (file: string) => layers.findIndex(([, holds]) => holds(file));
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (target.startsWith("..")) upward.push(`${file} -> ${target} (outside its tree)`);
      else if (layerOf(target) > layerOf(file)) upward.push(`${file} (${layers[layerOf(file)][0]}) -> ${target} (${layers[layerOf(target)][0]})`);
    }
  }
  return upward;
}

const unplaced = (tree: Sources, layers: Layers) => [...tree.keys()].filter((file) => !layers.some(([, holds]) => holds(file)));

const graph = graphOf(files);
const consoleGraph = graphOf(consoleFiles);

/** A file's room: platform's by its sub-folder, a resource's by its folder. */
const folderOf = (file: string) => (file.startsWith("platform/") ? file.split("/").slice(0, 2).join("/") : file.includes("/") ? file.split("/")[0] : file);
const consoleFolderOf = (file: string) => (file.includes("/") ? file.split("/")[0] : file);

describe("the import graph of src/", () => {
  it("reads every source file", () => {
    expect(files.size).toBeGreaterThan(50);
    expect([...graph.values()].flat().length).toBeGreaterThan(100);
  });

  it("has no circle between files", () => {
    expect(findCycle(graph)).toBeNull();
  });

  it("has no circle between folders (resources use each other one way only)", () => {
    expect(folderCycle(graph, folderOf)).toBeNull();
  });

  it("has no import that runs up a layer", () => {
    expect(upwardImports(graph, LAYERS)).toEqual([]);
  });

  it("places every file in a layer", () => {
    expect(unplaced(files, LAYERS)).toEqual([]);
  });

  it("holds common/ to itself and zod: no I/O, no Worker, nothing of the server", () => {
    const common = [...files.keys()].filter((file) => file.startsWith("common/"));
    expect(common.length).toBeGreaterThanOrEqual(5);
    const outside = common.flatMap((file) =>
      specifiersOf(files.get(file)!)
        .filter((specifier) => (specifier.startsWith(".") ? !resolve(files, file, specifier)?.startsWith("common/") : specifier !== "zod"))
        .map((specifier) => `${file} -> ${specifier}`),
    );
    expect(outside).toEqual([]);
    // Its types too: `tsc -p src/common` (npm run typecheck) checks it without the Worker's or the DOM's.
    const worker = common.filter((file) => /\b(D1Database|DurableObject\w*|ExecutionContext|Request|Response|fetch|caches|crypto)\b/.test(files.get(file)!));
    expect(worker).toEqual([]);
  });

  it("cites no document outside the repository", () => {
    const citing = [...files].filter(([, text]) => /API\.md|DESIGN\.md|shared\//.test(text)).map(([file]) => file);
    expect(citing).toEqual([]);
  });
});

describe("the import graph of console/src/", () => {
  it("reads every source file", () => {
    expect(consoleFiles.size).toBeGreaterThan(40);
    expect([...consoleGraph.values()].flat().length).toBeGreaterThan(100);
  });

  it("reaches src/ through src/common alone, and nothing else outside console/src", () => {
    const outside = [...consoleFiles].flatMap(([file, text]) =>
      specifiersOf(text)
        .filter((specifier) =>
          codeImport(specifier)
            ? resolve(consoleFiles, file, specifier)?.startsWith("..")
            : specifier.startsWith("@campaign-policy/common") && !files.has(`${specifier.replace("@campaign-policy/common/", "common/")}.ts`),
        )
        .map((specifier) => `${file} -> ${specifier}`),
    );
    expect(outside).toEqual([]);
    const shared = [...consoleFiles.values()].flatMap((text) => specifiersOf(text).filter((specifier) => specifier.startsWith("@campaign-policy/common/")));
    expect(shared.length).toBeGreaterThan(0);
  });

  it("has no circle between files", () => {
    expect(findCycle(consoleGraph)).toBeNull();
  });

  it("has no circle between folders", () => {
    expect(folderCycle(consoleGraph, consoleFolderOf)).toBeNull();
  });

  it("has no import that runs up a layer, and no section importing another", () => {
    expect(upwardImports(consoleGraph, CONSOLE_LAYERS)).toEqual([]);
    const across = [...consoleGraph].flatMap(([file, targets]) =>
      SECTIONS.includes(`${consoleFolderOf(file)}/`)
        ? targets
            .filter((target) => SECTIONS.includes(`${consoleFolderOf(target)}/`) && consoleFolderOf(target) !== consoleFolderOf(file))
            .map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(across).toEqual([]);
  });

  it("places every file in a layer", () => {
    expect(unplaced(consoleFiles, CONSOLE_LAYERS)).toEqual([]);
  });
});
