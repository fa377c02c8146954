import { afterEach, describe, expect, it, vi } from "vitest";

/** The console's Vite config as `npm run dev:console` reads it, with the environment given. */
async function viteConfig(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  // Read as a path, not a module tsc follows: the config is Node code, outside the console's types.
  const path = "../../console/vite.config.ts";
  return (await import(/* @vite-ignore */ path)).default as { server?: { proxy?: Record<string, { target: string; ws?: boolean }> } };
}

describe("npm run dev:console", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("proxies /v1 to the port npm start serves on (PORT), 8787 by default, its live WebSockets too", async () => {
    expect((await viteConfig({ PORT: "9000" })).server?.proxy?.["/v1"]).toEqual({ target: "http://127.0.0.1:9000", ws: true });
    expect((await viteConfig({ PORT: undefined })).server?.proxy?.["/v1"]).toEqual({ target: "http://127.0.0.1:8787", ws: true });
  });
});
