// The one local server npm test starts for the checks that need a server and nothing else of it: each
// signs in a tenant of its own there, instead of starting a wrangler dev of its own (about 5 s of CPU
// each, a dozen files). A check run alone (`node --test <file>`), or one that needs other Worker
// variables, still starts its own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevServer } from "./dev-server.mjs";
import { copyMigratedState } from "./migrated-state.mjs";

/** How npm test tells its checks where the server is (JSON: its base URL and operator route). */
const SHARED_SERVER = "NPM_TEST_SHARED_SERVER";

/** The shared server's Worker variables: the checks' webhooks deliver to receivers on 127.0.0.1. */
const SHARED_VARS = { WEBHOOKS_ALLOW_LOCAL: "on" };

/** A local server over a migrated state of its own (`name` names the state's folder): `stop()` ends it and removes the state. */
async function startOwnServer(name, vars) {
  const state = mkdtempSync(join(tmpdir(), `${name}-state-`));
  await copyMigratedState(state);
  const server = await startDevServer({ persistTo: state, vars });
  return {
    baseUrl: server.baseUrl,
    operator: server.operator,
    async stop() {
      await server.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** Starts the shared server, and names it in this process's environment (the checks inherit it); `stop()` ends it. */
export async function startSharedServer() {
  const server = await startOwnServer("shared-server", SHARED_VARS);
  process.env[SHARED_SERVER] = JSON.stringify({ baseUrl: server.baseUrl, operator: server.operator });
  return {
    async stop() {
      delete process.env[SHARED_SERVER];
      await server.stop();
    },
  };
}

/**
 * A local server with the Worker variables `vars`: npm test's shared one when it has every one of them
 * (`stop()` then leaves it running), else one of its own. Its `baseUrl`, and `operator` for serverKeys.
 */
export async function localServer(name, vars = {}) {
  const named = process.env[SHARED_SERVER];
  const fits = named && Object.entries(vars).every(([variable, value]) => SHARED_VARS[variable] === value);
  return fits ? { ...JSON.parse(named), stop: async () => {} } : startOwnServer(name, vars);
}
