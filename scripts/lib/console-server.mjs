// The one local server npm test starts for its browser checks: each check signs in a tenant of its own
// there, instead of starting a wrangler dev of its own (about 5 s of CPU each, ten files). A check run
// alone (`node --test <file>`), or one that needs other Worker variables, still starts its own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevServer } from "./dev-server.mjs";
import { copyMigratedState } from "./migrated-state.mjs";

/** How npm test tells its checks where the server is (JSON: its base URL and operator route). */
const CONSOLE_SERVER = "NPM_TEST_CONSOLE_SERVER";

/** The shared server's Worker variables: the browser checks' webhooks deliver to receivers on 127.0.0.1. */
const SHARED_VARS = { WEBHOOKS_ALLOW_LOCAL: "on" };

/** Starts the shared server over a migrated state of its own, and names it in this process's environment (the checks inherit it); `stop()` ends it. */
export async function startConsoleServer() {
  const state = mkdtempSync(join(tmpdir(), "console-server-"));
  await copyMigratedState(state);
  const server = await startDevServer({ persistTo: state, vars: SHARED_VARS });
  process.env[CONSOLE_SERVER] = JSON.stringify({ baseUrl: server.baseUrl, operator: server.operator });
  return {
    async stop() {
      delete process.env[CONSOLE_SERVER];
      await server.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** The shared server (its baseUrl and operator route), when npm test started one with every variable of `vars`; else undefined. */
export function sharedConsoleServer(vars = {}) {
  const named = process.env[CONSOLE_SERVER];
  if (!named) return undefined;
  return Object.entries(vars).every(([name, value]) => SHARED_VARS[name] === value) ? JSON.parse(named) : undefined;
}
