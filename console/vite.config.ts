import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { readApiLimits } from "./api-limits.ts";
import { icuMessages } from "./i18n-messages.ts";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Built into the Worker's static assets (public/console, git-ignored), served at /console.
export default defineConfig({
  root: here("."),
  base: "/console/",
  plugins: [react(), icuMessages(here("./messages"))],
  resolve: { alias: { "@campaign-policy/client": here("../client/src/index.ts"), "@campaign-policy/common": here("../src/common") } },
  define: { __API_LIMITS__: JSON.stringify(readApiLimits(here("../client/openapi.json"))) },
  build: { outDir: here("../public/console"), emptyOutDir: true, target: "es2022" },
  // /v1 goes to the API `npm start` serves: on PORT when it was started with one (as npm start reads it).
  server: { proxy: { "/v1": `http://127.0.0.1:${process.env.PORT || 8787}` } },
});
