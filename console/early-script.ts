import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { OutputChunk } from "rolldown";
import type { Plugin } from "vite";

/** A page of pages.ts: its path and its module, as `page("…", () => import("…"), …)` writes them. */
const PAGE = /page\("([^"]+)", \(\) => import\("([^"]+)"\)/g;

/**
 * A second entry, `script` (src/early.ts), built as a chunk of its own and named in index.html as an
 * async module script: the browser runs it as soon as it and its few imports are read, while the
 * console's main script is still loading. Beside it, index.html lists the chunks and style sheets of
 * each page loaded on its first visit (`pages`: pages.ts), by path, those the first load holds left out.
 */
export function earlyScript(script: string, pages: string): Plugin {
  return {
    name: "early-script",
    apply: "build",
    options(options) {
      const input = typeof options.input === "string" ? { index: options.input } : Array.isArray(options.input) ? { index: options.input[0] } : options.input;
      return { ...options, input: { ...input, early: script } };
    },
    transformIndexHtml: {
      order: "post",
      handler(html, { bundle }) {
        const chunks = Object.values(bundle ?? {}).filter((output): output is OutputChunk => output.type === "chunk");
        const early = chunks.find((chunk) => chunk.facadeModuleId === script);
        if (!early) throw new Error(`No chunk for ${script}`);
        const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
        const filesOf = (chunk: OutputChunk, files = new Set<string>()): Set<string> => {
          if (files.has(chunk.fileName) || html.includes(chunk.fileName)) return files;
          files.add(chunk.fileName);
          for (const css of chunk.viteMetadata?.importedCss ?? []) if (!html.includes(css)) files.add(css);
          for (const file of chunk.imports) {
            const imported = byFile.get(file);
            if (imported) filesOf(imported, files);
          }
          return files;
        };
        const lazy: Record<string, string[]> = {};
        for (const [, path, module] of readFileSync(pages, "utf8").matchAll(PAGE)) {
          const base = resolve(dirname(pages), module);
          const chunk = chunks.find((candidate) => candidate.facadeModuleId?.replace(/\.tsx?$/, "") === base);
          if (!chunk) throw new Error(`No chunk for the page ${module} (${path})`);
          lazy[path] = [...filesOf(chunk)].map((file) => `/console/${file}`);
        }
        if (Object.keys(lazy).length < 5) throw new Error(`pages.ts lists too few pages for ${PAGE}`);
        return [
          // First in the head: the browser asks for it in its first round of requests.
          { tag: "script", attrs: { type: "module", async: true, crossorigin: true, src: `/console/${early.fileName}` }, injectTo: "head-prepend" as const },
          { tag: "meta", attrs: { name: "lazy-pages", content: JSON.stringify(lazy) }, injectTo: "head" as const },
        ];
      },
    },
  };
}
