// npm run check:drop-client: does the local server survive a client that drops mid-body?
// Starts a private `wrangler dev` (fresh local D1, its own port), then, over raw sockets:
//   1. a request that declares Content-Length 1 MiB and sends 1 KiB before closing;
//   2. a chunked upload of 9 MiB (answered 413 by the body limit) whose client closes mid-way;
// and after each, a plain request that must be answered. Exits 0 when the server kept serving.
// (wrangler 4.114.0–4.129.0 exited on these, as reported upstream; the lockfile pins 4.156.0.)
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations, spawnWrangler } from "./lib/wrangler.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function answered(baseUrl) {
  try {
    const response = await fetch(`${baseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Sends `head`, then `body` pieces, then closes the socket without finishing. */
function dropMidBody(port, head, pieces) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", async () => {
      socket.write(head);
      for (const piece of pieces) {
        socket.write(piece);
        await sleep(20);
      }
      socket.destroy();
      resolve();
    });
    socket.on("error", () => resolve());
  });
}

const state = mkdtempSync(join(tmpdir(), "drop-client-"));
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
let child;
let failed = false;
try {
  await applyMigrations({ persistTo: state });
  child = spawnWrangler(
    ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state, "--var", `PAGINATION_SECRET:${randomBytes(16).toString("hex")}`, "--show-interactive-dev-session=false", "--log-level", "warn"],
    { stdio: ["ignore", "ignore", "ignore"], detached: true },
  );
  for (let i = 0; i < 200 && !(await answered(baseUrl)); i++) await sleep(300);
  if (!(await answered(baseUrl))) throw new Error("wrangler dev did not start");

  const cases = [
    ["Content-Length longer than the body", `POST /v1/operations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1 << 20}\r\n\r\n`, [Buffer.alloc(1024, 97)]],
    ["chunked upload over 8 MiB, dropped", "POST /v1/operations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", Array.from({ length: 9 }, () => `${(1 << 20).toString(16)}\r\n${"a".repeat(1 << 20)}\r\n`)],
  ];
  for (const [name, head, pieces] of cases) {
    await dropMidBody(port, head, pieces);
    await sleep(1000);
    const alive = child.exitCode === null && (await answered(baseUrl));
    console.log(`${alive ? "ok  " : "FAIL"} ${name}: ${alive ? "the next request was answered" : "the server stopped answering"}`);
    if (!alive) failed = true;
  }
} catch (error) {
  console.error(error?.stack ?? error);
  failed = true;
} finally {
  if (child && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  rmSync(state, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
