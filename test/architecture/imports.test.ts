/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/*
 * The shape of src/, read from the source itself (bundled into the test as text): no import
 * circle, and no import that runs up a layer. Layers, lowest first:
 *   platform/core (no I/O, no HTTP) → platform/data (D1) → platform/schema (the contract's zod
 *   vocabulary) → platform/http (the Hono chain and its document) → the resources (operations/,
 *   the aggregate with its Durable Object, lowest among those that use it) → app.ts (every route
 *   and every Operation command) → index.ts.
 * A resource may use another resource below it (folders never in a circle), never the app or the entry.
 */
const sources = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const files = new Map(Object.entries(sources).map(([path, text]) => [path.replace("../../src/", ""), text]));

const LAYERS: [string, (file: string) => boolean][] = [
  ["platform/core", (file) => file.startsWith("platform/core/")],
  ["platform/data", (file) => file.startsWith("platform/data/")],
  ["platform/schema", (file) => file.startsWith("platform/schema/")],
  ["platform/http", (file) => file.startsWith("platform/http/")],
  ["resources", (file) => /^[a-z-]+\//.test(file) && !file.startsWith("platform/")],
  ["app", (file) => file === "app.ts"],
  ["entry", (file) => file === "index.ts"],
];
const layerOf = (file: string) => LAYERS.findIndex(([, holds]) => holds(file));

function resolve(from: string, specifier: string): string | undefined {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  const path = parts.join("/");
  return [`${path}.ts`, `${path}/index.ts`].find((candidate) => files.has(candidate)) ?? (path.startsWith("..") ? path : undefined);
}

/** Every relative import (type-only ones too: they tie the files together for a reader just the same). */
function importsOf(file: string): string[] {
  const text = files.get(file)!;
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/g)) {
    const target = resolve(file, match[1]);
    if (target) found.push(target);
  }
  return found;
}

const graph = new Map([...files.keys()].map((file) => [file, importsOf(file)]));

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

/** A file's room: platform's by its sub-folder, a resource's by its folder. */
const folderOf = (file: string) => (file.startsWith("platform/") ? file.split("/").slice(0, 2).join("/") : file.includes("/") ? file.split("/")[0] : file);

describe("the import graph of src/", () => {
  it("reads every source file", () => {
    expect(files.size).toBeGreaterThan(50);
    expect([...graph.values()].flat().length).toBeGreaterThan(100);
  });

  it("has no circle between files", () => {
    expect(findCycle(graph)).toBeNull();
  });

  it("has no circle between folders (resources use each other one way only)", () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      const list = folders.get(from) ?? [];
      for (const target of targets) if (folderOf(target) !== from) list.push(folderOf(target));
      folders.set(from, list);
    }
    expect(findCycle(folders)).toBeNull();
  });

  it("has no import that runs up a layer", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (target.startsWith("..")) upward.push(`${file} -> ${target} (outside src/)`);
        else if (layerOf(target) > layerOf(file)) upward.push(`${file} (${LAYERS[layerOf(file)][0]}) -> ${target} (${LAYERS[layerOf(target)][0]})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("places every file in a layer", () => {
    expect([...files.keys()].filter((file) => layerOf(file) < 0)).toEqual([]);
  });

  it("cites no document outside the repository", () => {
    const citing = [...files].filter(([, text]) => /API\.md|DESIGN\.md|shared\//.test(text)).map(([file]) => file);
    expect(citing).toEqual([]);
  });
});
