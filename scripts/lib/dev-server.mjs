// A private `wrangler dev` of the API on a free port, over a local D1 in `persistTo`: for checks
// that need the real server (a raw socket, the key command against the served database). It records
// itself beside its state as `npm start` does (scripts/lib/local-server.mjs), so operator commands
// given the same --persist-to go through it, and no second server opens that state.
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { join } from "node:path";
import { localSecret } from "./local-secrets.mjs";
import { claimState, newOperatorToken } from "./local-server.mjs";
import { repoRoot, spawnWrangler } from "./wrangler.mjs";

/** The local servers' Worker: the API plus the operator commands' routes (never deployed). */
export const LOCAL_ENTRY = join(repoRoot, "local", "worker", "index.ts");

/**
 * The `wrangler dev` arguments of a local server of the API on 127.0.0.1:`port` (over `persistTo`,
 * else .wrangler/state), its operator routes answering `operatorToken`; `vars` adds Worker variables.
 */
export function localServerArgs({ port, persistTo, operatorToken, vars = {} }) {
  const args = ["dev", LOCAL_ENTRY, "--ip", "127.0.0.1", "--port", String(port), ...(persistTo ? ["--persist-to", persistTo] : [])];
  args.push("--show-interactive-dev-session=false", "--var", `LOCAL_OPERATOR_TOKEN:${operatorToken}`);
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  return args;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether the server answers a plain request (the OpenAPI document) within 10 s. */
export async function answers(baseUrl) {
  try {
    const response = await fetch(`${baseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * Starts the server (migrate `persistTo` first) and resolves once it answers; `stop()` ends it. `vars`
 * adds Worker variables; `port` serves on that port (a restart of an earlier server), else on a free
 * one. Refuses (StateHeld) while another live process holds `persistTo`.
 */
export async function startDevServer(options) {
  const claim = await claimState(options.persistTo, { holder: "a private wrangler dev", status: "starting" });
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServerOnce({ ...options, claim });
    } catch (error) {
      // A free port found here can be taken by another process before workerd binds it (servers of
      // test files start side by side): on a port of its own choosing, the server tries another.
      const taken = error instanceof PortTaken;
      if (!taken || options.port !== undefined || attempt >= 3) {
        claim.release();
        throw taken ? error.cause : error;
      }
    }
  }
}

class PortTaken extends Error {}

async function startDevServerOnce({ persistTo, vars = {}, readyTimeoutMs = 120_000, port: wantedPort, claim }) {
  const port = wantedPort ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const operatorToken = newOperatorToken();
  // Keys issued by `npm run key` alone (no server) are signed with .dev.vars's KEY_SIGNING_SECRET: the server verifies with the same.
  const secrets = { PAGINATION_SECRET: randomBytes(16).toString("hex"), KEY_SIGNING_SECRET: localSecret("KEY_SIGNING_SECRET") };
  const args = [...localServerArgs({ port, persistTo, operatorToken, vars: { ...secrets, ...vars } }), "--log-level", "warn"];
  let output = "";
  const child = spawnWrangler(args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  // The state is held by the server from now on (it outlives this process if this one dies first).
  claim.update({ serverPid: child.pid });
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const running = () => child.exitCode === null && child.signalCode === null;
  const halt = async () => {
    if (!running()) return;
    try {
      // wrangler runs workerd as a child: signal the whole process group.
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
    for (let i = 0; i < 50 && running(); i++) await sleep(100);
  };
  const stop = async () => {
    await halt();
    if (!running()) claim.release();
  };
  const deadline = Date.now() + readyTimeoutMs;
  while (!(await answers(baseUrl))) {
    if (!running() || Date.now() > deadline) {
      await halt();
      const failure = new Error(`wrangler dev did not start on ${baseUrl}:\n${output.slice(-3000)}`);
      throw /Address already in use/.test(output) ? new PortTaken("port taken", { cause: failure }) : failure;
    }
    await sleep(300);
  }
  claim.update({ status: "serving", url: baseUrl, port, token: operatorToken });
  const server = { url: baseUrl, token: operatorToken };
  return { baseUrl, port, child, running, stop, output: () => output, operator: server };
}
