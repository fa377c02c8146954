import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { readApiLimits } from "./api-limits.ts";
import { icuMessages } from "./i18n-messages.ts";
import { earlyScript } from "./early-script.ts";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Built into the Worker's static assets (public/console, git-ignored), served at /console.
export default defineConfig({
  root: here("."),
  base: "/console/",
  // The catalogs, each language's first-load words apart from the later pages' (main.tsx makes the first load);
  // early.ts starts reading the language's words while main.tsx's scripts load.
  plugins: [
    react(),
    icuMessages(here("./messages"), [here("./src/main.tsx"), here("./src/early.ts")]),
    earlyScript(here("./src/early.ts"), here("./src/pages.ts")),
  ],
  resolve: {
    alias: [
      { find: "@campaign-policy/client", replacement: here("../client/src/index.ts") },
      { find: "@campaign-policy/common", replacement: here("../src/common") },
      // exceljs's browser build without its polyfills for old browsers (native async): smaller and faster.
      { find: /^exceljs$/, replacement: "exceljs/dist/exceljs.bare.min.js" },
    ],
  },
  define: { __API_LIMITS__: JSON.stringify(readApiLimits(here("../client/openapi.json"))) },
  // The one chunk past Vite's 500 kB warning is the Excel library's (about 850 kB), read only on the
  // first Excel export or import; what a page loads first is held by the console's budget check.
  build: { outDir: here("../public/console"), emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1000 },
  // /v1 goes to the API `npm start` serves: on PORT when it was started with one (as npm start reads it); its live WebSockets too.
  server: { proxy: { "/v1": { target: `http://127.0.0.1:${process.env.PORT || 8787}`, ws: true } } },
});
